"""A data folder that refuses writes (a read-only bind mount, which refuses root too): the
database in it is opened read-only, so listing, showing, comparing, exporting and the doctor
work, and whatever would store something (a run, an import, a rename) says the folder is
read-only and what to do, naming it; nothing in the folder changes."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.study.files.exchange import read_exchange
from tests.conftest import linklab
from tests.readonly import read_only, unavailable
from tests.store.test_damaged_rows import _make

pytestmark = pytest.mark.skipif(bool(unavailable()), reason=unavailable() or "-")


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    source = tmp_path / "data"
    source.mkdir()
    ids = _make(source / "linklab.sqlite3")
    assert sorted(p.name for p in source.iterdir()) == ["linklab.sqlite3"]  # WAL closed
    with read_only(source, tmp_path / "mounted") as folder:
        before = _digest(folder)
        yield folder, ids
        assert _digest(folder) == before  # nothing written, nothing added


def _says_read_only(text: str, folder: Path) -> None:
    assert f"The data folder {folder} is read-only" in text, text
    assert "cannot save new ones there" in text and "Use another file" in text, text
    assert "unable to open database file" not in text


def test_a_read_only_folder_is_read_and_says_why_nothing_is_saved(
    mounted: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, ids = mounted
    db = str(folder / "linklab.sqlite3")
    listed = linklab("sessions", "--db", db)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == "3 sessions."
    _says_read_only(listed.stderr, folder)
    data = json.loads(linklab("sessions", "--db", db, "--json").stdout)
    assert {item["session_id"] for item in data} == set(ids.values())

    first, last = ids["first"][:8], ids["last"][:8]
    shown = linklab("sessions", "show", first, "--db", db)
    assert shown.returncode == 0 and "name        first" in shown.stdout
    compared = linklab("compare", first, last, "--db", db)
    assert compared.returncode == 0 and "Baseline session: first" in compared.stdout, compared
    out = tmp_path / "out.linklab"
    exported = linklab("export", first, last, "--format", "json", "--out", str(out), "--db", db)
    assert exported.returncode == 0, exported.stderr
    assert {s.record.name for s in read_exchange(out).sessions} == {"first", "last"}
    samples = linklab("export", first, "--format", "samples", "--out", "-", "--db", db)
    assert samples.returncode == 0 and len(samples.stdout.splitlines()) == 4
    doctor = linklab("doctor", "--db", db)
    assert doctor.returncode == 0 and "nothing is damaged" in doctor.stdout, doctor.stdout

    for refused in (
        linklab("import", str(out), "--db", db),
        linklab("sessions", "rename", first, "renamed", "--db", db),
        linklab("sessions", "delete", first, "--yes", "--db", db),
        linklab("run", "--peer", "127.0.0.1", "--duration", "1", "--db", db),
    ):
        assert refused.returncode != 0, refused.args
        _says_read_only(refused.stderr, folder)


def test_a_new_database_in_a_read_only_folder_says_so(tmp_path: Path) -> None:
    source = tmp_path / "empty"
    source.mkdir()
    with read_only(source, tmp_path / "mounted") as folder:
        db = str(folder / "linklab.sqlite3")
        listed = linklab("sessions", "--db", db)
        assert listed.returncode == 0 and "No sessions yet" in listed.stdout
        refused = linklab("run", "--peer", "127.0.0.1", "--duration", "1", "--db", db)
        assert refused.returncode != 0
        assert f"The data folder {folder} is read-only" in refused.stderr, refused.stderr
        assert "cannot make its database linklab.sqlite3 there" in refused.stderr
        assert not list(folder.iterdir())


def test_what_the_write_ahead_log_holds_is_read_in_a_read_only_folder(tmp_path: Path) -> None:
    """A copy taken while LinkLab ran (its -wal and -shm beside it): the sessions only the log
    holds are listed too (SQLite reads the log where it cannot write its index)."""
    running = tmp_path / "running"
    running.mkdir()
    ids = _make(running / "linklab.sqlite3")
    holder = sqlite3.connect(running / "linklab.sqlite3")  # keeps the log open, unmerged
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("UPDATE sessions SET name = 'renamed in the log' WHERE id = ?", (ids["first"],))
    holder.commit()
    copy = tmp_path / "copy"
    copy.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copy(running / f"linklab.sqlite3{suffix}", copy / f"linklab.sqlite3{suffix}")
    holder.close()
    with read_only(copy, tmp_path / "mounted") as folder:
        data = json.loads(
            linklab("sessions", "--db", str(folder / "linklab.sqlite3"), "--json").stdout
        )
        assert {item["name"] for item in data} == {"renamed in the log", "damaged", "last"}
