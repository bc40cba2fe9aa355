"""Nothing measured is lost: samples reach the database while a run goes on, so a LinkLab
killed mid-run (SIGKILL, a real process) loses at most the last second; the interrupted run
is kept as partial, shown and exported, and never counted as a repetition; resume measures
that repetition again. A stopped run with samples stays partial too. The fake driver stands
in for the engine: this is about LinkLab's own decisions."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.domain.plan import Peer, Plan
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.engine.errors import ServerBusy
from app.report.csv_export import write_samples_csv
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.study.sweep import sample_writer
from app.study.sweep.events import SampleArrived, StudyEvent
from app.study.sweep.outcomes import RetryPolicy
from app.study.sweep.runner import StudyRunner
from tests.conftest import ROOT_DIR

PLAN = Plan(peer=Peer("lab-peer"), values=(1408,), repetitions=2, duration_s=60, interval_s=0.1)

#: LinkLab measuring a 60 s run at 0.1 s intervals (the fake engine gives a sample every
#: 20 ms of real time); it says how many samples it has seen, then waits to be killed.
CHILD = textwrap.dedent(
    """
    import sys
    from app.domain.plan import Peer, Plan
    from app.engine.drivers.fake import FakeDriver
    from app.store.db import Database
    from app.store.sessions import SessionStore
    from app.study.sweep.events import SampleArrived
    from app.domain.stream import drive
    from app.study.sweep.runner import StudyRunner

    seen = 0
    def observe(event):
        global seen
        if isinstance(event, SampleArrived):
            seen += 1
            if seen % 10 == 0:
                print(seen, flush=True)

    plan = Plan(peer=Peer("lab-peer"), values=(1408,), repetitions=2, duration_s=60,
                interval_s=0.1)
    driver = FakeDriver(interval_s=0.02, sample_every_s=0.1)
    with Database(sys.argv[1]) as db:
        drive(StudyRunner(SessionStore(db), plan, drivers={plan.engine: driver}).events(), observe)
    """
)


def test_a_run_killed_mid_way_keeps_its_samples_as_a_partial_run(tmp_path: Path) -> None:
    db = tmp_path / "linklab.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        cwd=ROOT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    seen = 0
    for line in child.stdout:
        seen = int(line)
        if seen >= 150:  # about 3 s of real time into the run
            break
    child.kill()  # SIGKILL; on Windows TerminateProcess, which no program can catch either
    child.communicate(timeout=10)
    assert seen >= 150, "the child never got that far"

    door = FrontDoor(db)
    assert door.startup() == 1  # the session left running is marked interrupted
    (session,) = door.sessions().readable()
    assert session.status is SessionStatus.INTERRUPTED
    assert (session.runs_done, session.runs_partial) == (0, 1)
    (run,) = door.sessions().runs(session.id, partial=True)
    assert run.partial and door.sessions().runs(session.id) == []
    with Database(db, readonly=True) as reader:
        stored = SessionStore(reader).samples(run.id)
    # A batch about once a second, 50 samples a second: at most the last second is lost.
    assert seen - 50 - 10 <= len(stored) <= seen
    assert [s.start_s for s in stored[:3]] == [0.0, 0.1, 0.2]

    # Resume measures the repetition again (fast now); the partial run stays as it was.
    outcome = StudyRunner(
        SessionStore(Database(db)),
        PLAN,
        resume_session=session.id,
        drivers={PLAN.engine: FakeDriver(sample_every_s=0.1)},
    ).run()
    assert outcome.status is SessionStatus.COMPLETED and outcome.runs_done == 2
    runs = door.sessions().runs(session.id, partial=True)
    assert [r.status for r in runs] == ["partial", "ok", "ok"]
    assert door.sessions().get(session.id).runs_done == 2

    with Database(db, readonly=True) as reader:
        out = io.StringIO()
        rows = write_samples_csv(
            out, door.sessions().get(session.id), runs, SessionStore(reader).samples
        )
    text = out.getvalue()
    assert text.startswith("\ufeff")  # UTF-8 with BOM, as every CSV export
    table = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows == len(table) == len(stored) + 2 * 600
    assert {r["run_status"] for r in table} == {"partial", "ok"}
    assert sum(r["run_status"] == "partial" for r in table) == len(stored)


def test_samples_are_in_the_database_while_the_run_goes_on(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sample_writer, "FLUSH_EVERY_S", 0.0)  # every sample its own batch
    reader = Database(store.db.path, readonly=True)
    counts: list[tuple[int, int]] = []
    runner: StudyRunner

    def observe(event: StudyEvent) -> None:
        if isinstance(event, SampleArrived) and event.sample.start_s in (0.0, 2.0, 4.0):
            stored = reader.query("SELECT count(*) AS n FROM samples")[0]["n"]
            counts.append((int(event.sample.start_s) + 1, stored))

    the_plan = Plan(peer=Peer("lab-peer"), values=(1408,), repetitions=1, duration_s=5)
    runner = StudyRunner(store, the_plan, drivers={the_plan.engine: FakeDriver()})
    drive(runner.events(), observe)
    reader.close()
    assert counts == [(1, 1), (3, 3), (5, 5)]


def test_a_stopped_run_with_samples_stays_partial_and_is_no_repetition(
    store: SessionStore,
) -> None:
    runner: StudyRunner | None = None

    def observe(event: StudyEvent) -> None:
        if isinstance(event, SampleArrived) and event.sample.start_s == 2.0:
            assert runner is not None
            runner.stop()

    the_plan = Plan(peer=Peer("lab-peer"), values=(1408,), repetitions=2, duration_s=10)
    runner = StudyRunner(store, the_plan, drivers={the_plan.engine: FakeDriver()})
    outcome = drive(runner.events(), observe)
    assert outcome.status is SessionStatus.STOPPED and outcome.runs_done == 0
    (run,) = store.runs(outcome.session_id, partial=True)
    assert run.partial and run.error == "Stopped by the user."
    assert len(store.samples(run.id)) == 3  # 0-1, 1-2 and 2-3 s
    assert store.done_keys(outcome.session_id) == set()


def test_a_retried_attempt_that_measured_nothing_leaves_no_row(store: SessionStore) -> None:
    def busy_once(_key: object, attempt: int) -> ServerBusy | None:
        return ServerBusy("lab-peer", 5201, "iperf3 server", "iperf3 -s") if attempt == 1 else None

    the_plan = Plan(peer=Peer("lab-peer"), values=(1408,), repetitions=1, duration_s=2)
    outcome = StudyRunner(
        store,
        the_plan,
        drivers={the_plan.engine: FakeDriver(fail=busy_once)},
        retry=RetryPolicy(first_wait_s=0.0, max_wait_s=0.0),
    ).run()
    (run,) = store.runs(outcome.session_id, partial=True)
    assert run.ok and run.attempts == 2
