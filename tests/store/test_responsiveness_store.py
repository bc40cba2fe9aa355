"""Responsiveness results in the database (schema 8): kept with every step of the ramp and the
probes' round trips, read back equal, renamed and deleted; a schema 7 file migrates with its
sessions untouched, and one that is only read lists no results instead of failing."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from app.domain.errors import BadOption
from app.domain.plan import Peer, Plan
from app.store.db import SCHEMA_VERSION, Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.results import Phase
from tests.responsiveness_made import SETTINGS, three_ways
from tests.store.old_files import responsiveness_before_schema_8

TABLES = ("responsiveness_steps", "responsiveness_loads", "responsiveness")


def _schema_7_file(path: Path) -> str:
    """A file as LinkLab wrote it before schema 8: a session, no responsiveness tables."""
    with Database(path) as db:
        sid = SessionStore(db).create_session(Plan(peer=Peer("10.0.0.5"), values=(1408,)))
    conn = sqlite3.connect(path)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    return sid


def test_a_kept_result_reads_back_with_every_step(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path / "db.sqlite3")
    result = three_ways(8.0, 12.0, 20.0)
    kept = door.results().keep(result, SETTINGS)
    # Named after the peer and the time it was kept (this computer's clock).
    assert re.fullmatch(r"Responsiveness to This computer at \d\d:\d\d:\d\d", kept.name)
    back = door.results().get(kept.id[:6])
    assert back.result == result  # every figure, step and probe as measured
    assert back.settings == SETTINGS
    assert back.steps == sum(len(load.steps) for load in result.loads) == 12
    download = back.result.load(Phase.DOWNLOAD)
    assert download is not None and download.rpm == pytest.approx(60_000 / 8.0, rel=0.05)
    (listed,) = door.results().kept()
    assert listed.id == kept.id and listed.steps == 0  # listed: loads without their steps
    assert listed.result.load(Phase.BOTH) is not None


def test_rename_delete_and_a_reference_that_names_nothing(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path / "db.sqlite3")
    kept = door.results().keep(three_ways(8.0, 12.0, 20.0), SETTINGS)
    assert door.results().rename(kept.id, "  Lab B, evening ").name == "Lab B, evening"
    assert door.results().get("Lab B, evening").id == kept.id
    with pytest.raises(BadOption, match="needs a name"):
        door.results().rename(kept.id, " ")
    door.results().delete([kept.id])
    assert door.results().kept() == []
    with pytest.raises(BadOption, match="No responsiveness result 'abcd'"):
        door.results().get("abcd")
    with Database(door.db_path) as db:  # the steps and loads went with it
        assert db.query("SELECT count(*) FROM responsiveness_steps")[0][0] == 0


def test_a_schema_7_file_migrates_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _schema_7_file(path)
    door = FrontDoor(path)
    with Database(path, readonly=True) as db:
        assert db.version == 7
    assert door.results().kept() == []  # read without migrating: no tables, no results
    kept = door.results().keep(three_ways(8.0, 12.0, 20.0), SETTINGS)  # opened to write
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 8
        tables = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert set(TABLES) <= tables
    assert door.sessions().get(sid).plan.peer.host == "10.0.0.5"
    assert [k.id for k in door.results().kept()] == [kept.id]


def test_a_newer_file_is_read_but_never_written(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path / "db.sqlite3")
    kept = door.results().keep(three_ways(8.0, 12.0, 20.0), SETTINGS)
    conn = sqlite3.connect(door.db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    assert door.results().get(kept.id).result.loads  # still read
    with pytest.raises(Exception, match="newer LinkLab"):
        door.results().rename(kept.id, "new")
