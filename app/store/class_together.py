"""A class measuring together, kept with the class (SQLite or PostgreSQL, the same statements):
the stations checked in with their clock offsets, each Start together with its schedule, and
every part of every station's report stored once, in one transaction each. The results are
worked out from these rows whenever they are read, so a report that arrives late counts as
soon as it is stored, and a collector started again has lost nothing it acknowledged."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from app.domain.records import utc_now
from app.store.class_schema import Dialect

__all__ = ["CheckinRow", "ReportRow", "TogetherRow", "TogetherTables"]


@dataclass(frozen=True)
class CheckinRow:
    student: str
    exercise_id: str
    offset_s: float | None  # collector's clock minus the station's; None: not measured
    delay_s: float | None  # the round trip of the exchange the offset came from
    exchanges: int  # how many exchanges were tried
    clock_problem: str  # why there is no offset, in words ("" when there is one)
    host: str  # the server the station measures against (its own of the pool)
    port: int | None
    seen_at: float  # the collector's clock


@dataclass(frozen=True)
class TogetherRow:
    id: str
    exercise_id: str
    plan_json: str
    schedule_json: str
    stations_json: str  # each station as it checked in: offset, delay, server
    left_out_json: str  # [[student, reason], …] left out at the start
    start_at: float
    end_at: float


@dataclass(frozen=True)
class ReportRow:
    together_id: str
    slot: int
    student: str
    part: int  # 0, 1, … the per-second figures as they came; -1 the station's last word
    digest: str
    body_json: str


class TogetherTables:
    """The together tables' statements, mixed into ClassStore (which gives the connection,
    the transaction and the dialect)."""

    dialect: Dialect

    # Given by ClassStore.
    def _transaction(self, migrating: bool = False) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _run(self, conn: Any, sql: str, params: tuple[Any, ...] = ()) -> Any:
        raise NotImplementedError

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _count_together(self, conn: Any) -> None:
        self._run(conn, "UPDATE class_meta SET value = value + 1 WHERE name = 'together'")

    # -- stations -----------------------------------------------------------------------------
    def check_in(self, row: CheckinRow) -> None:
        """A station's check-in (again: its newer offset replaces the older)."""
        with self._transaction() as conn:
            self._run(
                conn,
                "INSERT INTO class_checkins (student, exercise_id, offset_s, delay_s, exchanges, "
                "clock_problem, host, port, checked_in_at, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?) ON CONFLICT (student) DO UPDATE SET exercise_id = excluded.exercise_id, "
                "offset_s = excluded.offset_s, delay_s = excluded.delay_s, exchanges = "
                "excluded.exchanges, clock_problem = excluded.clock_problem, host = "
                "excluded.host, port = excluded.port, checked_in_at = excluded.checked_in_at, "
                "seen_at = excluded.seen_at",
                (
                    row.student,
                    row.exercise_id,
                    row.offset_s,
                    row.delay_s,
                    row.exchanges,
                    row.clock_problem,
                    row.host,
                    row.port,
                    utc_now(),
                    row.seen_at,
                ),
            )
            self._count_together(conn)

    def seen(self, student: str, when: float) -> bool:
        """The station asked for its schedule at when; False when it never checked in."""
        with self._transaction() as conn:
            cursor = self._run(
                conn, "UPDATE class_checkins SET seen_at = ? WHERE student = ?", (when, student)
            )
            return bool(cursor.rowcount)

    def checkins(self) -> list[dict[str, Any]]:
        return self._rows(
            "SELECT student, exercise_id, offset_s, delay_s, exchanges, clock_problem, host, "
            "port, checked_in_at, seen_at FROM class_checkins ORDER BY student"
        )

    # -- a Start together ------------------------------------------------------------------------
    def add_together(self, row: TogetherRow, now: float) -> str | None:
        """Store a new Start together; the id of the one still under way instead (nothing is
        stored then)."""
        with self._transaction() as conn:
            busy = self._run(
                conn, "SELECT id FROM class_together WHERE end_at > ? ORDER BY start_at", (now,)
            ).fetchone()
            if busy is not None:
                return str(busy[0])
            self._run(
                conn,
                "INSERT INTO class_together (id, exercise_id, plan_json, schedule_json, "
                "stations_json, left_out_json, created_at, start_at, end_at) VALUES (?, ?, ?, ?, "
                "?, ?, ?, ?, ?)",
                (
                    row.id,
                    row.exercise_id,
                    row.plan_json,
                    row.schedule_json,
                    row.stations_json,
                    row.left_out_json,
                    utc_now(),
                    row.start_at,
                    row.end_at,
                ),
            )
            self._count_together(conn)
            return None

    def togethers(self, limit: int = 50) -> list[dict[str, Any]]:
        """The Starts together, newest first."""
        return self._rows(
            "SELECT id, exercise_id, plan_json, created_at, start_at, end_at FROM class_together "
            "ORDER BY start_at DESC LIMIT ?",
            (limit,),
        )

    def together(self, together_id: str) -> dict[str, Any] | None:
        rows = self._rows(
            "SELECT id, exercise_id, plan_json, schedule_json, stations_json, left_out_json, "
            "created_at, start_at, end_at FROM class_together WHERE id = ?",
            (together_id,),
        )
        return rows[0] if rows else None

    def newest_together(self) -> dict[str, Any] | None:
        found = self.togethers(1)
        return self.together(found[0]["id"]) if found else None

    # -- the stations' reports -------------------------------------------------------------------
    def put_report(self, row: ReportRow) -> str:
        """Store one part of a station's report: "stored", "already" (the same part again) or
        "conflict" (this part was stored with other figures: it is never replaced)."""
        with self._transaction() as conn:
            same = self._run(
                conn,
                "SELECT digest FROM class_together_reports WHERE together_id = ? AND slot = ? AND "
                "student = ? AND part = ?",
                (row.together_id, row.slot, row.student, row.part),
            ).fetchone()
            if same is not None:
                return "already" if same[0] == row.digest else "conflict"
            self._run(
                conn,
                "INSERT INTO class_together_reports (together_id, slot, student, part, digest, "
                "body_json, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    row.together_id,
                    row.slot,
                    row.student,
                    row.part,
                    row.digest,
                    row.body_json,
                    utc_now(),
                ),
            )
            self._count_together(conn)
            return "stored"

    def reports(self, together_id: str) -> list[dict[str, Any]]:
        """Every part reported of one Start together, in order."""
        return self._rows(
            "SELECT slot, student, part, body_json, received_at FROM class_together_reports "
            "WHERE together_id = ? ORDER BY slot, student, part",
            (together_id,),
        )

    def together_changes(self) -> int:
        """Grows with every check-in, start and report stored: the results are current while
        it stays the same."""
        rows = self._rows("SELECT value FROM class_meta WHERE name = 'together'")
        return int(rows[0]["value"]) if rows else 0
