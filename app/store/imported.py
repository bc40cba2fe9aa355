"""Whole sessions brought in from another database (a recovered file, an exchange file read
into memory): one transaction, a session already here kept as it is; and the rows of one
session and one run as every import writes them (app.store.incoming streams a file's)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import replace

from app.domain.records import RunRecord, SessionRecord, SessionStatus, utc_now
from app.store.db import Database
from app.store.latency_seconds import insert_seconds
from app.store.rows import StoredSession, insert_run, insert_samples, upsert_peer
from app.store.trash import FORGET_DELETED

__all__ = ["import_sessions", "insert_session", "insert_stored_run"]

RUNNING_REASON = "It was still running when it was exported."


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
            insert_session(conn, record, record.id, now, None)
            for run in stored.runs:
                run_id = insert_stored_run(conn, record.id, run.record, run.flows_json)
                insert_samples(conn, run_id, run.samples)
                insert_seconds(conn, run_id, run.seconds)
            imported.append(record.id)
    return imported, skipped


def insert_session(
    conn: sqlite3.Connection, record: SessionRecord, as_id: str, now: str, deleted: str | None
) -> None:
    """A session's row under the id as_id, deleted at `deleted` (None: shown); its peer's
    row made or updated. One running elsewhere arrives as interrupted."""
    if record.status is SessionStatus.RUNNING:  # nothing here is running it
        record = replace(record, status=SessionStatus.INTERRUPTED, status_reason=RUNNING_REASON)
    peer_id = upsert_peer(conn, record.plan.peer, now)
    conn.execute(
        "INSERT INTO sessions (id, name, peer_id, plan_json, conditions_json, "
        "environment_json, status, status_reason, created_at, started_at, ended_at, "
        "app_version, total_runs, deleted_at, clock_step_s) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            as_id,
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
            deleted,
            record.clock_step_s,
        ),
    )


def insert_stored_run(
    conn: sqlite3.Connection, session_id: str, r: RunRecord, flows_json: str
) -> int:
    """A run's row as another database held it; its id here."""
    return insert_run(
        conn,
        session_id,
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
        flows_json=flows_json,
        metrics=r.metrics,
        clock_step_s=r.clock_step_s,
    )
