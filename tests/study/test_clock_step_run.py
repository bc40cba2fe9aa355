"""A real study across a step of the computer's clock: iperf3 runs against a real server
while the computer's clock (the store's wall clock, given as a parameter: Linux's time
namespaces shift only the steady clocks, never the time of day) is set back two hours in
the middle of the second run. Every run ends after it began, the runs keep their order,
the second run and the session carry the mark, and `linklab sessions show` and the HTML
report say it."""

from __future__ import annotations

import datetime as dt
import itertools
import time
from pathlib import Path

from app.domain.clock import Clock
from app.domain.plan import Peer, Plan
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.events import SampleArrived, StudyEvent
from app.study.sweep.runner import StudyRunner
from tests.conftest import linklab

TWO_HOURS = 7200.0


def seconds(stamp: str | None) -> float:
    assert stamp is not None
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_a_study_across_a_clock_set_back_keeps_its_times_and_says_so(
    tmp_path: Path, iperf3_server_port: tuple[int, object]
) -> None:
    port = iperf3_server_port[0]
    db = tmp_path / "lab.sqlite3"
    offset = [0.0]
    clock = Clock(wall=lambda: time.time() + offset[0])

    def observe(event: StudyEvent) -> None:
        # Half way into the second run's first interval, someone sets the clock back.
        if isinstance(event, SampleArrived) and event.key.repetition == 2:
            offset[0] = -TWO_HOURS

    plan = Plan(
        peer=Peer("127.0.0.1", {"iperf3": port}),
        values=(1408,),
        repetitions=3,
        duration_s=2,
        name="across a clock step",
    )
    with Database(db) as database:
        outcome = drive(StudyRunner(SessionStore(database, clock), plan).events(), observe)
    assert outcome.status is SessionStatus.COMPLETED
    with Database(db, readonly=True) as database:
        store = SessionStore(database)
        (session,) = store.list_sessions()
        runs = store.runs(session.id)
    assert [run.key.repetition for run in runs] == [1, 2, 3]
    for run in runs:  # never ended before it began, and as long as the engine ran
        assert run.elapsed_s is not None
        assert seconds(run.ended_at) - seconds(run.started_at) >= run.elapsed_s - 0.01
    for earlier, later in itertools.pairwise(runs):
        assert seconds(later.started_at) >= seconds(earlier.ended_at)
    assert seconds(session.ended_at) >= seconds(runs[-1].ended_at)
    first, second, third = runs
    assert first.clock_step_s is None
    for marked in (second.clock_step_s, third.clock_step_s, session.clock_step_s):
        assert marked is not None and abs(marked + TWO_HOURS) < 1
    shown = linklab("sessions", "show", session.id, "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert (
        "  clock       The computer's clock was set back by 2 h 0 min while this session ran"
        in shown.stdout
    )
    report = tmp_path / "report.html"
    done = linklab("export", session.id, "--format", "html", "--out", str(report), "--db", str(db))
    assert done.returncode == 0, done.stderr
    html = report.read_text(encoding="utf-8")
    assert "The computer&#x27;s clock was set back by 2 h 0 min" in html or (
        "The computer's clock was set back by 2 h 0 min" in html
    )
