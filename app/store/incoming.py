"""Sessions arriving from an exchange file as it streams: written piece by piece into a scratch
file of their own beside the database (Scratch: the database is not touched while the file is
read and checked), then copied in by SQLite itself (ATTACH, INSERT … SELECT), each under a
stand-in id and hidden until all are in, one run per transaction, so that a study measuring
meanwhile never waits long for the database; then shown all at once under their own ids.
Anything that fails takes every copied row away again."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import psutil

from app.domain.records import RunRecord, SessionRecord, utc_now
from app.domain.results import Sample
from app.store.db import Database, StoreError, translate
from app.store.imported import insert_session, insert_stored_run
from app.store.rows import RUN_COLUMNS, SAMPLE_COLUMNS, insert_samples
from app.store.sessions import SessionStore
from app.store.trash import FORGET_DELETED

#: What a session being copied in holds as its deletion time until all are in: older than
#: any time to undo, so no list shows it, and the next start-up's purge removes it should
#: LinkLab end before the copy does.
STAGED = "0000-01-01T00:00:00.000Z"
_LIVE = "SELECT 1 FROM {schema}.sessions WHERE id = ? AND deleted_at IS NULL"


def scratch_path(db_path: Path) -> Path:
    """Where an import of this process writes its scratch file: hidden, beside the database
    (on its disk, which is to hold the sessions anyway)."""
    return db_path.with_name(f".{db_path.name}.import-{os.getpid()}-{uuid.uuid4().hex[:8]}")


def remove_scratch(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def remove_left_scratch(db_path: Path) -> None:
    """Scratch files of imports whose LinkLab ended before they did."""
    for found in db_path.parent.glob(f".{db_path.name}.import-*"):
        pid = found.name.removeprefix(f".{db_path.name}.import-").split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            with contextlib.suppress(OSError):
                found.unlink()


class Scratch:
    """The sessions of a file as it is read, written into the scratch file (nobody else
    reads it: one transaction a run, without the waits a shared file needs)."""

    def __init__(self, path: Path) -> None:
        self.db = Database(path)
        # Nothing to keep safe here: a crash loses only the scratch, which is read again.
        self.db.conn.execute("PRAGMA journal_mode = OFF")
        self.db.conn.execute("PRAGMA synchronous = OFF")
        self.store = SessionStore(self.db)
        self._session = ""
        self._run = 0
        self._seq = 0

    def session(self, record: SessionRecord) -> None:
        with self.db.transaction() as conn:
            insert_session(conn, record, record.id, utc_now(), None)
        self._session = record.id

    def run(self, record: RunRecord, flows_json: str) -> None:
        with self.db.transaction() as conn:
            self._run = insert_stored_run(conn, self._session, record, flows_json)
        self._seq = 0

    def samples(self, samples: Sequence[Sample]) -> None:
        with self.db.transaction() as conn:
            insert_samples(conn, self._run, samples, self._seq)
        self._seq += len(samples)

    def flows(self, flows_json: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE runs SET flows_json = ? WHERE id = ?", (flows_json, self._run))

    def close(self) -> None:
        self.db.close()


@contextmanager
def _attached(db: Database, path: Path) -> Iterator[sqlite3.Connection]:
    conn = db.conn
    try:
        conn.execute("ATTACH DATABASE ? AS incoming", (f"{path.resolve().as_uri()}?mode=ro",))
    except sqlite3.Error as err:
        raise translate(err, db.path) from None
    try:
        yield conn
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("DETACH DATABASE incoming")


def copy_in(db: Database, scratch: Path) -> tuple[list[str], list[str]]:
    """The scratch file's sessions into db: (imported ids, skipped ids, those here already),
    in the file's order; all of them or, should anything fail, none."""
    db.require_writable()
    with Database(scratch, readonly=True) as source:
        sessions = [(s, _run_ids(source, s.id)) for s in _ordered(source)]
    staged: list[tuple[str, str]] = []  # (stand-in id, own id)
    skipped: list[str] = []
    new_peers: list[str] = []
    try:
        with _attached(db, scratch):
            for session, runs in sessions:
                if db.query(_LIVE.format(schema="main"), (session.id,)):
                    skipped.append(session.id)
                    continue
                stand_in = f"import-{uuid.uuid4().hex}"
                with db.transaction() as conn:
                    host = session.plan.peer.host
                    if not conn.execute("SELECT 1 FROM peers WHERE host = ?", (host,)).fetchone():
                        new_peers.append(host)
                    insert_session(conn, session, stand_in, utc_now(), STAGED)
                staged.append((stand_in, session.id))
                for run_id in runs:
                    with db.transaction() as conn:
                        _copy_run(conn, stand_in, run_id)
            imported = _show(db, staged, skipped)
    except BaseException:
        _take_away(db, staged, new_peers)
        raise
    return imported, skipped


def _ordered(source: Database) -> list[SessionRecord]:
    """The scratch file's sessions in the order the file held them."""
    store = SessionStore(source)
    rows = source.query("SELECT id FROM sessions ORDER BY rowid")
    return [store.get(row["id"]) for row in rows]


# The columns are the store's own names (rows.py), never text from a file.
_RUN_COPIED = RUN_COLUMNS.replace("session_id, ", "")
_COPY_RUN = (
    f"INSERT INTO main.runs (session_id, {_RUN_COPIED}) "  # noqa: S608 (fixed names)
    f"SELECT ?, {_RUN_COPIED} FROM incoming.runs WHERE id = ?"
)
_COPY_SAMPLES = (
    f"INSERT INTO main.samples (run_id, seq, {SAMPLE_COLUMNS}) "  # noqa: S608 (fixed names)
    f"SELECT ?, seq, {SAMPLE_COLUMNS} FROM incoming.samples WHERE run_id = ? ORDER BY seq"
)


def _run_ids(source: Database, session_id: str) -> list[int]:
    rows = source.query("SELECT id FROM runs WHERE session_id = ? ORDER BY id", (session_id,))
    return [int(row["id"]) for row in rows]


def _copy_run(conn: sqlite3.Connection, session_id: str, run_id: int) -> None:
    cursor = conn.execute(_COPY_RUN, (session_id, run_id))
    conn.execute(_COPY_SAMPLES, (cursor.lastrowid, run_id))


def _show(db: Database, staged: list[tuple[str, str]], skipped: list[str]) -> list[str]:
    """Every staged session shown under its own id, in one transaction. One that arrived
    meanwhile by another way is kept, this copy not."""
    imported: list[str] = []
    with db.transaction() as conn:
        conn.execute("PRAGMA defer_foreign_keys = ON")  # runs move before their session
        for stand_in, own in staged:
            if conn.execute(_LIVE.format(schema="main"), (own,)).fetchone():
                conn.execute("DELETE FROM sessions WHERE id = ?", (stand_in,))
                skipped.append(own)
                continue
            conn.execute(FORGET_DELETED, (own,))  # deleted here: the file's copy
            conn.execute("UPDATE runs SET session_id = ? WHERE session_id = ?", (own, stand_in))
            conn.execute(
                "UPDATE sessions SET id = ?, deleted_at = NULL WHERE id = ?", (own, stand_in)
            )
            imported.append(own)
    staged.clear()
    return imported


def _take_away(db: Database, staged: list[tuple[str, str]], new_peers: list[str]) -> None:
    """The staged sessions gone, with their runs and samples, and the peers only they named
    (left for the next start-up's purge when even that cannot be written)."""
    if not staged:
        return
    with contextlib.suppress(StoreError), db.transaction() as conn:
        conn.executemany("DELETE FROM sessions WHERE id = ?", [(s,) for s, _ in staged])
        conn.executemany(
            "DELETE FROM peers WHERE host = ? AND id NOT IN "
            "(SELECT peer_id FROM sessions WHERE peer_id IS NOT NULL)",
            [(host,) for host in new_peers],
        )
