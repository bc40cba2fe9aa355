"""A monitor's session as it grows: how many runs it has chained so far, kept in its plan
(its repetitions) and its count of runs, with the tables as they are."""

from __future__ import annotations

from app.store.db import Database


def count_monitor_runs(db: Database, session_id: str, runs: int) -> None:
    """The monitor has started its run number `runs`: its plan and its count say so, so that
    a monitor that is killed reads as the runs it began (the last one unfinished)."""
    with db.transaction() as conn:
        conn.execute(
            "UPDATE sessions SET plan_json = json_set(plan_json, '$.repetitions', ?), "
            "total_runs = ? WHERE id = ?",
            (runs, runs, session_id),
        )
