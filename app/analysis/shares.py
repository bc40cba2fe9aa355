"""Shares of a link: for series run at the same time, who got what of the throughput."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.analysis.points import point_summaries
from app.domain.plan import Plan, PointValue, Series, as_point
from app.domain.records import RunRecord


@dataclass(frozen=True)
class Share:
    series: Series
    mean_bps: float
    share_pct: float


@dataclass(frozen=True)
class PointShares:
    value: PointValue
    total_bps: float
    shares: list[Share]


def link_shares(plan: Plan, runs: Sequence[RunRecord]) -> list[PointShares]:
    """Per point, each series' mean throughput and its share of the sum (concurrent plans;
    for sequential ones the series never competed, so there is nothing to share)."""
    if not plan.concurrent:
        return []
    found = []
    points = point_summaries(plan, runs)
    for value in plan.values:
        here = [p for p in points if p.value == value]
        means = [(p.series, p.metrics["throughput_bps"].mean) for p in here]
        known = [(series, mean) for series, mean in means if mean is not None]
        total = sum(mean for _, mean in known)
        if not known or total <= 0:
            continue
        found.append(
            PointShares(
                as_point(value),
                total,
                [Share(series, mean, 100.0 * mean / total) for series, mean in known],
            )
        )
    return found
