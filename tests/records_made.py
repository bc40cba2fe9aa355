"""A stored session's record made in memory, for tests of what reads one (comparisons,
findings) without a database: the plan's own, completed, no runs counted."""

from __future__ import annotations

from app.domain.plan import Plan
from app.domain.records import SessionRecord, SessionStatus


def session_record(plan: Plan, sid: str = "0" * 32, name: str | None = None) -> SessionRecord:
    """The record of a completed session of the plan, under the id sid (and the plan's name
    unless another is given)."""
    return SessionRecord(
        id=sid,
        name=plan.name if name is None else name,
        peer_host=plan.peer.host,
        plan=plan,
        environment={},
        status=SessionStatus.COMPLETED,
        status_reason="",
        created_at="2026-01-01T00:00:00Z",
        started_at=None,
        ended_at=None,
        app_version="test",
        total_runs=0,
        runs_done=0,
        runs_failed=0,
    )
