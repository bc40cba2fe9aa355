"""A damaged database: what SQLite's integrity check and a full read of every row say, in
words, and a copy of whatever can still be read into a new file through the store (in the
spirit of SQLite's .recover: row by row, every table read forwards and backwards so rows past
a damaged page are reached too; a column that cannot be read, or holds bytes that are not
text, is left empty and counted, and only a row that cannot be placed at all is lost)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.domain.errors import BadOption, LinkLabError
from app.domain.records import METRIC_FIELDS, SessionStatus
from app.domain.results import LatencySecond, Sample
from app.domain.units import counted
from app.store import census
from app.store.census import Census, CutShort, cut_short
from app.store.damage import SessionUnreadable, session_from_row
from app.store.db import Database, read_uri
from app.store.imported import import_sessions
from app.store.latency_seconds import SELECT, seconds_from_rows
from app.store.rows import (
    StoredRun,
    StoredSession,
    run_columns_for,
    run_from_row,
    sample_columns_for,
    sample_from_row,
)


@dataclass(frozen=True)
class Check:
    ok: bool
    problems: tuple[str, ...]  # SQLite's own words, at most a few
    read_problems: tuple[str, ...] = ()  # what a full read met, with SQLite's check passed
    cut: CutShort | None = None

    def words(self, path: Path) -> str:
        said = self._words(path)
        if self.cut is None:
            return said
        return f"The database {path} is damaged: {self.cut.words()}. {said}"

    def _words(self, path: Path) -> str:
        if self.ok:
            return (
                f"The database {path} passed SQLite's integrity check and a full read of "
                f"every row: nothing is damaged."
            )
        if not self.problems:
            found = "; ".join(self.read_problems[:5])
            extra = len(self.read_problems) - 5
            return (
                f"The database {path} passed SQLite's integrity check, but a full read of "
                f"every row found damage inside it: {found}"
                + (f" (and {extra} more)" if extra > 0 else "")
                + "."
            )
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
    conn = sqlite3.connect(read_uri(path), uri=True)
    # A file cut short (its header counts pages that are gone) opens only so; the connection
    # is read-only, so nothing can be written through it.
    conn.execute("PRAGMA writable_schema = ON")
    conn.row_factory = sqlite3.Row
    # Text comes as bytes and is decoded here, column by column: damaged bytes in one column
    # (SQLite checks the pages' structure, never their content) must not lose the row.
    conn.text_factory = bytes
    return conn


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    try:
        return {_text(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return set()


def check(path: Path) -> Check:
    """PRAGMA integrity_check over the whole file (read-only), then, when it passes, a full
    read of every session, run and sample as recovery would copy them: damage inside the
    content of a page (bytes that are not text) passes SQLite's check but not a read."""
    conn = _connect(path)
    cut = cut_short(path)
    try:
        lines = [_text(r[0]) for r in conn.execute("PRAGMA integrity_check(100)")]
    except sqlite3.DatabaseError as err:
        return Check(False, (str(err),), cut=cut)
    finally:
        conn.close()
    if lines != ["ok"]:
        problems = [part for line in lines if line != "ok" for part in line.splitlines()]
        return Check(False, tuple(p for p in problems if not p.startswith("*** ")), cut=cut)
    found = read_all(path)
    return Check(found.complete, (), found.problems())


@dataclass
class Recovered:
    sessions_saved: int = 0
    sessions_lost: int = 0
    runs_saved: int = 0
    runs_lost: int = 0
    samples_saved: int = 0
    samples_lost: int = 0
    #: Columns of saved rows that could not be read and were left empty, each in words
    #: ("the raw output of run 12 (session 3f581627)").
    emptied: list[str] = field(default_factory=list)
    #: The sessions that could not be copied, each in words ("043ea82e, started …").
    lost_sessions: list[str] = field(default_factory=list)
    #: What the file held as far as its tables and indexes tell (app.store.census).
    held_sessions: int = 0
    held_runs: int = 0
    #: Whether each table could be counted whole (else its held figure is a lower bound).
    sessions_exact: bool = True
    runs_exact: bool = True
    cut: CutShort | None = None

    @property
    def complete(self) -> bool:
        return not (
            self.sessions_lost or self.runs_lost or self.samples_lost or self.emptied or self.cut
        )

    def problems(self) -> tuple[str, ...]:
        """What could not be read, one phrase each."""
        lost = [
            f"{count} {what} that cannot be read"
            for count, what in (
                (self.sessions_lost, "sessions"),
                (self.runs_lost, "runs"),
                (self.samples_lost, "samples"),
            )
            if count
        ]
        cut = [self.cut.words()] if self.cut else []
        return (*cut, *lost, *(f"{column} cannot be read" for column in self.emptied))

    def words(self, target: Path) -> str:
        saved = (
            f"Copied {counted(self.sessions_saved, 'session')} "
            f"({counted(self.runs_saved, 'run')}, {counted(self.samples_saved, 'sample')}) "
            f"to {target}"
        )
        if self.complete:
            return f"{saved}: everything that was there could be read."
        some = "" if self.sessions_exact else "at least "
        runs = "" if self.runs_exact else "at least "
        held = (
            f". The damaged file held {some}{counted(self.held_sessions, 'session')} and "
            f"{runs}{counted(self.held_runs, 'run')}, as far as its tables and indexes tell"
            + (f"; {self.cut.words()}" if self.cut else "")
        )
        emptied = ""
        if self.emptied:
            one = len(self.emptied) == 1
            emptied = (
                f"; {counted(len(self.emptied), 'column')} that could not be read "
                f"{'was' if one else 'were'} left empty ({_some(self.emptied)})"
            )
        which = f" ({_some(self.lost_sessions)})" if self.lost_sessions else ""
        if self.samples_lost:
            lost = (
                f"{counted(self.sessions_lost, 'session')}{which}, "
                f"{runs}{counted(self.runs_lost, 'run')} and "
                f"{counted(self.samples_lost, 'sample')}"
            )
        else:
            lost = (
                f"{counted(self.sessions_lost, 'session')}{which} and "
                f"{runs}{counted(self.runs_lost, 'run')}"
            )
        return f"{saved}{held}{emptied}; lost: {lost} that could not be read."

    def settle(self, census: Census, copied: dict[str, int]) -> None:
        """What was lost, from what the file held (census) and what was copied (session id ->
        its runs copied): sessions known only from an index, and the runs of every session
        that could not be copied, count as lost."""
        self.sessions_exact, self.runs_exact = census.sessions_exact, census.runs_exact
        self.held_sessions = max(census.held_sessions, self.sessions_saved + self.sessions_lost)
        self.held_runs = max(census.held_runs, self.runs_saved + self.runs_lost)
        named = {words.split(" ", 1)[0].rstrip(",") for words in self.lost_sessions}
        gone = sorted(sid for sid in census.sessions if sid not in copied and sid[:8] not in named)
        self.lost_sessions += [
            f"{sid[:8]}, started {census.sessions[sid]}" if census.sessions[sid] else sid[:8]
            for sid in gone
        ]
        self.sessions_lost = max(self.sessions_lost, self.held_sessions - self.sessions_saved)
        self.runs_lost = max(self.runs_lost, self.held_runs - self.runs_saved)


def _some(items: list[str], shown: int = 5) -> str:
    more = len(items) - shown
    return "; ".join(items[:shown]) + (f" and {more} more" if more > 0 else "")


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


#: What an emptied NOT NULL text column holds in the copy.
_EMPTY = {"argv_json": "[]", "flows_json": "[]", "environment_json": "{}"}
_NAMES = {"raw_output": "the raw output", "flows_json": "the flow totals", "argv_json": "the argv"}


def _decoded(values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Text columns (bytes here) decoded; those that are not UTF-8 become None and are named."""
    bad = []
    for name, value in values.items():
        if isinstance(value, bytes):
            try:
                values[name] = value.decode("utf-8")
            except UnicodeDecodeError:
                values[name] = None
                bad.append(name)
    return values, bad


def _read_row(
    conn: sqlite3.Connection, table: str, columns: list[str], key_column: str, key: object
) -> tuple[dict[str, Any], list[str]]:
    """One row by its key: whole, or where damage stops that, column by column (a column that
    cannot be read is None). Returns the values and the names of the columns left None."""
    names = [c.split(" AS ")[-1].strip() for c in columns]
    try:
        row = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE {key_column} = ?", (key,)
        ).fetchone()
        values: dict[str, Any] = dict(zip(names, row, strict=True)) if row else {}
        unreadable: list[str] = []
    except sqlite3.DatabaseError:
        values, unreadable = {}, []
        for column, name in zip(columns, names, strict=True):
            try:
                (values[name],) = conn.execute(
                    f"SELECT {column} FROM {table} WHERE {key_column} = ?", (key,)
                ).fetchone()
            except (sqlite3.DatabaseError, TypeError):
                values[name] = None
                unreadable.append(name)
    values, undecodable = _decoded(values)
    return values, unreadable + undecodable


def _samples(conn: sqlite3.Connection, run_id: int) -> tuple[tuple[Sample, ...], int]:
    """The run's samples that can be read, and how many cannot."""
    rows = _scan(
        conn,
        f"SELECT seq, {sample_columns_for(_columns(conn, 'samples'))} FROM samples "
        f"WHERE run_id = ? "
        f"ORDER BY seq {{order}}",
        (run_id,),
    )
    samples = []
    for r in sorted(rows, key=lambda row: int(row["seq"])):
        values, bad = _decoded(dict(zip(r.keys(), r, strict=True)))
        try:
            if not bad:
                samples.append(sample_from_row(values))  # type: ignore[arg-type]
        except (ValueError, TypeError):
            continue
    expected = _count(conn, "SELECT count(*) FROM samples WHERE run_id = ?", (run_id,))
    return tuple(samples), max(0, (expected or 0) - len(samples))


def _seconds(conn: sqlite3.Connection, run_id: int) -> tuple[LatencySecond, ...]:
    """The run's seconds of working latency that can be read (none before schema 12)."""
    if "run_id" not in _columns(conn, "latency_seconds"):
        return ()
    rows = _scan(conn, f"{SELECT} ORDER BY second {{order}}", (run_id,))
    return tuple(seconds_from_rows(rows))


def _runs(
    conn: sqlite3.Connection, session_id: str, found: Recovered
) -> tuple[list[StoredRun], int]:
    present = _columns(conn, "runs")
    columns = ["id", *(c.strip() for c in run_columns_for(present).split(","))]
    ids = _scan(conn, "SELECT id FROM runs WHERE session_id = ? ORDER BY id {order}", (session_id,))
    runs: list[StoredRun] = []
    unreadable = 0
    for (run_id,) in ids:
        values, empty = _read_row(conn, "runs", columns, "id", run_id)
        for name in empty:
            values[name] = _EMPTY.get(name, None if name in _METRICS else "")
        try:
            record = run_from_row(values)  # type: ignore[arg-type]
        except (ValueError, TypeError, KeyError, LinkLabError):
            unreadable += 1
            continue
        samples, samples_lost = _samples(conn, record.id)
        found.samples_lost += samples_lost
        found.emptied += [
            f"{_NAMES.get(name, name)} of run {record.id} (session {session_id[:8]})"
            for name in empty
        ]
        seconds = _seconds(conn, record.id)
        runs.append(StoredRun(record, samples, values["flows_json"] or "[]", seconds))
    expected = _count(conn, "SELECT count(*) FROM runs WHERE session_id = ?", (session_id,))
    lost = max(unreadable, (expected or 0) - len(runs))
    return runs, lost


_METRICS = frozenset(METRIC_FIELDS) | {"elapsed_s"}


def _sessions(conn: sqlite3.Connection, path: Path, found: Recovered) -> Iterator[StoredSession]:
    """Every session that can be read, with its runs and samples; found counts the rest."""
    columns = sorted(_columns(conn, "sessions"))
    rowids = _scan(conn, "SELECT rowid FROM sessions ORDER BY rowid {order}")
    expected = _count(conn, "SELECT count(*) FROM sessions")
    found.sessions_lost = max(0, (expected or 0) - len(rowids))
    for (rowid,) in rowids:
        values, empty = _read_row(conn, "sessions", columns or ["*"], "rowid", rowid)
        values |= {"peer_host": None, "runs_done": 0, "runs_failed": 0, "runs_partial": 0}
        for name in empty:
            values[name] = _EMPTY.get(name, "")
        try:
            record = session_from_row(values, path)
        except SessionUnreadable as err:
            found.sessions_lost += 1
            named = f" (“{err.listed.name[:40]}”)" if err.listed.name else ""
            found.lost_sessions.append(f"{err.listed.short_id}{named}: {err.listed.what}")
            continue
        except (ValueError, TypeError, KeyError, LinkLabError):
            found.sessions_lost += 1
            continue
        found.emptied += [f"the {name} of session {record.short_id}" for name in empty]
        if record.status is SessionStatus.RUNNING:
            record = replace(
                record,
                status=SessionStatus.INTERRUPTED,
                status_reason="It was running when its database was damaged.",
            )
        runs, lost = _runs(conn, record.id, found)
        found.sessions_saved += 1
        found.runs_saved += len(runs)
        found.runs_lost += lost
        found.samples_saved += sum(len(r.samples) for r in runs)
        yield StoredSession(record, tuple(runs))


def read_all(source: Path) -> Recovered:
    """Read every session, run and sample as a recovery would copy them, writing nothing:
    what a full read finds."""
    conn = _connect(source)
    found = Recovered(cut=cut_short(source))
    try:
        copied = {s.record.id: len(s.runs) for s in _sessions(conn, source, found)}
        found.settle(census.take(conn), copied)
    finally:
        conn.close()
    return found


def recover(source: Path, target: Path) -> Recovered:
    """Copy every session (its runs and their samples) that can still be read from source into
    a new database file at target, through the store, one transaction per session."""
    if target.exists():
        raise BadOption(f"{target} already exists: give the name of a new file to copy to.")
    if target.resolve() == source.resolve():
        raise BadOption("Copy to a new file, not onto the damaged one.")
    conn = _connect(source)
    found = Recovered(cut=cut_short(source))
    copied: dict[str, int] = {}
    try:
        with Database(target) as out:
            for session in _sessions(conn, source, found):
                import_sessions(out, [session])
                copied[session.record.id] = len(session.runs)
        found.settle(census.take(conn), copied)
    finally:
        conn.close()
    return found
