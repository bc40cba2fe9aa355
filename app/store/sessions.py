"""The sessions of a database, their runs and samples: a session begun, resumed and ended,
listed (those that cannot be read apart), found, renamed and tagged; a finished run stored
whole; runs and samples read (a run written as it is measured: app.store.run_rows)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from app import __version__
from app.domain.errors import BadOption
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Plan, RunKey, RunKind
from app.domain.records import (
    RunMetrics,
    RunRecord,
    SessionList,
    SessionRecord,
    SessionStatus,
)
from app.domain.results import LatencySecond, Sample
from app.domain.units import counted
from app.store.damage import Row, SessionUnreadable, session_from_row, unreadable_sentence
from app.store.db import Database, StoreCorrupt, StoreError
from app.store.latency_seconds import read_seconds
from app.store.rows import (
    INTERRUPTED_REASON,
    RUN_COLUMNS,
    RUN_COUNTS,
    SAMPLE_COLUMNS,
    SESSION_SELECT,
    SESSION_SELECT_BARE,
    StoredRun,
    StoredSession,
    flows_from_json,
    insert_run,
    insert_samples,
    owner_gone,
    placeable_samples,
    plain,
    run_columns_for,
    run_from_row,
    sample_columns_for,
    this_owner,
    upsert_peer,
)
from app.store.stamps import CLOCK, Clock, Stamps
from app.store.trash import Trash, not_deleted

__all__ = ["SessionStore", "StoredRun", "StoredSession"]


class SessionStore:
    """The repository over one Database connection (its sessions' times: app.store.stamps)."""

    def __init__(self, db: Database, clock: Clock = CLOCK) -> None:
        self.db = db
        self._run_columns: str | None = None
        self._sample_columns: str | None = None
        self.stamps = Stamps(clock)

    @property
    def run_columns(self) -> str:
        """The runs' columns to select (NULL for those an older file that is only read
        lacks)."""
        if self._run_columns is None:
            self._run_columns = RUN_COLUMNS  # a writable file was migrated when it opened
            if self.db.readonly:
                try:
                    rows = self.db.query("PRAGMA table_info(runs)")
                except StoreError:
                    return RUN_COLUMNS  # the damage is said where the runs are read
                self._run_columns = run_columns_for({str(r[1]) for r in rows})
        return self._run_columns

    @property
    def sample_columns(self) -> str:
        """The samples' columns to select (an older file that is only read has one
        bits_per_second column: sorted into sent and received)."""
        if self._sample_columns is None:
            self._sample_columns = SAMPLE_COLUMNS
            if self.db.readonly:
                try:
                    rows = self.db.query("PRAGMA table_info(samples)")
                except StoreError:
                    return SAMPLE_COLUMNS
                self._sample_columns = sample_columns_for({str(r[1]) for r in rows})
        return self._sample_columns

    # -- sessions ------------------------------------------------------------------------------
    def create_session(self, plan: Plan, environment: dict[str, Any] | None = None) -> str:
        session_id = uuid.uuid4().hex
        now = self.stamps.begin(session_id)
        host, pid, started = this_owner()
        with self.db.transaction() as conn:
            peer_id = upsert_peer(conn, plan.peer, now)
            conn.execute(
                "INSERT INTO sessions (id, name, peer_id, plan_json, conditions_json, "
                "environment_json, status, created_at, started_at, app_version, total_runs, "
                "owner_host, owner_pid, owner_started) "
                "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    plan.name,
                    peer_id,
                    plan.to_json(),
                    json.dumps(plan.to_dict()["conditions"]),
                    json.dumps(environment or {}),
                    now,
                    now,
                    __version__,
                    plan.total_runs,
                    host,
                    pid,
                    started,
                ),
            )
        return session_id

    def claim(self, session_id: str) -> None:
        """Mark a session as running in this process again (resume)."""
        self.stamps.begin(session_id)
        host, pid, started = this_owner()
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET status = 'running', status_reason = '', ended_at = NULL, "
                "owner_host = ?, owner_pid = ?, owner_started = ? WHERE id = ?",
                (host, pid, started, session_id),
            )

    def finish(self, session_id: str, status: SessionStatus, reason: str = "") -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET status = ?, status_reason = ?, ended_at = ?, "
                "owner_pid = NULL WHERE id = ?",
                (status.value, reason, self.stamps.session_now(conn, session_id), session_id),
            )

    def mark_interrupted(self) -> int:
        """Sessions left 'running' by a process that no longer exists become 'interrupted'."""
        if self.db.readonly:
            return 0
        rows = self.db.query(
            "SELECT id, owner_host, owner_pid, owner_started FROM sessions WHERE status = 'running'"
        )
        dead = [r["id"] for r in rows if owner_gone(r)]
        if dead:
            with self.db.transaction() as conn:
                conn.executemany(
                    "UPDATE sessions SET status = 'interrupted', owner_pid = NULL, "
                    "status_reason = ? WHERE id = ? AND status = 'running'",
                    [(INTERRUPTED_REASON, d) for d in dead],
                )
        return len(dead)

    def list_sessions(self, status: str | None = None) -> list[SessionRecord]:
        """The sessions that can be read, newest first (listing() adds those that cannot)."""
        return list(self.listing(status).sessions)

    def listing(self, status: str | None = None) -> SessionList:
        """Every session (of a status), newest first: those that can be read, and those whose
        plan, status or counts cannot be (each listed, one damaged row hiding none of the
        others). A search of them is the front door's: it matches the words their rows show,
        which are not columns here."""
        params: list[object] = []
        where = [not_deleted(self.db)]
        if status:
            where.append("s.status = ?")
            params.append(status)
        condition = (" WHERE " + " AND ".join(where)) if where else ""
        return self._sessions(condition, tuple(params), " ORDER BY s.created_at DESC")

    def _sessions(self, condition: str, params: tuple[object, ...], order: str = "") -> SessionList:
        """Sessions with their run counts. Where counting meets a damaged page, each session
        is counted on its own, and one whose runs cannot be counted shows none."""
        try:
            rows = self.db.query(SESSION_SELECT + condition + " GROUP BY s.id" + order, params)
            return self._read(rows)
        except StoreCorrupt:
            rows = self.db.query(SESSION_SELECT_BARE + condition + order, params)
        counted = []
        for row in rows:
            values = dict(zip(row.keys(), row, strict=True))
            try:
                (counts,) = self.db.query(RUN_COUNTS, (values["id"],))
            except StoreCorrupt:
                counted.append(values)
                continue
            counted.append(values | dict(zip(counts.keys(), counts, strict=True)))
        return self._read(counted)

    def _read(self, rows: Sequence[Row]) -> SessionList:
        sessions, unreadable = [], []
        for row in rows:
            try:
                session = session_from_row(row, self.db.path)
            except SessionUnreadable as err:
                unreadable.append(err.listed)
                continue
            if self.db.readonly and session.status is SessionStatus.RUNNING and owner_gone(row):
                # What mark_interrupted() would write, said where nothing can be written.
                session = replace(
                    session, status=SessionStatus.INTERRUPTED, status_reason=INTERRUPTED_REASON
                )
            sessions.append(session)
        return SessionList(tuple(sessions), tuple(unreadable))

    def get(self, ref: str, *, deleted: bool = False) -> SessionRecord:
        """A session by its id, a unique id prefix (4+ characters) or its exact name; one
        deleted (and not yet gone) only when deleted is True. SessionUnreadable (its sentence
        naming `linklab doctor`) when the one it names cannot be read."""
        ref = ref.strip()
        found = SessionList(())
        shown = "" if deleted else f" AND {not_deleted(self.db)}"
        if len(ref) >= 4:
            found = self._sessions(" WHERE s.id LIKE ?" + shown, (ref.lower() + "%",))
        if not found.sessions and not found.unreadable:
            found = self._sessions(" WHERE s.name = ?" + shown, (ref,))
        matches = len(found.sessions) + len(found.unreadable)
        if matches > 1:
            raise BadOption(f"{ref!r} matches {counted(matches, 'session')}: give more of the id.")
        if found.unreadable:
            (listed,) = found.unreadable
            raise SessionUnreadable(unreadable_sentence(listed, self.db.path), listed)
        if not found.sessions:
            raise BadOption(
                f"No session {ref!r} in {self.db.path}: `linklab sessions list` shows them."
            )
        return found.sessions[0]

    def deleted_since(self, since: str) -> list[tuple[SessionRecord, str]]:
        """The sessions deleted since that moment (not yet gone), each with when, newest
        first; one damaged since it was deleted is left out (it goes when its time ends)."""
        found = []
        for session_id, when in Trash(self.db).deleted(since):
            try:
                found.append((self.get(session_id, deleted=True), when))
            except SessionUnreadable:
                continue
        return found

    def rename(self, session_id: str, name: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE sessions SET name = ? WHERE id = ?", (name[:200], session_id))

    def set_conditions(self, session_id: str, conditions: Conditions) -> None:
        record = self.get(session_id)
        plan = replace(record.plan, conditions=conditions)
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET conditions_json = ?, plan_json = ? WHERE id = ?",
                (json.dumps(plan.to_dict()["conditions"]), plan.to_json(), session_id),
            )

    # -- runs ----------------------------------------------------------------------------------
    def add_run(
        self,
        session_id: str,
        key: RunKey,
        value: float | str,
        *,
        metrics: RunMetrics | None,
        samples: Sequence[Sample] = (),
        error_kind: str = "",
        error: str = "",
        attempts: int = 1,
        started_at: str,
        elapsed_s: float | None,
        engine: str,
        engine_version: str = "",
        argv: Sequence[str] = (),
        raw_output: str = "",
        flows: Iterable[object] = (),
    ) -> int:
        """Store one finished (or failed) run and its samples in one transaction."""
        metrics = metrics or RunMetrics()
        with self.db.transaction() as conn:
            run_id = insert_run(
                conn,
                session_id,
                key,
                value,
                ok=not error,
                error_kind=error_kind,
                error=error,
                attempts=attempts,
                started_at=started_at,
                ended_at=self.stamps.now(session_id).iso,
                elapsed_s=elapsed_s,
                engine=engine,
                engine_version=engine_version,
                argv=argv,
                raw_output=raw_output,
                flows_json=json.dumps([plain(f) for f in flows]),
                metrics=metrics,
            )
            insert_samples(conn, run_id, samples)
        return run_id

    def flows(self, session_id: str) -> dict[int, list[Any]]:
        """Each run's per-flow totals as stored (run id -> list of dicts)."""
        rows = self.db.query("SELECT id, flows_json FROM runs WHERE session_id = ?", (session_id,))
        return {r["id"]: flows_from_json(r["flows_json"]) for r in rows}

    def runs(
        self, session_id: str, *, with_raw: bool = False, partial: bool = False
    ) -> list[RunRecord]:
        """The session's finished runs (ok and failed); with partial=True also the runs that
        never finished, each marked partial."""
        # As bytes, so that damaged bytes in it cannot stop a read (see run_from_row).
        raw = "CAST(raw_output AS BLOB) AS raw_output" if with_raw else "'' AS raw_output"
        finished = "" if partial else " AND status != 'partial'"
        rows = self.db.query(
            f"SELECT id, {self.run_columns.replace('raw_output', raw)} FROM runs "
            f"WHERE session_id = ?{finished} ORDER BY id",
            (session_id,),
        )
        return [run_from_row(r) for r in rows]

    def run(self, session_id: str, run_id: int, *, with_raw: bool = True) -> RunRecord:
        # As bytes, as runs() reads it: damaged bytes are then replaced and named.
        raw = "CAST(raw_output AS BLOB) AS raw_output" if with_raw else "'' AS raw_output"
        columns = self.run_columns.replace("raw_output", raw)
        rows = self.db.query(
            f"SELECT id, {columns} FROM runs WHERE session_id = ? AND id = ?", (session_id, run_id)
        )
        if not rows:
            raise StoreError(f"Run {run_id} of session {session_id[:8]} is not in the database.")
        return run_from_row(rows[0])

    def done_keys(self, session_id: str) -> set[RunKey]:
        """The runs that need measuring no more: those that ended ok. A failed run is measured
        again when the session is resumed (and a partial one, which never ended)."""
        rows = self.db.query(
            "SELECT protocol, ip_version, kind, value_index, repetition FROM runs "
            "WHERE session_id = ? AND status = 'ok'",
            (session_id,),
        )
        return {
            RunKey(
                Protocol(r["protocol"]),
                IpVersion(r["ip_version"]),
                r["value_index"],
                r["repetition"],
                RunKind(r["kind"]),
            )
            for r in rows
        }

    def samples(self, run_id: int) -> list[Sample]:
        sql = f"SELECT {self.sample_columns} FROM samples WHERE run_id = ? ORDER BY seq"
        return placeable_samples(self.db.query(sql, (run_id,)))

    def latency_seconds(self, run_id: int) -> list[LatencySecond]:
        """The run's working latency under load per second, in order (none before schema
        12, or without working latency)."""
        return read_seconds(self.db, run_id)

    def sample_batches(self, run_id: int) -> Iterator[list[Sample]]:
        """A run's samples in order, a batch at a time (as samples(), in bounded memory)."""
        sql = f"SELECT {self.sample_columns} FROM samples WHERE run_id = ? ORDER BY seq"
        for rows in self.db.batches(sql, (run_id,)):
            yield placeable_samples(rows)
