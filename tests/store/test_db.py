"""The SQLite store for real: schema and migrations, WAL, damaged or newer files left
untouched, interrupted sessions, a full disk."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.results import Sample
from app.store.db import SCHEMA_VERSION, Database, StoreCorrupt, StoreError, StoreFull, StoreTooNew
from app.store.sessions import SessionStore
from app.store.trash import Trash


def _plan() -> Plan:
    return Plan(peer=Peer("127.0.0.1"), values=(128, 1408), repetitions=2, duration_s=1)


def _add(store: SessionStore, session_id: str, key: RunKey, bps: float = 1e6) -> int:
    return store.add_run(
        session_id,
        key,
        128.0,
        metrics=RunMetrics(throughput_bps=bps),
        samples=[Sample(0.0, 1.0, sent_bps=bps)],
        started_at=utc_now(),
        elapsed_s=1.0,
        engine="iperf3",
        argv=["iperf3", "-c", "127.0.0.1"],
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_new_database_schema_wal_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "linklab.sqlite3"
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION
        assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        store = SessionStore(db)
        sid = store.create_session(_plan(), {"os_name": "Test OS"})
        key = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
        run_id = _add(store, sid, key)
        assert store.samples(run_id)[0].sent_bps == 1e6
        assert store.done_keys(sid) == {key}
        session = store.get(sid[:6])
        assert session.runs_done == 1 and session.environment["os_name"] == "Test OS"
        Trash(db).remove(sid)
        # ON DELETE CASCADE: runs and samples go with the session.
        assert db.query("SELECT count(*) AS n FROM runs")[0]["n"] == 0
        assert db.query("SELECT count(*) AS n FROM samples")[0]["n"] == 0


def test_each_run_is_committed_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, 1))
        # A second connection (another reader, or a crash right now) sees the run already.
        with Database(path, readonly=True) as reader:
            assert len(SessionStore(reader).runs(sid)) == 1


def test_duplicate_run_is_refused_and_rolled_back(tmp_path: Path) -> None:
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        key = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
        _add(store, sid, key)
        with pytest.raises(StoreError):
            _add(store, sid, key)
        assert len(store.runs(sid)) == 1


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other-sqlite", "zeroed-page"])
def test_damaged_files_are_reported_and_left_untouched(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "db.sqlite3"
    if damage == "garbage":
        path.write_bytes(os.urandom(5000))
    elif damage == "other-sqlite":
        other = sqlite3.connect(path)
        other.execute("CREATE TABLE photos (id INTEGER)")
        other.commit()
        other.close()
    else:
        with Database(path) as db:
            store = SessionStore(db)
            sid = store.create_session(_plan())
            for rep in range(1, 40):
                _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, rep))
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = path.read_bytes()
        if damage == "truncated":
            path.write_bytes(data[: len(data) // 2 + 100])
        else:
            page = 4096
            path.write_bytes(data[: page * 2] + b"\x00" * page + data[page * 3 :])
    before = _digest(path)
    with pytest.raises(StoreCorrupt) as info:
        Database(path, verify=True)  # as FrontDoor.startup opens it, once per start
    assert "left it untouched" in str(info.value) and "--db" in str(info.value)
    if damage == "truncated":
        # Opened without the whole-file check, the damage is met when the data is read.
        with pytest.raises(StoreCorrupt), Database(path) as db:
            store = SessionStore(db)
            for session in store.list_sessions():
                for run in store.runs(session.id, with_raw=True):
                    store.samples(run.id)
    assert _digest(path) == before


def test_newer_database_is_read_but_never_written(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Database(path) as db:
        sid = SessionStore(db).create_session(_plan())
        db.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = _digest(path)
    with Database(path) as db:
        assert db.readonly
        store = SessionStore(db)
        assert store.get(sid).id == sid  # still readable
        with pytest.raises(StoreTooNew, match="newer LinkLab"):
            store.rename(sid, "x")
    assert _digest(path) == before


def test_interrupted_sessions_are_marked_at_next_open(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, 1))
        # Pretend the owner was a process that has ended.
        db.conn.execute("UPDATE sessions SET owner_pid = 999999999")
        live = store.create_session(_plan())  # this process: alive, must stay running
    with Database(path) as db:
        store = SessionStore(db)
        assert store.mark_interrupted() == 1
        session = store.get(sid)
        assert session.status is SessionStatus.INTERRUPTED and session.runs_done == 1
        assert store.get(live).status is SessionStatus.RUNNING


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    if sys.platform != "linux":
        pytest.skip("a small disk to fill is a tmpfs mount, which only Linux has")
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root (CI runs as root)")
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"tmpfs cannot be mounted here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_full_disk_gives_a_sentence_and_keeps_what_was_saved(tiny_disk: Path) -> None:
    path = tiny_disk / "db.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, 1))
        filler = tiny_disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\x00" * 4096)
        except OSError:
            pass  # the disk is full now
        finally:
            os.close(fd)
        big = "x" * 200_000
        with pytest.raises(StoreFull, match="is full"):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, 0, 2),
                128.0,
                metrics=RunMetrics(throughput_bps=1.0),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
                raw_output=big,
            )
        filler.unlink()
        assert len(store.runs(sid)) == 1
    with Database(path) as db:
        assert db.integrity_ok()
        assert len(SessionStore(db).runs(sid)) == 1


def test_a_peers_ports_move_into_their_own_table(tmp_path: Path) -> None:
    """Schema 6: the port columns of a peer become rows of peer_ports, by engine."""
    from app.domain.plan import Peer, Plan
    from app.store.sessions import SessionStore
    from tests.store.old_files import (
        peers_before_schema_6,
        responsiveness_before_schema_8,
        runs_before_schema_7,
    )

    path = tmp_path / "lab.sqlite3"
    with Database(path) as db:
        SessionStore(db).create_session(Plan(peer=Peer("10.0.0.7", {"iperf3": 5301})))
    conn = sqlite3.connect(path)
    peers_before_schema_6(conn)
    runs_before_schema_7(conn)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION
        rows = db.query("SELECT engine, port FROM peer_ports ORDER BY engine")
        assert [(r["engine"], r["port"]) for r in rows] == [("iperf3", 5301), ("netperf", 12865)]
        columns = {r["name"] for r in db.query("PRAGMA table_info(peers)")}
        assert not {"iperf3_port", "netperf_port"} & columns
