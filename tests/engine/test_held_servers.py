"""This computer's servers and a client that holds one (CVE-2023-7250: iperf3 3.12 waits for
ever for a client that sends five bytes): the stall rule from looks at the server, the server
started again with the reason kept, and a study against this computer that meets the held
server saying why its run failed, trying it again and completing. Real iperf3 servers, a real
socket that holds, a real study through the front door."""

from __future__ import annotations

import time
from pathlib import Path

import psutil

from app.domain.plan import Engine, Peer, Plan
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.engine.drivers.iperf3.server import held_forever
from app.engine.drivers.registry import DRIVERS
from app.engine.process.servers import EXPOSED_STALL_TIMEOUT_S
from app.engine.process.stall import Look, Progress, look
from app.engine.process.tools import Tool
from app.engine.serving.loopback import LoopbackServers
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.study.sweep.events import RunFailed, ServerNote, StudyEvent
from tests.conftest import free_port
from tests.held_client import held_by, holding

#: How long this computer's held server may take to be started again: its stall time, a look
#: a second and a new server's start, with room for a loaded machine.
RESTARTED_WITHIN_S = EXPOSED_STALL_TIMEOUT_S + 20

HELD = Look(("127.0.0.1 port 40000",), 1000)


def test_a_held_server_without_progress_is_stalled_after_the_rule_time() -> None:
    progress = Progress(10)
    assert progress.seen(Look((), 900), 0) is None  # nobody holds it
    assert progress.seen(HELD, 1) is None  # held from now on (its bytes moved since)
    assert progress.seen(HELD, 10.9) is None
    assert progress.seen(HELD, 11) == 10


def test_bytes_moving_or_a_printed_line_is_progress() -> None:
    progress = Progress(10)
    progress.seen(HELD, 0)
    assert progress.seen(Look(HELD.clients, 1001), 9) is None  # a byte read or written
    assert progress.seen(Look(HELD.clients, 1001), 18) is None
    progress.printed(18.5)  # an interval report: a test under way that carries nothing
    assert progress.seen(Look(HELD.clients, 1001), 28) is None
    assert progress.seen(Look(HELD.clients, 1001), 28.5) == 10


def test_a_client_that_leaves_ends_the_hold() -> None:
    progress = Progress(10)
    progress.seen(HELD, 0)
    assert progress.seen(Look((), 1000), 5) is None
    assert progress.seen(HELD, 12) is None  # a new hold starts its own time
    assert progress.seen(HELD, 22) == 10


def test_what_a_look_at_a_real_held_server_sees(iperf3_tool: Tool) -> None:
    servers = LoopbackServers()
    try:
        port = servers.ensure(Engine.IPERF3, free_port())
        (server,) = servers.servers
        assert server.pid is not None
        idle = look(server.pid, port)
        assert idle is not None and idle.clients == () and idle.io_bytes is not None
        with holding(port) as client:
            deadline = time.monotonic() + 10
            while (seen := look(server.pid, port)) is not None and not seen.clients:
                assert time.monotonic() < deadline, "the server never took the connection"
                time.sleep(0.05)
            assert seen is not None and seen.clients == (held_by(client),)
            time.sleep(1.5)  # iperf3 3.12 waits in a read that never returns
            again = look(server.pid, port)
            assert again == seen if held_forever(iperf3_tool) else again is not None
    finally:
        servers.stop()


# Over 10 s: this computer's server is held for its whole stall time.
def test_this_computers_held_server_is_started_again_and_serves(iperf3_tool: Tool) -> None:
    servers = LoopbackServers()
    try:
        port = servers.ensure(Engine.IPERF3, free_port())
        (server,) = servers.servers
        first = server.pid
        with holding(port) as client:
            deadline = time.monotonic() + RESTARTED_WITHIN_S
            while not any("was held for" in line for line in server.log):  # said once it listens
                assert time.monotonic() < deadline, server.log
                time.sleep(0.2)
            (restart,) = servers.restarts()
            assert f"by a client ({held_by(client)}) that made no progress" in restart.sentence
            assert restart.sentence in server.log
            assert server.running and server.pid != first
            # The same port, reused by the study that comes next.
            assert servers.ensure(Engine.IPERF3, port) == port
            assert server.pid is not None and psutil.Process(server.pid).is_running()
    finally:
        servers.stop()
    assert not server.running


# Over 10 s: the study's first run waits behind the held server until it is started again.
def test_a_study_against_this_computer_says_why_a_run_failed_and_completes(
    tmp_path: Path, iperf3_tool: Tool
) -> None:
    db = tmp_path / "lab.sqlite3"
    plan = Plan(peer=Peer.this_computer(), values=(1408,), repetitions=2, duration_s=1)
    door = FrontDoor(db, take_snapshot=lambda _host, _engines: {})
    events: list[StudyEvent] = []
    try:
        prepared = door.studies().prepare(plan)
        port = prepared.plan.peer.port(DRIVERS[Engine.IPERF3].port_key, 0)
        with holding(port) as client:
            holder = held_by(client)
            outcome = drive(door.studies().start(prepared).events(), events.append)
    finally:
        door.loopback.stop()
    assert outcome.status is SessionStatus.COMPLETED, outcome
    notes = [e for e in events if isinstance(e, ServerNote)]
    (note,) = notes
    assert note.sentence.startswith("The iperf3 server on port ")
    assert f"by a client ({holder}) that made no progress" in note.sentence
    failed = [e for e in events if isinstance(e, RunFailed)]
    assert failed and all(e.will_retry for e in failed)  # said before the run was tried again
    assert events.index(note) < events.index(failed[0])
    with Database(db) as database:
        store = SessionStore(database)
        (session,) = store.list_sessions()
        runs = store.runs(session.id)
    assert len(runs) == 2 and all(run.ok for run in runs)
