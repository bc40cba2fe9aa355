"""A run's working latency under load per second (schema 12): each second's median round trip
and its probes answered and lost, written with the run's samples as it goes and read as the
bounds allow."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from app.domain.results import LatencySecond
from app.engine.readings.bounds import beyond
from app.store.db import Database

#: The schema that keeps them (app.store.schema).
SINCE_SCHEMA = 12
#: A run's seconds, by its id.
SELECT = "SELECT second, median_ms, answered, lost FROM latency_seconds WHERE run_id = ?"


def insert_seconds(conn: sqlite3.Connection, run_id: int, seconds: Sequence[LatencySecond]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO latency_seconds (run_id, second, median_ms, answered, lost) "
        "VALUES (?, ?, ?, ?, ?)",
        [(run_id, s.second, s.median_ms, s.answered, s.lost) for s in seconds],
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_seconds(db: Database, run_id: int) -> list[LatencySecond]:
    """The run's seconds in order; none from a file older than schema 12, and a row whose
    figures are beyond their bounds (damaged, or written by hand) left out."""
    if db.version < SINCE_SCHEMA:
        return []  # an older file, only read: it kept none
    rows = db.query(f"{SELECT} ORDER BY second", (run_id,))
    return seconds_from_rows(rows)


def seconds_from_rows(rows: Iterable[Sequence[object]]) -> list[LatencySecond]:
    """Rows of SELECT as seconds, those beyond their bounds left out."""
    found = []
    for row in rows:
        second, answered, lost = _count(row[0]), _count(row[2]), _count(row[3])
        median = row[1]
        if second is None or answered is None or lost is None or beyond("latency_ms", median):
            continue
        assert median is None or isinstance(median, int | float)  # beyond() said it is
        found.append(
            LatencySecond(second, None if median is None else float(median), answered, lost)
        )
    return found
