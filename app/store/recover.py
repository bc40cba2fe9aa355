"""A damaged database: what SQLite's integrity check says, in words, and a copy of whatever
can still be read into a new file through the store (in the spirit of SQLite's .recover:
row by row, every table read forwards and backwards so rows past a damaged page are reached
too, a row that cannot be read is skipped and counted)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from app.domain.errors import BadOption, LinkLabError
from app.domain.records import SessionStatus
from app.domain.results import Sample
from app.store.db import Database
from app.store.rows import (
    StoredRun,
    StoredSession,
    readable_run_columns,
    readable_sample_columns,
    run_from_row,
    sample_from_row,
    session_from_row,
)
from app.store.sessions import SessionStore


@dataclass(frozen=True)
class Check:
    ok: bool
    problems: tuple[str, ...]  # SQLite's own words, at most a few

    def words(self, path: Path) -> str:
        if self.ok:
            return f"The database {path} passed SQLite's integrity check: nothing is damaged."
        shown = "; ".join(self.problems[:5])
        more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
        index_only = all("index" in p.lower() for p in self.problems)
        what = (
            "only its indexes are damaged, so every row can still be read"
            if index_only
            else "some of its pages are damaged, so some rows may be lost"
        )
        return (
            f"The database {path} failed SQLite's integrity check: {what}. SQLite says: "
            f"{shown}{more}."
        )


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise BadOption(f"There is no database at {path}: give the file with --db PATH.")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def check(path: Path) -> Check:
    """PRAGMA integrity_check over the whole file (read-only)."""
    conn = _connect(path)
    try:
        lines = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(100)")]
    except sqlite3.DatabaseError as err:
        return Check(False, (str(err),))
    finally:
        conn.close()
    return Check(lines == ["ok"], tuple(line for line in lines if line != "ok"))


@dataclass(frozen=True)
class Recovered:
    sessions_saved: int
    sessions_lost: int
    runs_saved: int
    runs_lost: int
    samples_saved: int

    @property
    def complete(self) -> bool:
        return not (self.sessions_lost or self.runs_lost)

    def words(self, target: Path) -> str:
        saved = (
            f"Copied {self.sessions_saved} sessions ({self.runs_saved} runs, "
            f"{self.samples_saved} samples) to {target}"
        )
        if self.complete:
            return f"{saved}: everything that was there could be read."
        return (
            f"{saved}; lost: {self.sessions_lost} sessions and {self.runs_lost} runs that "
            f"could not be read."
        )


def _scan(conn: sqlite3.Connection, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
    """Rows of `sql` (ordered by its first column, which must be unique; {order} is ASC or
    DESC), read forwards until damage stops the read, then backwards the same way."""
    found: dict[object, sqlite3.Row] = {}
    for order in ("ASC", "DESC"):
        try:
            for row in conn.execute(sql.format(order=order), params):
                found.setdefault(row[0], row)
        except sqlite3.DatabaseError:
            continue
    return [found[key] for key in sorted(found, key=str)]


def _count(conn: sqlite3.Connection, sql: str, params: tuple[object, ...] = ()) -> int | None:
    try:
        row = conn.execute(sql, params).fetchone()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row else None


def _samples(conn: sqlite3.Connection, run_id: int) -> tuple[Sample, ...]:
    rows = _scan(
        conn,
        f"SELECT seq, {readable_sample_columns(conn)} FROM samples WHERE run_id = ? "
        f"ORDER BY seq {{order}}",
        (run_id,),
    )
    samples = []
    for r in sorted(rows, key=lambda row: int(row["seq"])):
        try:
            samples.append(sample_from_row(r))
        except (ValueError, TypeError):
            continue
    return tuple(samples)


def _runs(conn: sqlite3.Connection, session_id: str) -> tuple[list[StoredRun], int]:
    rows = _scan(
        conn,
        f"SELECT id, {readable_run_columns(conn)} FROM runs WHERE session_id = ? "
        f"ORDER BY id {{order}}",
        (session_id,),
    )
    runs: list[StoredRun] = []
    unreadable = 0
    for row in sorted(rows, key=lambda r: int(r["id"])):
        try:
            record = run_from_row(row)
        except (ValueError, TypeError, KeyError, LinkLabError):
            unreadable += 1
            continue
        runs.append(StoredRun(record, _samples(conn, record.id), row["flows_json"] or "[]"))
    expected = _count(conn, "SELECT count(*) FROM runs WHERE session_id = ?", (session_id,))
    lost = max(unreadable, (expected or 0) - len(runs))
    return runs, lost


def recover(source: Path, target: Path) -> Recovered:
    """Copy every session (its runs and their samples) that can still be read from source into
    a new database file at target, through the store, one transaction per session."""
    if target.exists():
        raise BadOption(f"{target} already exists: give the name of a new file to copy to.")
    if target.resolve() == source.resolve():
        raise BadOption("Copy to a new file, not onto the damaged one.")
    conn = _connect(source)
    sessions_saved = sessions_lost = runs_saved = runs_lost = samples_saved = 0
    try:
        rows = _scan(
            conn,
            "SELECT s.rowid AS row_id, s.*, NULL AS peer_host, 0 AS runs_done, "
            "0 AS runs_failed, 0 AS runs_partial FROM sessions s ORDER BY s.rowid {order}",
        )
        expected = _count(conn, "SELECT count(*) FROM sessions")
        sessions_lost = max(0, (expected or 0) - len(rows))
        with Database(target) as out:
            store = SessionStore(out)
            for row in rows:
                try:
                    record = session_from_row(row)
                except (ValueError, TypeError, KeyError, LinkLabError):
                    sessions_lost += 1
                    continue
                if record.status is SessionStatus.RUNNING:
                    record = replace(
                        record,
                        status=SessionStatus.INTERRUPTED,
                        status_reason="It was running when its database was damaged.",
                    )
                runs, lost = _runs(conn, record.id)
                store.import_sessions([StoredSession(record, tuple(runs))])
                sessions_saved += 1
                runs_saved += len(runs)
                runs_lost += lost
                samples_saved += sum(len(r.samples) for r in runs)
    finally:
        conn.close()
    return Recovered(sessions_saved, sessions_lost, runs_saved, runs_lost, samples_saved)
