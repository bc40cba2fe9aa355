"""Whole sessions brought in from another database (an exchange file, a recovered file): one
transaction, a session already here kept as it is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from app.domain.records import SessionStatus, utc_now
from app.store.db import Database
from app.store.latency_seconds import insert_seconds
from app.store.rows import StoredSession, insert_run, insert_samples, upsert_peer
from app.store.trash import FORGET_DELETED

__all__ = ["import_sessions"]


def import_sessions(db: Database, sessions: Sequence[StoredSession]) -> tuple[list[str], list[str]]:
    """Whole sessions from another database (an exchange file), in one transaction; those
    already here (same id) are skipped. Returns (imported ids, skipped ids)."""
    imported: list[str] = []
    skipped: list[str] = []
    now = utc_now()
    with db.transaction() as conn:
        for stored in sessions:
            record = stored.record
            conn.execute(FORGET_DELETED, (record.id,))  # deleted here: the file's copy
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
                    partial=r.partial,
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
                insert_seconds(conn, run_id, run.seconds)
            imported.append(record.id)
    return imported, skipped
