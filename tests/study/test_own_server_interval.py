"""This computer's own iperf3 server (started for a study by the front door, as the window and
the command line do) reports at the study's interval and has `linklab serve`'s idle limit, so a
0.1-s study stores 0.1-s samples."""

from __future__ import annotations

from pathlib import Path

import psutil

from app.domain.plan import Peer, Plan
from app.domain.records import SessionStatus
from app.engine.process.servers import EXPOSED_IDLE_TIMEOUT_S
from app.engine.process.tools import Tool
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor


def _option(argv: list[str], name: str) -> str:
    assert name in argv, argv
    return argv[argv.index(name) + 1]


def test_a_tenth_of_a_second_study_stores_ten_samples_a_second(
    tmp_path: Path, iperf3_tool: Tool
) -> None:
    db = tmp_path / "lab.sqlite3"
    plan = Plan(
        peer=Peer.this_computer(),
        values=(1408,),
        repetitions=1,
        duration_s=3,
        interval_s=0.1,
        name="fine",
    )
    door = FrontDoor(db)
    try:
        prepared = door.studies().prepare(plan)
        (server,) = door.loopback.servers
        assert server.pid is not None
        argv = psutil.Process(server.pid).cmdline()
        assert float(_option(argv, "-i")) == 0.1
        assert _option(argv, "--idle-timeout") == str(EXPOSED_IDLE_TIMEOUT_S)
        outcome = door.studies().start(prepared).run()
    finally:
        door.loopback.stop()
    assert outcome.status is SessionStatus.COMPLETED
    with Database(db) as database:
        store = SessionStore(database)
        (session,) = store.list_sessions()
        (run,) = store.runs(session.id)
        samples = store.samples(run.id)
    # About ten a second over three seconds (the receiver's last short interval folded in).
    assert 27 <= len(samples) <= 32, len(samples)
    widths = [s.end_s - s.start_s for s in samples[:-1]]
    assert max(widths) < 0.2, widths
    assert all(s.received_bps is not None for s in samples)  # the server's own figures
