"""A class collected live with real processes, on both stores (an SQLite file and a real
PostgreSQL): `linklab class-server`, a pool of iperf3 servers announced to it, a student's
`linklab run --exercise` pushing real runs as they end, 60 station processes pushing at once,
the collector killed with SIGKILL mid-push and started again, and PostgreSQL stopped under it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli.class_live_cmds import INSTRUCTOR_TOKEN_VARIABLE
from app.store.class_backends import open_class_store
from app.store.class_store import ClassStore
from app.study.lab.class_http import call
from app.study.lab.class_live import view_from_wire
from app.study.lab.exercises import read_exercise
from tests.classlive import (
    ADA,
    INSTRUCTOR,
    TOKEN,
    Measured,
    as_station,
    measure_ada,
    short_exercise,
    store_url,
    write_station,
)
from tests.conftest import ROOT_DIR, free_port, linklab, require_engine

STORES = ["sqlite", "postgresql"]
STUDENT = "Ann Lee"


class Running:
    """A LinkLab command left running, its output in a file."""

    def __init__(self, log: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.log = log
        self.args = args
        self._handle = log.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app", *args],
            cwd=ROOT_DIR,
            stdout=self._handle,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8")

    def wait_for(self, words: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while words not in self.text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {words!r} in:\n{self.text()}")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        code = self.process.wait(timeout=30)
        self._handle.close()
        return code


@pytest.fixture(params=STORES)
def store_of(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    pg = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    return store_url(request.param, tmp_path, pg)


def start_collector(tmp_path: Path, store: str, port: int, *more: str) -> Running:
    token_file = tmp_path / "class.token"
    for path, token in ((token_file, TOKEN), (tmp_path / "instructor.token", INSTRUCTOR)):
        if not path.exists():
            path.write_text(token + "\n", encoding="utf-8")
            path.chmod(0o600)
    collector = Running(
        tmp_path / "collector.log",
        "class-server", "--listen", f"127.0.0.1:{port}", "--store", store,
        "--token-file", str(token_file), *more,
    )  # fmt: skip
    collector.wait_for("Press Ctrl+C to stop.")
    return collector


@pytest.fixture
def opened(store_of: str) -> Iterator[ClassStore]:
    store = open_class_store(store_of)
    yield store
    store.close()


def class_json(source: str, *more: str) -> dict[str, Any]:
    done = linklab("class", source, "--json", *more)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


# Over 10 s: a live collector receives each student's runs as they end, in both stores.
def test_a_student_runs_are_collected_as_they_end(
    tmp_path: Path, store_of: str, opened: ClassStore
) -> None:
    require_engine("iperf3")
    exercise_file = tmp_path / "lab.linklab-exercise"
    from app.study.lab.exercises import write_exercise

    write_exercise(exercise_file, short_exercise())
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    collector = start_collector(tmp_path, store_of, port, "--exercise", str(exercise_file))
    first = free_port()
    # The class token (in the exercise every student has) registers no server: the collector
    # refuses it with the credential it takes, and the servers stop (they would serve no one).
    rogue = linklab(
        "serve", "--count", "2", "--port", str(first), "--no-netserver", "--no-echo",
        "--bind", "127.0.0.1", "--collector", url, "--token-file", str(tmp_path / "class.token"),
    )  # fmt: skip
    assert rogue.returncode == 2, rogue.stdout + rogue.stderr
    assert "needs the instructor token" in rogue.stderr, rogue.stderr
    no_token = linklab("serve", "--count", "2", "--port", str(first), "--collector", url)
    assert no_token.returncode == 2 and "--instructor-token-file FILE" in no_token.stderr
    assert "listening" not in no_token.stdout  # refused before any server started
    pool = Running(
        tmp_path / "serve.log",
        "serve", "--count", "2", "--port", str(first), "--no-netserver", "--no-echo",
        "--bind", "127.0.0.1", "--collector", url,
        "--instructor-token-file", str(tmp_path / "instructor.token"),
    )  # fmt: skip
    try:
        pool.wait_for("Press Ctrl+C to stop.")
        assert f"Told the class's collector at {url}: 2 iperf3 servers" in pool.text()
        # The instructor's LinkLab wrote the collector into the exercise: the student names
        # no collector, no token and no peer; the collector gives the station its server.
        named = read_exercise(exercise_file).collector
        assert named is not None and (named.url, named.token) == (url, TOKEN)
        done = linklab(
            "run", "--exercise", str(exercise_file), "--student", STUDENT, "--group", "G2",
            "--db", str(tmp_path / "ann.sqlite3"), "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"class at {url}: " in done.stderr and "sent to the class." in done.stderr
        session = json.loads(done.stdout)
        assert session["status"] == "completed"
        # Every run and the session's end arrived before the command returned.
        assert opened.counts() == {"work": 1, "sessions": 1, "runs": 2}
        log = collector.text()
        assert log.count(f"stored {STUDENT}'s run TCP·IPv4") == 2
        assert f"stored {STUDENT}'s session {session['session_id'][:8]} (completed)" in log
        # The station measured against its own server of the pool.
        with contextlib.closing(sqlite3.connect(tmp_path / "ann.sqlite3")) as conn:
            (plan,) = conn.execute("SELECT plan_json FROM sessions").fetchone()
        assert json.loads(plan)["peer"]["ports"]["iperf3"] in (first, first + 1)

        # The class read from the collector, and from its database, is the class of her
        # hand-in read from a folder: the same flags, results and medians.
        live = class_json(url, "--instructor-token-file", str(tmp_path / "instructor.token"))
        stored = class_json(store_of)
        folder = tmp_path / "handins"
        folder.mkdir()
        handin, db = str(folder / "ann.linklab"), str(tmp_path / "ann.sqlite3")
        done = linklab(
            "export", session["session_id"], "--format", "handin", "--out", handin, "--db", db
        )
        assert done.returncode == 0, done.stderr
        handed_in = class_json(str(folder))
        for row in handed_in["students"]:
            row["file"] = ""
        assert live == stored == handed_in
        (row,) = live["students"]
        assert (row["student"], row["group"], row["status"], row["flags"]) == (
            STUDENT, "G2", "incomplete", ["incomplete", "this computer"],  # on the loopback
        )  # fmt: skip
        assert row["runs_done"] == 2 and row["results"][0]["mean_throughput_bps"] > 0
        # The token from the variable (no command line shows it); the class token is refused.
        text = linklab("class", url, env={INSTRUCTOR_TOKEN_VARIABLE: INSTRUCTOR})
        assert text.returncode == 0 and text.stdout.startswith("Live lab: 1 student\n")
        student = linklab("class", url, "--token-file", str(tmp_path / "class.token"))
        assert student.returncode == 2 and "needs the instructor token" in student.stderr
        wrong = linklab("class", url, env={INSTRUCTOR_TOKEN_VARIABLE: "not-the-class-token"})
        assert wrong.returncode == 2 and "class token is missing or wrong" in wrong.stderr
    finally:
        assert pool.stop() == 0
        assert collector.stop() == 0
    assert "Stopping the collector." in collector.text()


@pytest.fixture(scope="module")
def ada(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    require_engine("iperf3")
    return measure_ada(tmp_path_factory.mktemp("ada"))


def stations(tmp_path: Path, ada: Measured, count: int) -> list[Path]:
    return [write_station(tmp_path / f"station{n:02d}", as_station(ada.items, n))
            for n in range(count)]  # fmt: skip


def launch(url: str, folders: list[Path], give_up_s: float = 90) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.stations", url, TOKEN, *map(str, folders)],
        cwd=ROOT_DIR,
        env={**os.environ, "STATION_GIVE_UP_S": str(give_up_s)},
    )


def stored_once(store: ClassStore, folders: list[Path]) -> None:
    """Every run of every station stored exactly once, and nothing half-written: each run's
    session and each session's student are there."""
    ids = store.run_ids()
    assert len(ids) == len(set(ids)) == 2 * len(folders)
    counts = store.counts()
    assert counts == {"work": len(folders), "sessions": len(folders), "runs": 2 * len(folders)}
    for folder in folders:
        status = json.loads((folder / "status.json").read_text(encoding="utf-8"))
        assert status["waiting"] == status["refused"] == 0, (folder, status)


# Over 10 s: sixty station processes push at once and each run is stored once, in both stores.
def test_sixty_stations_push_at_once(
    tmp_path: Path, ada: Measured, store_of: str, opened: ClassStore
) -> None:
    port = free_port()
    collector = start_collector(tmp_path, store_of, port)
    url = f"http://127.0.0.1:{port}"
    folders = stations(tmp_path, ada, 60)
    try:
        assert launch(url, folders).wait(timeout=180) == 0
        stored_once(opened, folders)
        answer = call(url, INSTRUCTOR, "/v1/class")
        view, _ = view_from_wire(answer.data)
        assert len(view.rows) == 60
        assert {row.runs_done for row in view.rows} == {2}
        # Step 2 not measured; measured on the loopback, and flagged so.
        assert {row.flags for row in view.rows} == {("incomplete", "this computer")}
        assert view.medians[0] is not None and view.medians[0] > 0
    finally:
        assert collector.stop() == 0


def test_the_collector_killed_mid_push_loses_nothing(
    tmp_path: Path, ada: Measured, store_of: str, opened: ClassStore
) -> None:
    port = free_port()
    collector = start_collector(tmp_path, store_of, port)
    url = f"http://127.0.0.1:{port}"
    folders = stations(tmp_path, ada, 20)
    station_processes = launch(url, folders)
    try:
        deadline = time.monotonic() + 60
        while opened.counts()["runs"] < 5:
            assert time.monotonic() < deadline, collector.text()
            time.sleep(0.01)
        collector.stop(signal.SIGKILL)  # mid-push: the other stations are sending
        # Whatever was stored is whole: each run with its session, each session its student.
        partial = opened.counts()
        assert partial["runs"] < 2 * len(folders)
        assert opened.class_rows(ada.exercise.id).runs  # readable, not half-written
        time.sleep(1.0)  # the stations find it gone and queue
        collector = start_collector(tmp_path, store_of, port)
        assert station_processes.wait(timeout=180) == 0
        stored_once(opened, folders)
    finally:
        if station_processes.poll() is None:
            station_processes.kill()
        collector.stop()


def test_a_stopped_postgresql_is_said_and_the_stations_keep_queuing(
    tmp_path: Path, ada: Measured, pg_server: Any
) -> None:
    store = pg_server.new_database()
    port = free_port()
    collector = start_collector(tmp_path, store, port)
    url = f"http://127.0.0.1:{port}"
    folders = stations(tmp_path, ada, 2)
    pg_server.stop()
    try:
        assert launch(url, folders, give_up_s=4).wait(timeout=60) == 2  # both gave up waiting
        for folder in folders:
            status = json.loads((folder / "status.json").read_text(encoding="utf-8"))
            assert status["sent"] == 0 and status["waiting"] == 4
            assert "does not answer" in status["problem"] and "503" in status["problem"]
        assert "does not answer" in collector.text() and "start it" in collector.text()
        assert collector.process.poll() is None  # the collector serves on
    finally:
        pg_server.start()
    # PostgreSQL is back: the same stations send what they queued, each run once.
    assert launch(url, folders).wait(timeout=120) == 0
    reopened = open_class_store(store)
    try:
        stored_once(reopened, folders)
    finally:
        reopened.close()
        collector.stop()


def test_exercise_push_sends_what_waited(tmp_path: Path, ada: Measured) -> None:
    """A station whose collector was away: `linklab exercise push` says what waits and keeps
    it; once the collector is there, it sends it all, each run once."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    token_file = tmp_path / "my-class.token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    push = (
        "exercise", "push", str(ada.exercise_file), "--student", ADA, "--submit", url,
        "--token-file", str(token_file), "--db", str(ada.db), "--json",
    )  # fmt: skip
    away = linklab(*push, "--wait", "2")
    assert away.returncode == 1, away.stderr
    assert json.loads(away.stdout) == {"sent": 0, "waiting": 4, "refused": 0}
    store = f"sqlite:{tmp_path / 'class.sqlite3'}"
    collector = start_collector(tmp_path, store, port)
    try:
        back = linklab(*push, "--wait", "60")
        assert back.returncode == 0, back.stderr
        assert json.loads(back.stdout) == {"sent": 4, "waiting": 0, "refused": 0}
        # The token from the variable instead (no command line shows it): nothing new, nothing
        # sent twice.
        in_variable = [a for a in push if a not in ("--token-file", str(token_file))]
        again = linklab(*in_variable, "--wait", "10", env={"LINKLAB_CLASS_TOKEN": TOKEN})
        assert json.loads(again.stdout) == {"sent": 4, "waiting": 0, "refused": 0}
        opened = open_class_store(store)
        try:
            assert opened.counts() == {"work": 1, "sessions": 1, "runs": 2}
        finally:
            opened.close()
    finally:
        collector.stop()
