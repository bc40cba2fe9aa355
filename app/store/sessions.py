"""Reading and writing sessions, runs and samples (one transaction per finished run)."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from app import __version__
from app.domain.errors import BadOption
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Conditions, Plan, RunKey, RunKind
from app.domain.records import RunMetrics, RunRecord, SessionRecord, SessionStatus, utc_now
from app.domain.results import Sample
from app.store.db import Database, StoreError
from app.store.rows import (
    RUN_COLUMNS,
    SESSION_SELECT,
    StoredRun,
    StoredSession,
    insert_run,
    insert_samples,
    owner_alive,
    plain,
    run_from_row,
    session_from_row,
    this_owner,
    upsert_peer,
)

__all__ = ["SessionStore", "StoredRun", "StoredSession"]


class SessionStore:
    """The repository over one Database connection."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- sessions ------------------------------------------------------------------------------
    def create_session(self, plan: Plan, environment: dict[str, Any] | None = None) -> str:
        session_id = uuid.uuid4().hex
        now = utc_now()
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
                (status.value, reason, utc_now(), session_id),
            )

    def mark_interrupted(self) -> int:
        """Sessions left 'running' by a process that no longer exists become 'interrupted'."""
        if self.db.readonly:
            return 0
        rows = self.db.query(
            "SELECT id, owner_host, owner_pid, owner_started FROM sessions WHERE status = 'running'"
        )
        here = socket.gethostname()
        dead = [
            r["id"]
            for r in rows
            if r["owner_host"] in ("", here) and not owner_alive(r["owner_pid"], r["owner_started"])
        ]
        if dead:
            with self.db.transaction() as conn:
                conn.executemany(
                    "UPDATE sessions SET status = 'interrupted', owner_pid = NULL, "
                    "status_reason = 'LinkLab stopped while this session was running.' "
                    "WHERE id = ? AND status = 'running'",
                    [(d,) for d in dead],
                )
        return len(dead)

    def list_sessions(self, search: str = "", status: str | None = None) -> list[SessionRecord]:
        sql = SESSION_SELECT
        params: list[object] = []
        where = []
        if status:
            where.append("s.status = ?")
            params.append(status)
        if search:
            where.append(
                "(s.name LIKE ? OR p.host LIKE ? OR s.conditions_json LIKE ? OR s.id LIKE ?)"
            )
            like = f"%{search}%"
            params += [like, like, like, f"{search}%"]
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " GROUP BY s.id ORDER BY s.created_at DESC"
        return [session_from_row(r) for r in self.db.query(sql, tuple(params))]

    def get(self, ref: str) -> SessionRecord:
        """A session by its id, a unique id prefix (4+ characters) or its exact name."""
        ref = ref.strip()
        rows = []
        if len(ref) >= 4:
            rows = self.db.query(
                SESSION_SELECT + " WHERE s.id LIKE ? GROUP BY s.id", (ref.lower() + "%",)
            )
        if not rows:
            rows = self.db.query(SESSION_SELECT + " WHERE s.name = ? GROUP BY s.id", (ref,))
        if len(rows) > 1:
            raise BadOption(f"{ref!r} matches {len(rows)} sessions: give more of the id.")
        if not rows:
            raise BadOption(
                f"No session {ref!r} in {self.db.path}: `linklab sessions list` shows them."
            )
        return session_from_row(rows[0])

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

    def delete(self, session_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # -- runs ----------------------------------------------------------------------------------
    def add_run(
        self,
        session_id: str,
        key: RunKey,
        value: float,
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
                ended_at=utc_now(),
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

    def import_sessions(self, sessions: Sequence[StoredSession]) -> tuple[list[str], list[str]]:
        """Whole sessions from another database (an exchange file), in one transaction; those
        already here (same id) are skipped. Returns (imported ids, skipped ids)."""
        imported: list[str] = []
        skipped: list[str] = []
        now = utc_now()
        with self.db.transaction() as conn:
            for stored in sessions:
                record = stored.record
                if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (record.id,)).fetchone():
                    skipped.append(record.id)
                    continue
                if record.status is SessionStatus.RUNNING:  # nothing here is running it
                    reason = "It was still running when it was exported."
                    record = replace(record, status=SessionStatus.INTERRUPTED, status_reason=reason)
                peer_id = upsert_peer(conn, record.plan.peer, now)
                conn.execute(
                    "INSERT INTO sessions (id, name, peer_id, plan_json, conditions_json, "
                    "environment_json, status, status_reason, created_at, started_at, ended_at, "
                    "app_version, total_runs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.id,
                        record.name,
                        peer_id,
                        record.plan.to_json(),
                        json.dumps(record.plan.to_dict()["conditions"]),
                        json.dumps(record.environment),
                        record.status.value,
                        record.status_reason,
                        record.created_at,
                        record.started_at,
                        record.ended_at,
                        record.app_version,
                        record.total_runs,
                    ),
                )
                for run in stored.runs:
                    r = run.record
                    run_id = insert_run(
                        conn,
                        record.id,
                        r.key,
                        r.value,
                        ok=r.ok,
                        error_kind=r.error_kind,
                        error=r.error,
                        attempts=r.attempts,
                        started_at=r.started_at,
                        ended_at=r.ended_at,
                        elapsed_s=r.elapsed_s,
                        engine=r.engine,
                        engine_version=r.engine_version,
                        argv=r.argv,
                        raw_output=r.raw_output,
                        flows_json=run.flows_json,
                        metrics=r.metrics,
                    )
                    insert_samples(conn, run_id, run.samples)
                imported.append(record.id)
        return imported, skipped

    def flows(self, session_id: str) -> dict[int, list[Any]]:
        """Each run's per-flow totals as stored (run id -> list of dicts)."""
        rows = self.db.query("SELECT id, flows_json FROM runs WHERE session_id = ?", (session_id,))
        return {r["id"]: json.loads(r["flows_json"] or "[]") for r in rows}

    def runs(self, session_id: str, *, with_raw: bool = False) -> list[RunRecord]:
        raw = "raw_output" if with_raw else "'' AS raw_output"
        rows = self.db.query(
            f"SELECT id, {RUN_COLUMNS.replace('raw_output', raw)} FROM runs "
            "WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        return [run_from_row(r) for r in rows]

    def run(self, session_id: str, run_id: int) -> RunRecord:
        rows = self.db.query(
            f"SELECT id, {RUN_COLUMNS} FROM runs WHERE session_id = ? AND id = ?",
            (session_id, run_id),
        )
        if not rows:
            raise StoreError(f"Run {run_id} of session {session_id[:8]} is not in the database.")
        return run_from_row(rows[0])

    def done_keys(self, session_id: str) -> set[RunKey]:
        rows = self.db.query(
            "SELECT protocol, ip_version, kind, value_index, repetition FROM runs "
            "WHERE session_id = ?",
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
        rows = self.db.query(
            "SELECT flow, start_s, end_s, bits_per_second, bytes, retransmits, rtt_ms, "
            "cwnd_bytes, jitter_ms, lost_packets, packets FROM samples WHERE run_id = ? "
            "ORDER BY seq",
            (run_id,),
        )
        return [
            Sample(
                start_s=r["start_s"],
                end_s=r["end_s"],
                flow=Flow(r["flow"]),
                bits_per_second=r["bits_per_second"],
                bytes=r["bytes"],
                retransmits=r["retransmits"],
                rtt_ms=r["rtt_ms"],
                cwnd_bytes=r["cwnd_bytes"],
                jitter_ms=r["jitter_ms"],
                lost_packets=r["lost_packets"],
                packets=r["packets"],
            )
            for r in rows
        ]
