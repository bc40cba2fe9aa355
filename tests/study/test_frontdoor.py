"""The front door: a study started from the window and one started from the command line store
the same fields; one rule for resuming and deleting; one peer check, IPv6 included."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import SessionStatus, utc_now
from app.domain.stream import drive
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.process.servers import LocalServer, ServerOptions
from app.engine.process.tools import Tool
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.study.stored_sessions import DeleteRefused
from app.study.studies import PeerUnreachable, ResumeRefused, resume_problem
from app.study.sweep.events import StudyEvent, StudyPrepared
from tests.conftest import free_port, linklab

#: Columns that differ between any two sessions, whoever started them (the computer's clock
#: may be set while one runs and not the other).
PER_SESSION = {
    *("id", "created_at", "started_at", "ended_at", "owner_pid", "owner_started"),
    "clock_step_s",
}


def stored_row(db_path: Path, name: str) -> dict[str, object]:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM sessions WHERE name = ?", (name,)).fetchone()
        return {k: row[k] for k in row.keys() if k not in PER_SESSION}
    finally:
        conn.close()


def normalised(row: dict[str, object]) -> dict[str, object]:
    """The ports of this computer's own servers are whatever was free at the time."""
    plan = json.loads(str(row["plan_json"]))
    plan["peer"]["ports"] = {}
    return {**row, "plan_json": plan, "environment_json": json.loads(str(row["environment_json"]))}


def test_window_and_command_line_store_the_same_session(tmp_path: Path, iperf3_tool: Tool) -> None:
    """The window's worker calls exactly this (prepare, then start); the CLI is a process."""
    db = tmp_path / "lab.sqlite3"
    plan = Plan(peer=Peer.this_computer(), values=(1408,), repetitions=1, duration_s=1, name="a")
    door = FrontDoor(db)
    studies = door.studies()
    try:
        outcome = studies.start(studies.prepare(plan)).run()
    finally:
        door.loopback.stop()
    assert outcome.status is SessionStatus.COMPLETED
    env = {"LINKLAB_DB": str(db)}
    argv = ["run", "--peer", "this-computer", "--sizes", "1408"]
    argv += ["--runs", "1", "--duration", "1", "--name", "b"]
    done = linklab(*argv, env=env)
    assert done.returncode == 0, done.stderr
    window, cli = stored_row(db, "a"), stored_row(db, "b")
    for row in (window, cli):
        row["name"] = ""
        row["plan_json"] = str(row["plan_json"]).replace('"name": "a"', '"name": "b"')
    assert normalised(window) == normalised(cli)
    environment = normalised(cli)["environment_json"]
    assert isinstance(environment, dict)
    assert environment["os_name"] and environment["engine_versions"]["iperf3"]
    shown = linklab("sessions", "show", "b", "--json", env=env)
    assert json.loads(shown.stdout)["environment"]["interface"] == environment["interface"]


def test_ipv6_that_does_not_answer_is_left_out_up_front(tmp_path: Path, iperf3_tool: Tool) -> None:
    """A server on IPv4 only, given both addresses: IPv6 is said to be
    skipped before the first run, and the IPv4 series of every protocol run."""
    port = free_port()
    server: LocalServer = iperf3_server(iperf3_tool, ServerOptions(port, "127.0.0.1"))
    server.start()
    events: list[StudyEvent] = []
    try:
        door = FrontDoor(tmp_path / "lab.sqlite3", take_snapshot=lambda _h, _e: {})
        plan = Plan(
            peer=Peer("127.0.0.1", {"iperf3": port}, host6="::1"),
            protocols=(Protocol.TCP, Protocol.UDP),
            ip_versions=(IpVersion.V4, IpVersion.V6),
            values=(1408,),
            repetitions=1,
            duration_s=1,
        )
        prepared = door.studies().prepare(plan)
        outcome = drive(door.studies().start(prepared).events(), events.append)
    finally:
        server.stop()
    (note,) = prepared.notes
    assert "refuses IPv6 connections" in note and "the IPv4 series run" in note
    assert isinstance(events[0], StudyPrepared) and events[0].notes == (note,)
    assert outcome.status is SessionStatus.COMPLETED
    with Database(tmp_path / "lab.sqlite3", readonly=True) as db:
        session = SessionStore(db).get(outcome.session_id)
        runs = SessionStore(db).runs(outcome.session_id)
    assert {(r.key.protocol, r.key.ip_version) for r in runs if r.ok} == {
        (Protocol.TCP, IpVersion.V4),
        (Protocol.UDP, IpVersion.V4),
    }
    assert note in session.status_reason


@pytest.mark.usefixtures("iperf3_tool")
def test_nothing_answers_nothing_starts(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path / "lab.sqlite3", take_snapshot=lambda _h, _e: {})
    plan = Plan(peer=Peer("127.0.0.1", {"iperf3": free_port()}), values=(1408,))
    with pytest.raises(PeerUnreachable, match="No iperf3 server answers"):
        door.studies().prepare(plan)
    assert not (tmp_path / "lab.sqlite3").exists()


def test_one_rule_for_resume_and_delete(tmp_path: Path) -> None:
    db_path = tmp_path / "lab.sqlite3"
    with Database(db_path) as db:
        store = SessionStore(db)
        done = store.create_session(Plan(peer=Peer("a"), name="done"))
        store.finish(done, SessionStatus.COMPLETED)
        stopped = store.create_session(Plan(peer=Peer("a"), name="stopped"))
        store.finish(stopped, SessionStatus.STOPPED)
        # Completed, one of its runs failed: resumed to measure that run again.
        short = store.create_session(Plan(peer=Peer("a"), name="short"))
        store.add_run(
            short,
            RunKey(Protocol.TCP, IpVersion.V4, 0, 1),
            1408.0,
            metrics=None,
            error="The link went down.",
            started_at=utc_now(),
            elapsed_s=None,
            engine="iperf3",
        )
        store.finish(short, SessionStatus.COMPLETED)
        running = store.create_session(Plan(peer=Peer("a"), name="running"))  # this process
    door = FrontDoor(db_path)
    with pytest.raises(ResumeRefused, match="completed and none of its runs failed: nothing"):
        door.studies().resume("done")
    with pytest.raises(ResumeRefused, match="still running"):
        door.studies().resume("running")
    assert resume_problem(door.sessions().get("stopped")) == ""
    assert door.sessions().get("short").status_text == "completed with failures"
    assert resume_problem(door.sessions().get("short")) == ""
    with pytest.raises(DeleteRefused, match="still running"):
        door.sessions().delete(["stopped", "running"])
    assert len(door.sessions().readable()) == 4  # all or nothing
    door.sessions().delete(["stopped", "short"])
    assert [s.name for s in door.sessions().readable()] == ["running", "done"]
    assert door.sessions().tag("done", "open, room=B12").plan.conditions.tags == (
        ("open", ""),
        ("room", "B12"),
    )
    assert running
