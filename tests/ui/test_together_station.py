"""A student's window as a station of a class measuring together: the exercise (naming the
class's collector) opened, the name typed, Wait for Start together ticked; the station gets its
own server of the class's pool from the collector, checks in, and measures the round the
instructor starts at the same moment as another station; the tab says what it got, and the
run stays in the student's database."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.domain.collector import Collector as CollectorAddress
from app.domain.net import Protocol
from app.domain.together import StationStatus, TogetherPlan
from app.engine.process.tools import Tool
from app.store.class_backends import open_class_store
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.lab.class_http import call
from app.study.lab.collector import Collector
from app.study.lab.exercises import write_exercise
from app.study.lab.together import start_together
from app.study.lab.together_results import LAST_WORD_S
from app.study.lab.together_wire import read_results
from app.study.lab.together_words import rate_text
from app.ui.main_window import MainWindow
from tests.classlive import INSTRUCTOR, TOKEN, short_exercise
from tests.conftest import free_port
from tests.togetherlab import start_stations
from tests.ui.test_exercise_flow import open_file
from tests.ui.user import User, wait_for


def test_a_students_window_measures_together_with_the_class(
    window: MainWindow, user: User, tmp_path: Path, iperf3_tool: Tool
) -> None:
    store = open_class_store(f"sqlite:{tmp_path / 'class.sqlite3'}")
    collector = Collector(store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR)
    collector.start()
    port = free_port()
    server = subprocess.Popen(
        [iperf3_tool.path, "-s", "-p", str(port), "-B", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    others = []
    try:
        pool = {"ports": [port], "engine": "iperf3", "host": "127.0.0.1"}
        assert call(collector.url, INSTRUCTOR, "/v1/pool", json.dumps(pool).encode()).status == 200
        exercise = replace(short_exercise(), collector=CollectorAddress(collector.url, TOKEN))
        source = write_exercise(tmp_path / "lab.linklab-exercise", exercise)
        with user.answering(open_file(source)):
            user.menu("File", "Open exercise…")
        user.click("Wait for Start together")  # no name yet: the tab says what to do
        assert "Type your name first" in user.text("Measuring together")
        assert not user.find("Wait for Start together").isChecked()  # type: ignore[attr-defined]
        user.type("Your name", "Ann Lee", enter=True)
        user.check("Wait for Start together")
        wait_for(
            lambda: (
                "Waiting for the instructor's Start together" in user.text("Measuring together")
            ),
            30,
            "the window to check in",
        )
        others = start_stations(tmp_path, collector.url, TOKEN, exercise, [0.4])
        others[0].take_part()
        plan = TogetherPlan(Protocol.UDP, seconds=2, rounds=1, bitrate_bps=2_000_000)
        together = start_together(store, plan, time.time())
        others[0].join()
        wait_for(
            lambda: "round 1 together:" in user.text("Measuring together"),
            30,
            "the round's end",
        )
        deadline = time.monotonic() + 20
        while True:
            result, _ = read_results(store, together.id, time.time() + LAST_WORD_S + 1)
            assert result is not None
            ann = next(s for s in result.slots[0].stations if s.student == "Ann Lee")
            if ann.final or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert ann.status is StationStatus.OK, ann.reason
        assert ann.mean_bps == pytest.approx(2e6, rel=0.05)
        assert f"round 1 together: {rate_text(ann.mean_bps)}" in user.text("Measuring together")
        assert result.slots[0].index is not None and result.slots[0].index > 0.95
        user.check("Wait for Start together", False)
        with Database(window.context.db_path, readonly=True) as db:
            names = [s.name for s in SessionStore(db).list_sessions()]
        assert "Together: Ann Lee, round 1" in names
    finally:
        for station in others:
            station.close()
        server.terminate()
        server.wait(timeout=10)
        collector.stop()
        store.close()
