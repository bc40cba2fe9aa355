"""Where a sweep stands, worked out from the runs stored so far: whether a point is already
precise enough (the plan's early stop), the point's summary as it grows, and the progress
with its time left."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from app.analysis.points import summarize_point
from app.analysis.stats import precise_enough, summarize
from app.domain.plan import Plan, RunKey, RunKind, as_point
from app.domain.records import RunRecord
from app.study.sweep.events import PointUpdated, Progress

__all__ = ["point_settled", "point_updated", "points_so_far", "progress"]


def _point_runs(records: Sequence[RunRecord], key: RunKey) -> list[RunRecord]:
    return [
        r
        for r in records
        if r.ok
        and r.key.series == key.series
        and r.key.value_index == key.value_index
        and r.key.kind is key.kind
    ]


def point_settled(plan: Plan, records: Sequence[RunRecord], key: RunKey) -> bool:
    """Early stop: this point is already precise enough, so its remaining runs are skipped."""
    rule = plan.early_stop
    if rule is None:
        return False
    metric = [
        r.metrics.rtt_mean_ms if key.kind is RunKind.RR else r.metrics.throughput_bps
        for r in _point_runs(records, key)
    ]
    return precise_enough(summarize(metric), rule.relative_ci, rule.min_runs)


def point_updated(plan: Plan, records: list[RunRecord], key: RunKey) -> PointUpdated:
    """The point of key as its runs so far summarise it."""
    here = [
        r for r in records if r.key.series == key.series and r.key.value_index == key.value_index
    ]
    runs, metrics = summarize_point(here)
    value = as_point(plan.values[key.value_index])
    return PointUpdated(key.series, value, metrics, runs, point_settled(plan, records, key))


def points_so_far(plan: Plan, records: Sequence[RunRecord]) -> list[PointUpdated]:
    """Every point the stored runs reach (a resumed session's), in the plan's order: shown
    from the start, the session's old runs beside its new ones."""
    reached = {(r.key.series, r.key.value_index) for r in records}
    updated = []
    for key in plan.run_keys():
        if (key.series, key.value_index) in reached:
            reached.discard((key.series, key.value_index))
            updated.append(point_updated(plan, list(records), key))
    return updated


def progress(
    plan: Plan, finished: int, total: int, durations: list[float], remaining: int, key: RunKey
) -> Progress:
    """How far the sweep is, and the time left from the last twenty runs' pace."""
    eta = None
    if durations:
        eta = statistics.fmean(durations[-20:]) * remaining + plan.pause_s * remaining
    return Progress(
        done=finished,
        total=total,
        eta_s=eta,
        point=key.value_index + 1,
        points=len(plan.values),
        repetition=key.repetition,
        repetitions=plan.repetitions,
        series=key.series.label,
    )
