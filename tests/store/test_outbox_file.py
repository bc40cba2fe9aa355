"""The class outbox file is versioned like the station's database: an older file keeps what
waits in it, a newer one is refused without being written, another file is named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store.db import StoreCorrupt, StoreTooNew
from app.store.outbox import OUTBOX_VERSION, Outbox

URL = "http://127.0.0.1:9/"

# The table as LinkLab wrote it before the outbox file had a version.
UNVERSIONED = """
CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    item_id TEXT NOT NULL,
    body BLOB,
    digest TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'sent', 'refused')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    queued_at REAL NOT NULL,
    UNIQUE (url, item_id)
)
"""


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_a_new_outbox_carries_its_version_and_keeps_a_push(tmp_path: Path) -> None:
    path = tmp_path / "ann-outbox.sqlite3"
    outbox = Outbox(path)
    assert outbox.add(URL, "run-1", b"{}", "d1", once=True)
    outbox.close()
    assert _version(path) == OUTBOX_VERSION
    again = Outbox(path)
    assert again.waiting(URL) and again.status(URL).waiting == 1
    assert not again.add(URL, "run-1", b"{}", "d1", once=True)  # queued once only
    again.close()


def test_an_unversioned_outbox_of_an_older_linklab_keeps_what_waits(tmp_path: Path) -> None:
    path = tmp_path / "old-outbox.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(UNVERSIONED)
        conn.execute(
            "INSERT INTO outbox (url, item_id, body, digest, state, queued_at) "
            "VALUES (?, 'run-7', x'7b7d', 'd', 'waiting', 1.0)",
            (URL,),
        )
    conn.close()
    outbox = Outbox(path)
    assert outbox.waiting(URL) == [(1, b"{}")]
    outbox.close()
    assert _version(path) == OUTBOX_VERSION


def test_a_newer_outbox_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "new-outbox.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(UNVERSIONED)
        conn.execute(f"PRAGMA user_version = {OUTBOX_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreTooNew, match=r"newer LinkLab.*update LinkLab"):
        Outbox(path)
    assert path.read_bytes() == before


def test_another_file_in_its_place_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad-outbox.sqlite3"
    path.write_bytes(b"not a database at all " * 200)
    with pytest.raises(StoreCorrupt) as err:
        Outbox(path)
    assert str(path) in err.value.sentence
