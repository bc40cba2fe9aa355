"""The tables of a class collected live, for SQLite and PostgreSQL alike, as forward
migrations: CLASS_MIGRATIONS[n] takes the class schema from version n to n + 1. The version is
kept in class_meta (not SQLite's user_version, which is the sessions' schema), so the same
tables can live in an instructor's own database or in a department's PostgreSQL.

Never edit a released migration; append a new one."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CLASS_MIGRATIONS", "CLASS_SCHEMA_VERSION", "POSTGRESQL", "SQLITE", "Dialect"]


@dataclass(frozen=True)
class Dialect:
    name: str
    serial: str  # an auto-numbered primary key
    bigint: str
    placeholder: str  # how a bound parameter is written

    def sql(self, text: str) -> str:
        """Statements are written with ? for their parameters (no literal ? anywhere)."""
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)


SQLITE = Dialect("sqlite", "INTEGER PRIMARY KEY", "INTEGER", "?")
POSTGRESQL = Dialect(
    "postgresql", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "BIGINT", "%s"
)

_META = "CREATE TABLE IF NOT EXISTS class_meta (name TEXT PRIMARY KEY, value {bigint} NOT NULL)"

_V1 = [
    # A student's work on an exercise: who, the exercise as first pushed, the answers (the
    # latest push of them wins: answers_seq orders them).
    """
    CREATE TABLE class_work (
        exercise_id TEXT NOT NULL,
        student TEXT NOT NULL,
        group_name TEXT NOT NULL DEFAULT '',
        exercise_json TEXT NOT NULL,
        answers_json TEXT NOT NULL DEFAULT '{{}}',
        answers_seq {bigint} NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (exercise_id, student)
    )
    """,
    # A session as the station last told it (status, plan, environment): seq orders the pushes.
    """
    CREATE TABLE class_sessions (
        id TEXT PRIMARY KEY,
        exercise_id TEXT NOT NULL,
        student TEXT NOT NULL,
        seq {bigint} NOT NULL,
        header_json TEXT NOT NULL,
        received_at TEXT NOT NULL,
        FOREIGN KEY (exercise_id, student) REFERENCES class_work (exercise_id, student)
    )
    """,
    "CREATE INDEX class_sessions_work ON class_sessions (exercise_id, student)",
    # One finished run, stored once: run_id is its identity (session and run key), digest
    # its content, raw_digest its engine output (the same measurement under another id is a
    # replay). light_json is what the class view reads; the rest is kept for audit.
    """
    CREATE TABLE class_runs (
        id {serial},
        run_id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES class_sessions (id),
        exercise_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        raw_digest TEXT UNIQUE,
        light_json TEXT NOT NULL,
        altered {bigint} NOT NULL,
        marks_json TEXT NOT NULL,
        raw_output TEXT NOT NULL,
        samples_json TEXT NOT NULL,
        flows_json TEXT NOT NULL,
        received_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX class_runs_exercise ON class_runs (exercise_id)",
    # The engine servers a pool serves the class with (linklab serve --count N), and which
    # station was given which port.
    """
    CREATE TABLE class_pool (
        host TEXT NOT NULL,
        port {bigint} NOT NULL,
        engine TEXT NOT NULL,
        shared {bigint} NOT NULL,
        announced_at TEXT NOT NULL,
        PRIMARY KEY (host, port)
    )
    """,
    """
    CREATE TABLE class_stations (
        student TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        port {bigint} NOT NULL,
        assigned_at TEXT NOT NULL
    )
    """,
]

_V2 = [
    # A station waiting to measure together: its clock's offset to the collector's, measured
    # NTP-style when it checked in (offset_s NULL when it could not be, with the reason), the
    # round trip of the exchange that set it, and when it was last heard.
    """
    CREATE TABLE class_checkins (
        student TEXT PRIMARY KEY,
        exercise_id TEXT NOT NULL,
        offset_s DOUBLE PRECISION,
        delay_s DOUBLE PRECISION,
        exchanges {bigint} NOT NULL,
        clock_problem TEXT NOT NULL DEFAULT '',
        host TEXT NOT NULL DEFAULT '',
        port {bigint},
        checked_in_at TEXT NOT NULL,
        seen_at DOUBLE PRECISION NOT NULL
    )
    """,
    # One Start together: the plan, the schedule handed out (each slot's stations and start on
    # the collector's clock), the stations as they were when it started (their offsets) and
    # the ones left out with their reasons.
    """
    CREATE TABLE class_together (
        id TEXT PRIMARY KEY,
        exercise_id TEXT NOT NULL DEFAULT '',
        plan_json TEXT NOT NULL,
        schedule_json TEXT NOT NULL,
        stations_json TEXT NOT NULL,
        left_out_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        start_at DOUBLE PRECISION NOT NULL,
        end_at DOUBLE PRECISION NOT NULL
    )
    """,
    "CREATE INDEX class_together_start ON class_together (start_at)",
    # What a station reported of one slot: its per-second figures as they came (part 0, 1, …)
    # and its last word (part -1: how the run ended, its start, its receiver's figures). Each
    # part is stored once.
    """
    CREATE TABLE class_together_reports (
        together_id TEXT NOT NULL REFERENCES class_together (id),
        slot {bigint} NOT NULL,
        student TEXT NOT NULL,
        part {bigint} NOT NULL,
        digest TEXT NOT NULL,
        body_json TEXT NOT NULL,
        received_at TEXT NOT NULL,
        PRIMARY KEY (together_id, slot, student, part)
    )
    """,
]

CLASS_MIGRATIONS: list[list[str]] = [_V1, _V2]
CLASS_SCHEMA_VERSION = len(CLASS_MIGRATIONS)


def meta_statement(dialect: Dialect) -> str:
    return _META.format(bigint=dialect.bigint)


def migration(version: int, dialect: Dialect) -> list[str]:
    """The statements that take the class schema from version to version + 1."""
    return [
        s.format(serial=dialect.serial, bigint=dialect.bigint) for s in CLASS_MIGRATIONS[version]
    ]
