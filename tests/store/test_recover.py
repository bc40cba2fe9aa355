"""A really damaged database file (a page of runs zeroed on disk): the start-up check opens it
read-only (reads work, writes say why not), `linklab doctor --db` says what is wrong, and
--recover-to copies every session and every run that can still be read into a new file."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import Database, StoreDamaged
from app.store.recover import check, recover
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor, ReadOnly
from tests.conftest import linklab

PAGE = 4096
RUNS = {"first": 2, "middle": 40, "last": 2}


def _damaged(path: Path) -> None:
    """Three sessions; the middle one's runs (with raw output of about a page each) fill most
    of the file, and one page among them is zeroed."""
    plan = Plan(peer=Peer("127.0.0.1"), values=(1408,), repetitions=50, duration_s=1)
    with Database(path) as db:
        store = SessionStore(db)
        for name, count in RUNS.items():
            sid = store.create_session(plan)
            store.rename(sid, name)
            for rep in range(1, count + 1):
                store.add_run(
                    sid,
                    RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                    1408.0,
                    metrics=RunMetrics(throughput_bps=1e6 * rep),
                    samples=[Sample(0.0, 1.0, sent_bps=1e6)],
                    started_at=utc_now(),
                    elapsed_s=1.0,
                    engine="iperf3",
                    raw_output=os.urandom(1500).hex(),
                )
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    pages = len(data) // PAGE
    target = pages * 6 // 10
    data[target * PAGE : (target + 1) * PAGE] = bytes(PAGE)
    path.write_bytes(bytes(data))


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    path = tmp_path / "linklab.sqlite3"
    _damaged(path)
    return path


def test_a_damaged_file_is_only_read_for_the_rest_of_the_session(damaged: Path) -> None:
    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    with pytest.raises(StoreDamaged):
        Database(damaged, verify=True)
    door = FrontDoor(damaged)
    assert door.startup() == 0
    assert door.unwritable and "read" in door.unwritable and "doctor --db" in door.unwritable
    assert {s.name for s in door.sessions().readable()} == set(RUNS)  # reading still works
    with pytest.raises(ReadOnly) as refused:
        door.sessions().rename(door.sessions().readable()[0].id, "renamed")
    assert "--recover-to" in refused.value.sentence
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before


def test_recover_copies_what_can_be_read_into_a_new_file(damaged: Path, tmp_path: Path) -> None:
    found = check(damaged)
    assert not found.ok and found.problems
    assert "failed SQLite's integrity check" in found.words(damaged)
    target = tmp_path / "recovered.sqlite3"
    saved = recover(damaged, target)
    assert saved.sessions_saved == 3 and saved.sessions_lost == 0
    assert 0 < saved.runs_lost < RUNS["middle"]
    assert saved.runs_saved + saved.runs_lost == sum(RUNS.values())
    assert check(target).ok
    with Database(target, verify=True) as db:
        store = SessionStore(db)
        runs = {s.name: store.runs(s.id) for s in store.list_sessions()}
        assert len(runs["first"]) == 2 and len(runs["last"]) == 2
        assert all(len(store.samples(r.id)) == 1 for r in runs["last"])
    with pytest.raises(Exception, match="already exists"):
        recover(damaged, target)


def test_doctor_db_says_what_is_wrong_and_recovers(damaged: Path, tmp_path: Path) -> None:
    def doctor(*args: str) -> subprocess.CompletedProcess[str]:
        return linklab("doctor", "--db", str(damaged), *args)

    said = doctor()
    assert said.returncode == 1
    assert "failed SQLite's integrity check" in said.stdout
    assert "--recover-to NEW.sqlite3" in said.stdout
    target = tmp_path / "new.sqlite3"
    copied = doctor("--recover-to", str(target))
    assert "Copied 3 sessions" in copied.stdout and "lost: 0 sessions and" in copied.stdout
    assert copied.returncode == 1  # some runs were lost
    assert target.is_file()
