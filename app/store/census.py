"""What a damaged database file held, as far as can be known: its size beside the size its
header states (a file cut short), and its sessions and runs counted from their tables or,
where those pages are gone, from their indexes (each index keeps every row's key: a session's
id and start, a run's session), read forwards and backwards past damage."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

#: Where the SQLite header keeps the page size, the change counter, the page count and the
#: version its page count is valid for (https://sqlite.org/fileformat.html, 1.3).
_PAGE_SIZE, _CHANGES, _PAGES, _VALID_FOR = 16, 24, 28, 92


@dataclass(frozen=True)
class CutShort:
    """A file shorter than its header says: a copy that did not finish, or a disk that
    filled."""

    size: int  # bytes there
    stated: int  # bytes the header says the file holds

    def words(self) -> str:
        return (
            f"it is cut short: only {self.size:,} of its {self.stated:,} bytes are there, as "
            f"when a copy does not finish or a disk fills"
        )


def cut_short(path: Path) -> CutShort | None:
    """The file's size beside its header's, when the header's is larger and can be trusted."""
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
        size = path.stat().st_size
    except OSError:
        return None
    if len(header) < 100:
        return None
    page = int.from_bytes(header[_PAGE_SIZE : _PAGE_SIZE + 2], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[_PAGES : _PAGES + 4], "big")
    valid = header[_CHANGES : _CHANGES + 4] == header[_VALID_FOR : _VALID_FOR + 4]
    stated = page * pages
    return CutShort(size, stated) if valid and pages and stated > size else None


@dataclass
class Census:
    """Sessions and runs the file held, each as far as its table or an index tells."""

    #: Session id -> its start as the index of starts holds it ("" when unknown).
    sessions: dict[str, str] = field(default_factory=dict)
    #: How many sessions the sessions table counts (None: it cannot count them).
    session_count: int | None = None
    #: Session id -> how many runs the runs' index (or table) holds for it.
    runs_by_session: Counter[str] = field(default_factory=Counter)
    #: How many runs the runs table counts (None: it cannot).
    run_count: int | None = None

    @property
    def held_sessions(self) -> int:
        return max(self.session_count or 0, len(self.sessions))

    @property
    def held_runs(self) -> int:
        return max(self.run_count or 0, sum(self.runs_by_session.values()))

    @property
    def sessions_exact(self) -> bool:
        """Whether the sessions table could be counted whole (else held_sessions is at least)."""
        return self.session_count is not None and self.session_count >= len(self.sessions)

    @property
    def runs_exact(self) -> bool:
        """Whether the runs table could be counted whole (else held_runs is at least)."""
        return self.run_count is not None and self.run_count >= sum(self.runs_by_session.values())


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _minute(stamp: str) -> str:
    """A stored UTC time to the minute: "2026-12-01T21:23:10.070Z" -> "2026-12-01 21:23 UTC"."""
    return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else ""


def _rows(conn: sqlite3.Connection, sql: str) -> set[tuple[object, ...]]:
    """The rows of sql ({order} ASC, then DESC), read until damage stops each direction."""
    found: set[tuple[object, ...]] = set()
    for order in ("ASC", "DESC"):
        try:
            for row in conn.execute(sql.format(order=order)):
                found.add(tuple(row))
        except sqlite3.DatabaseError:
            continue
    return found


def _count(conn: sqlite3.Connection, sql: str) -> int | None:
    try:
        row = conn.execute(sql).fetchone()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row else None


def take(conn: sqlite3.Connection) -> Census:
    """Count what the file held, reading only what is there (a read-only connection)."""
    census = Census()
    census.session_count = _count(conn, "SELECT count(*) FROM sessions")
    census.run_count = _count(conn, "SELECT count(*) FROM runs")
    # Each session's id from the table where its pages are there, else from its key's index.
    ids: dict[object, str] = {}
    for sql in (
        "SELECT rowid, id FROM sessions ORDER BY rowid {order}",
        "SELECT rowid, id FROM sessions INDEXED BY sqlite_autoindex_sessions_1 ORDER BY id {order}",
    ):
        ids |= {rowid: _text(sid) for rowid, sid in _rows(conn, sql)}
    starts = {
        rowid: _text(created)
        for rowid, created in _rows(
            conn,
            "SELECT rowid, created_at FROM sessions INDEXED BY sessions_created "
            "ORDER BY created_at {order}",
        )
    }
    census.sessions = {sid: _minute(starts.get(rowid, "")) for rowid, sid in ids.items()}
    runs: dict[object, str] = {}
    for sql in (
        "SELECT rowid, session_id FROM runs ORDER BY rowid {order}",
        "SELECT rowid, session_id FROM runs INDEXED BY runs_session ORDER BY session_id {order}",
    ):
        runs |= {rowid: _text(sid) for rowid, sid in _rows(conn, sql)}
    census.runs_by_session = Counter(runs.values())
    return census
