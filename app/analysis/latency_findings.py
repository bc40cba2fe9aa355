"""Findings on working latency within one session: how much longer a probe waited with the link
loaded than idle, per series, where the queue grew most. (Between sessions, what a setting added
is said with the comparison's findings, in app.analysis.findings.)"""

from __future__ import annotations

from collections.abc import Sequence

from app.analysis.expected_findings import efficiency_findings
from app.analysis.pair_findings import LOAD_WORDS
from app.analysis.points import PointSummary
from app.domain.plan import Plan
from app.domain.plan_fields import point_text, variable_words


def _ms(value: float) -> str:
    return f"{value:.2f} ms" if value < 10 else f"{value:.0f} ms"


def latency_findings(plan: Plan, points: Sequence[PointSummary]) -> list[str]:
    """Per series, at the point with the longest loaded latency: loaded against idle, as
    milliseconds and as a multiple. Empty when the session did not measure working latency."""
    label = variable_words(plan.variable)
    sentences = []
    for series in plan.series:
        measured = [
            (p, p.metrics["latency_ms"].mean, p.metrics["latency_idle_ms"].mean)
            for p in points
            if p.series == series and "latency_ms" in p.metrics and "latency_idle_ms" in p.metrics
        ]
        pairs = [(p, loaded, idle) for p, loaded, idle in measured if loaded and idle]
        if not pairs:
            continue
        point, loaded, idle = max(pairs, key=lambda m: m[1])
        where = "" if plan.is_monitor else f" at {label} {point_text(plan.variable, point.value)}"
        load = LOAD_WORDS[point.direction]
        times = loaded / idle
        change = (
            f"{times:.0f} times its idle {_ms(idle)}"
            if times >= 2
            else f"against {_ms(idle)} idle: the queue stayed short"
        )
        sentences.append(
            f"{series.label}: {load}, a probe waited {_ms(loaded)}{where} (mean of the "
            f"runs' medians), {change}."
        )
    return sentences


def session_findings(plan: Plan, points: Sequence[PointSummary]) -> list[str]:
    """The sentences a session's own results earn: the share of the expected goodput (with a
    link rate stated) and the working latency under load (when measured)."""
    return efficiency_findings(plan, points) + latency_findings(plan, points)
