"""A class collected live, kept in SQLite (the instructor's own database, by default) or in a
department's PostgreSQL: one push stored in one transaction (or not at all), each run once by
its id, and the light rows the class view is built from. The same statements serve both; the
schema is created or migrated on first use (app.store.class_schema)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from app.domain.errors import LinkLabError
from app.domain.records import utc_now
from app.store.class_schema import (
    CLASS_SCHEMA_VERSION,
    Dialect,
    meta_statement,
    migration,
)
from app.store.class_together import TogetherTables
from app.store.db import StoreError

__all__ = [
    "ClassRows",
    "ClassStore",
    "ClassStoreDown",
    "PushRow",
    "PutOutcome",
    "RunRow",
    "SessionRow",
]

#: A PostgreSQL lock number of LinkLab's own: one migration at a time.
MIGRATION_LOCK = 0x4C696E6B


class _Refused(Exception):
    """A push the store will not take: raised to roll its transaction back."""

    def __init__(self, outcome: PutOutcome, whose: str) -> None:
        super().__init__(outcome.value)
        self.outcome = outcome
        self.whose = whose


class ClassStoreDown(StoreError):
    """The class's database cannot be reached now (a stopped PostgreSQL): try again later."""

    transient = True


@dataclass(frozen=True)
class SessionRow:
    id: str
    seq: int
    header_json: str  # the session as an exchange file holds it, without its runs


@dataclass(frozen=True)
class RunRow:
    run_id: str
    digest: str
    raw_digest: str | None
    light_json: str  # the run without raw output, samples and flows
    altered: bool
    marks_json: str
    raw_output: str
    samples_json: str
    flows_json: str


@dataclass(frozen=True)
class PushRow:
    """What one push writes, checked already."""

    exercise_id: str
    student: str
    group: str
    exercise_json: str
    seq: int
    answers_json: str | None = None
    session: SessionRow | None = None
    run: RunRow | None = None


class PutOutcome(StrEnum):
    STORED = "stored"
    ALREADY = "already"  # the same run again (a resend): nothing new
    CONFLICT = "conflict"  # a run of this id is stored with other figures
    REPLAY = "replay"  # this measurement is stored under another run
    FOREIGN = "foreign"  # the session belongs to another student


@dataclass(frozen=True)
class ClassRows:
    """Everything the class view of one exercise reads, in plain rows."""

    work: list[dict[str, Any]]  # exercise_id, student, group_name, exercise_json, answers_json
    sessions: list[dict[str, Any]]  # id, student, header_json
    runs: list[dict[str, Any]]  # id, session_id, light_json, altered, marks_json


class Connection(Protocol):
    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def close(self) -> None: ...


class ClassStore(TogetherTables):
    """One class store; each thread gets a connection of its own (the collector's workers
    write at once; the database orders them)."""

    def __init__(self, dialect: Dialect, where: str) -> None:
        self.dialect = dialect
        self.where = where  # for sentences: a path, or the URL without its password
        self._local = threading.local()
        self._all: list[Connection] = []
        self._all_lock = threading.Lock()
        with self._transaction(migrating=True) as conn:
            self._migrate(conn)

    # -- connections (each backend) ------------------------------------------------------------
    def _connect(self) -> Connection:
        raise NotImplementedError

    def _begin(self, conn: Connection) -> None:
        raise NotImplementedError

    def _translate(self, err: Exception) -> LinkLabError | None:
        raise NotImplementedError

    def _conn(self) -> Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    def _forget(self) -> None:
        """Drop this thread's connection (after the server went away): the next use
        connects again."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            with self._all_lock, contextlib.suppress(ValueError):
                self._all.remove(conn)
            with contextlib.suppress(Exception):
                conn.close()

    @contextlib.contextmanager
    def _transaction(self, migrating: bool = False) -> Iterator[Connection]:
        try:
            conn = self._conn()
            self._begin(conn)
        except Exception as err:
            self._forget()
            raise self._said(err) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as err:
            try:
                conn.execute("ROLLBACK")
            except Exception:  # the connection itself is gone: a new one next time
                self._forget()
            if isinstance(err, Exception) and not isinstance(err, LinkLabError):
                said = self._translate(err)
                if said is not None:
                    if isinstance(said, ClassStoreDown):
                        self._forget()
                    raise said from None
            raise

    def _said(self, err: Exception) -> LinkLabError:
        said = self._translate(err)
        if said is None:
            raise err
        return said

    def _run(self, conn: Connection, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return conn.execute(self.dialect.sql(sql), params)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self._transaction() as conn:
            cursor = self._run(conn, sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def close(self) -> None:
        with self._all_lock:
            connections, self._all = self._all, []
        for conn in connections:
            with contextlib.suppress(Exception):
                conn.close()
        self._local = threading.local()

    # -- schema ------------------------------------------------------------------------------
    def _migrate(self, conn: Connection) -> None:
        self._run(conn, meta_statement(self.dialect))
        row = self._run(conn, "SELECT value FROM class_meta WHERE name = 'schema'").fetchone()
        version = int(row[0]) if row else 0
        if version > CLASS_SCHEMA_VERSION:
            raise StoreError(
                f"The class tables in {self.where} were written by a newer LinkLab (class "
                f"schema {version}; this version knows up to {CLASS_SCHEMA_VERSION}): update "
                f"LinkLab on this computer, or choose another --store."
            )
        while version < CLASS_SCHEMA_VERSION:
            for statement in migration(version, self.dialect):
                self._run(conn, statement)
            version += 1
        self._run(
            conn,
            "INSERT INTO class_meta (name, value) VALUES ('schema', ?) "
            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (version,),
        )
        for counter in ("changes", "together"):
            self._run(
                conn,
                "INSERT INTO class_meta (name, value) VALUES (?, 0) ON CONFLICT (name) DO NOTHING",
                (counter,),
            )

    # -- writing -----------------------------------------------------------------------------
    def put(self, push: PushRow) -> tuple[PutOutcome, str]:
        """Store one push in one transaction. Returns the outcome and, for a replay or a
        session of another student's, whose. Nothing is written unless the outcome is STORED
        or ALREADY (and for ALREADY only a newer session status or newer answers)."""
        try:
            return self._put(push)
        except _Refused as refused:
            return refused.outcome, refused.whose

    def _put(self, push: PushRow) -> tuple[PutOutcome, str]:
        now = utc_now()
        with self._transaction() as conn:
            # Every push counts a change first: the row lock it takes also puts concurrent
            # pushes in order, so the checks below see every push committed before it.
            self._run(conn, "UPDATE class_meta SET value = value + 1 WHERE name = 'changes'")
            self._run(
                conn,
                "INSERT INTO class_work (exercise_id, student, group_name, exercise_json, "
                "updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (exercise_id, student) DO "
                "UPDATE SET group_name = excluded.group_name, updated_at = excluded.updated_at",
                (push.exercise_id, push.student, push.group, push.exercise_json, now),
            )
            if push.answers_json is not None:
                self._run(
                    conn,
                    "UPDATE class_work SET answers_json = ?, answers_seq = ? WHERE "
                    "exercise_id = ? AND student = ? AND answers_seq < ?",
                    (push.answers_json, push.seq, push.exercise_id, push.student, push.seq),
                )
            if push.session is None:
                return PutOutcome.STORED, ""
            session = push.session
            owner = self._run(
                conn, "SELECT exercise_id, student FROM class_sessions WHERE id = ?", (session.id,)
            ).fetchone()
            if owner is not None and tuple(owner) != (push.exercise_id, push.student):
                raise _Refused(PutOutcome.FOREIGN, str(owner[1]))
            outcome = PutOutcome.STORED
            if push.run is not None:
                outcome, whose = self._check_run(conn, push.run)
                if outcome not in (PutOutcome.STORED, PutOutcome.ALREADY):
                    raise _Refused(outcome, whose)
            self._run(
                conn,
                "INSERT INTO class_sessions (id, exercise_id, student, seq, header_json, "
                "received_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                "seq = excluded.seq, header_json = excluded.header_json, received_at = "
                "excluded.received_at WHERE class_sessions.seq < excluded.seq",
                (
                    session.id,
                    push.exercise_id,
                    push.student,
                    session.seq,
                    session.header_json,
                    now,
                ),
            )
            if push.run is not None and outcome is PutOutcome.STORED:
                run = push.run
                self._run(
                    conn,
                    "INSERT INTO class_runs (run_id, session_id, exercise_id, digest, "
                    "raw_digest, light_json, altered, marks_json, raw_output, samples_json, "
                    "flows_json, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run.run_id,
                        session.id,
                        push.exercise_id,
                        run.digest,
                        run.raw_digest,
                        run.light_json,
                        int(run.altered),
                        run.marks_json,
                        run.raw_output,
                        run.samples_json,
                        run.flows_json,
                        now,
                    ),
                )
            return outcome, ""

    def _check_run(self, conn: Connection, run: RunRow) -> tuple[PutOutcome, str]:
        same = self._run(
            conn, "SELECT digest FROM class_runs WHERE run_id = ?", (run.run_id,)
        ).fetchone()
        if same is not None:
            return (PutOutcome.ALREADY if same[0] == run.digest else PutOutcome.CONFLICT), ""
        if run.raw_digest is not None:
            other = self._run(
                conn,
                "SELECT s.student FROM class_runs r JOIN class_sessions s ON s.id = r.session_id "
                "WHERE r.raw_digest = ?",
                (run.raw_digest,),
            ).fetchone()
            if other is not None:
                return PutOutcome.REPLAY, str(other[0])
        return PutOutcome.STORED, ""

    # -- reading -----------------------------------------------------------------------------
    def changes(self) -> int:
        """A number that grows with every push stored: the class view is current while it
        stays the same."""
        rows = self._rows("SELECT value FROM class_meta WHERE name = 'changes'")
        return int(rows[0]["value"]) if rows else 0

    def exercises(self) -> list[dict[str, Any]]:
        """Per exercise: its id, the exercise as first pushed and how many students."""
        return self._rows(
            "SELECT exercise_id, min(exercise_json) AS exercise_json, count(*) AS students "
            "FROM class_work GROUP BY exercise_id ORDER BY count(*) DESC, exercise_id"
        )

    def class_rows(self, exercise_id: str) -> ClassRows:
        """The rows of one exercise's class view, read in one transaction."""
        with self._transaction() as conn:
            found = []
            for sql in (
                "SELECT exercise_id, student, group_name, exercise_json, answers_json, "
                "updated_at FROM class_work WHERE exercise_id = ?",
                "SELECT id, student, header_json FROM class_sessions WHERE exercise_id = ?",
                "SELECT id, session_id, light_json, altered, marks_json FROM class_runs "
                "WHERE exercise_id = ? ORDER BY id",
            ):
                cursor = self._run(conn, sql, (exercise_id,))
                names = [d[0] for d in cursor.description]
                found.append([dict(zip(names, r, strict=True)) for r in cursor.fetchall()])
        return ClassRows(*found)

    def counts(self) -> dict[str, int]:
        """How many rows each class table holds (the collector's status, and tests)."""
        found = {}
        for table in ("class_work", "class_sessions", "class_runs"):
            rows = self._rows(f"SELECT count(*) AS n FROM {table}")  # noqa: S608 (fixed names)
            found[table.removeprefix("class_")] = int(rows[0]["n"])
        return found

    def run_ids(self) -> list[str]:
        return [r["run_id"] for r in self._rows("SELECT run_id FROM class_runs ORDER BY id")]

    # -- the pool of engine servers ------------------------------------------------------------
    def announce_pool(self, host: str, ports: list[int], engine: str, shared: bool) -> None:
        """The servers at host are now these (a pool announced again replaces its ports)."""
        now = utc_now()
        with self._transaction() as conn:
            self._run(conn, "DELETE FROM class_pool WHERE host = ?", (host,))
            for port in ports:
                self._run(
                    conn,
                    "INSERT INTO class_pool (host, port, engine, shared, announced_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (host, port, engine, int(shared), now),
                )
            self._run(conn, "UPDATE class_meta SET value = value + 1 WHERE name = 'changes'")

    def station(self, student: str) -> tuple[str, int, str] | None:
        """(host, port, engine) of the server this student measures against: the one given
        before while the pool still has it, else the first port no other student has (the one
        port of a shared server for everyone); None when no pool was announced or every
        port is taken."""
        with self._transaction() as conn:
            pools = self._run(
                conn,
                "SELECT host, port, engine, shared FROM class_pool ORDER BY announced_at DESC, "
                "host, port",
            ).fetchall()
            if not pools:
                return None
            mine = self._run(
                conn, "SELECT host, port FROM class_stations WHERE student = ?", (student,)
            ).fetchone()
            for host, port, engine, _shared in pools:
                if mine is not None and (host, port) == tuple(mine):
                    return str(host), int(port), str(engine)
            taken = {
                (str(h), int(p))
                for h, p in self._run(conn, "SELECT host, port FROM class_stations").fetchall()
            }
            for host, port, engine, shared in pools:
                if shared or (str(host), int(port)) not in taken:
                    self._run(
                        conn,
                        "INSERT INTO class_stations (student, host, port, assigned_at) VALUES "
                        "(?, ?, ?, ?) ON CONFLICT (student) DO UPDATE SET host = excluded.host, "
                        "port = excluded.port, assigned_at = excluded.assigned_at",
                        (student, host, port, utc_now()),
                    )
                    return str(host), int(port), str(engine)
            return None
