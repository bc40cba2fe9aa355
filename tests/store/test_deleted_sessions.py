"""Deleting a session can be undone for a while: it is hidden from every list and look-up at
once, restored with every run, and gone for good once its time has passed; a schema 8 file
gains the column and keeps its sessions."""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
from pathlib import Path

import pytest

from app.domain.errors import BadOption
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, iso, utc_now
from app.store.db import SCHEMA_VERSION, Database
from app.store.sessions import SessionStore
from app.store.trash import Trash
from app.study.frontdoor import FrontDoor
from tests.conftest import linklab as run_linklab
from tests.store.old_files import sessions_before_schema_9


def _session(path: Path, name: str) -> str:
    plan = Plan(peer=Peer("127.0.0.1"), values=(128, 1408), repetitions=1, duration_s=1, name=name)
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for index, value in enumerate(plan.values):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, index, 1),
                float(value),
                metrics=RunMetrics(throughput_bps=1e8),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
        store.finish(sid, SessionStatus.COMPLETED)
    return sid


def test_a_deleted_session_is_hidden_then_restored_with_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    keep, doomed = _session(path, "keep"), _session(path, "doomed")
    door = FrontDoor(path)
    (deleted,) = door.sessions().delete([doomed])
    assert deleted.id == doomed
    assert [s.id for s in door.sessions().readable()] == [keep]
    for ref in (doomed, doomed[:8], "doomed"):
        with pytest.raises(BadOption, match="No session"):
            door.sessions().get(ref)
    assert door.sessions().restore([doomed]) == 1
    assert {s.id for s in door.sessions().readable()} == {keep, doomed}
    assert len(door.sessions().runs(doomed)) == 2
    assert door.sessions().restore([doomed]) == 0  # not deleted: nothing to bring back


def test_a_session_deleted_long_ago_is_gone_for_good(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    old, recent = _session(path, "old"), _session(path, "recent")
    with Database(path) as db:
        Trash(db).put([old], "2020-01-01T00:00:00.000Z")
    door = FrontDoor(path)
    door.sessions().delete([recent])  # a delete purges those deleted longer ago than the undo time
    assert door.sessions().restore([old]) == 0
    assert door.sessions().restore([recent]) == 1
    with Database(path, readonly=True) as db:
        assert db.query("SELECT count(*) AS n FROM runs WHERE session_id = ?", (old,))[0]["n"] == 0


def test_start_up_purges_what_can_no_longer_be_undone(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    old = _session(path, "old")
    with Database(path) as db:
        Trash(db).put([old], "2020-01-01T00:00:00.000Z")
    FrontDoor(path).startup()
    with Database(path, readonly=True) as db:
        assert db.query("SELECT count(*) AS n FROM sessions")[0]["n"] == 0


def test_a_schema_8_file_gains_deleted_at_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _session(path, "from before")
    conn = sqlite3.connect(path)
    sessions_before_schema_9(conn)
    conn.execute("PRAGMA user_version = 8")
    conn.commit()
    conn.close()
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 10
        assert [s.id for s in SessionStore(db).list_sessions()] == [sid]


def test_an_exchange_file_brings_back_a_session_deleted_here(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    sid = _session(path, "exported")
    door = FrontDoor(path)
    door.sessions().export([sid], tmp_path / "one.linklab")
    door.sessions().delete([sid])
    result = door.sessions().import_file(tmp_path / "one.linklab")
    assert [s.id for s in result.imported] == [sid] and not result.skipped
    assert [s.id for s in door.sessions().readable()] == [sid]


def test_the_command_line_deletes_lists_and_restores(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    sid = _session(path, "measured on Tuesday")

    def linklab(*args: str) -> subprocess.CompletedProcess[str]:
        return run_linklab(*args, "--db", str(path))

    deleted = linklab("sessions", "delete", sid[:8], "--yes")
    assert deleted.returncode == 0
    assert f"linklab sessions restore {sid[:8]}" in deleted.stderr
    assert "measured on Tuesday" not in linklab("sessions").stdout
    assert linklab("sessions", "show", sid[:8]).returncode != 0
    restored = linklab("sessions", "restore", sid[:8])
    assert restored.returncode == 0 and "Restored session" in restored.stdout
    assert "measured on Tuesday" in linklab("sessions").stdout
    again = linklab("sessions", "restore", sid[:8])
    assert again.returncode != 0 and "not deleted" in again.stderr


def test_recently_deleted_lists_only_what_can_still_come_back(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    keep, old, first, second = (_session(path, n) for n in ("keep", "old", "first", "second"))
    with Database(path) as db:
        Trash(db).put([old], "2020-01-01T00:00:00.000Z")  # past the day: cannot come back
    door = FrontDoor(path)
    door.sessions().delete([first, second])
    now = dt.datetime.now(dt.UTC)
    with Database(path) as db:  # an hour apart, so that their order is certain
        Trash(db).put([first], iso(now - dt.timedelta(hours=2)))
        Trash(db).put([second], iso(now - dt.timedelta(hours=1)))
    listed = door.sessions().recently_deleted()
    assert [s.name for s, _ in listed] == ["second", "first"]  # newest first
    assert all(when and s.runs_done == 2 for s, when in listed)
    assert keep not in {s.id for s, _ in listed}
    door.sessions().restore([first])
    assert [s.name for s, _ in door.sessions().recently_deleted()] == ["second"]
