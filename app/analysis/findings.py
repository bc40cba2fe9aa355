"""Findings in sentences whose words match the statistics: a side is "better" only where the
difference is significant (Welch's t-test per point, Holm's correction over the points of a
pair); elsewhere the sentence says there is no significant difference and gives the interval.
Differences of percentages are said in percentage points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.analysis.pairs import (
    ALPHA,
    LOADED_METRICS,
    METRIC_INFO,
    ComparedPoint,
    PairComparison,
)
from app.analysis.pairs import format_difference as amount
from app.domain.net import Direction
from app.domain.units import MINUS, format_p

#: The load a working latency was measured under, as a finding says it.
LOAD_WORDS = {
    Direction.UP: "under upload load",
    Direction.DOWN: "under download load",
    Direction.BIDIR: "under load in both directions",
}

if TYPE_CHECKING:
    from app.analysis.pairs import Comparison


def _where(value: float, unit: str) -> str:
    return f"{value:g} {unit}".strip() if unit else f"{value:g}"


def _interval(metric: str, point: ComparedPoint) -> str:
    assert point.ci_low is not None and point.ci_high is not None

    def signed(v: float) -> str:
        return f"{MINUS if v < 0 else '+'}{amount(metric, v)}"

    return f"95 % CI of the difference {signed(point.ci_low)} … {signed(point.ci_high)}"


def findings(comparison: Comparison) -> list[str]:
    sentences: list[str] = []
    for pair in comparison.pairs:
        sentences += pair_findings(
            pair, comparison.metric, comparison.variable_unit, comparison.variable_label
        )
    for single in comparison.unpaired:
        sentences.append(
            f"{single.label} ({single.session.name or single.session.short_id}) has no partner "
            f"of the same protocol, IP version and direction in the baseline session, so it is "
            f"not compared."
        )
    if not comparison.pairs:
        sentences.append(
            "No series of these sessions can be compared like with like: compare the series "
            "within one session instead, or pick them by name."
        )
    return sentences


def pair_findings(pair: PairComparison, metric: str, unit: str, variable: str) -> list[str]:
    """What one pair shows, point by point, in words that do not overstate it."""
    name, _, higher_is_better = METRIC_INFO[metric]
    base, other = pair.baseline.label, pair.other.label
    measured = [p for p in pair.points if p.difference is not None]
    if not measured:
        return [f"{other} and {base} have no point measured on both sides."]
    tested = pair.tested
    significant = pair.significant
    sentences: list[str] = []
    family = (
        f"Welch's t-test per point, Holm's correction over {len(tested)} points, α = {ALPHA}"
        if len(tested) > 1
        else f"Welch's t-test, α = {ALPHA}"
    )
    if tested:
        sentences.append(
            f"{other} against {base}: {len(significant)} of {len(tested)} "
            f"point{'s' if len(tested) != 1 else ''} differ significantly ({family})."
        )
    for point in sorted(significant, key=lambda p: -abs(p.difference or 0.0))[:3]:
        diff = point.difference or 0.0
        more = "more" if diff > 0 else "less"
        better = (diff > 0) == higher_is_better
        winner, loser = (other, base) if better else (base, other)
        relative = (
            f" ({abs(point.relative_pct):.1f} %)"
            if point.relative_pct is not None and metric not in ("loss_pct",)
            else ""
        )
        assert point.p_holm is not None
        tested_p = f"({_p('p', point.p_value)}, {_p('Holm-adjusted p', point.p_holm)})"
        if metric in LOADED_METRICS:
            # "At 1408 B, under upload load, WPA2 added 212 ms (35.0 %) of working latency
            # against open": latency is what a setting adds, under the load it was measured in.
            load = LOAD_WORDS[pair.other.direction]
            what = (
                f"added {amount(metric, diff)}{relative} of {name} against {base}"
                if diff > 0
                else f"had {amount(metric, diff)}{relative} less {name} than {base}"
            )
            sentences.append(
                f"At {_where(point.value, unit)}, {load}, {other} {what} {tested_p}: "
                f"{winner} is better there than {loser}."
            )
            continue
        sentences.append(
            f"At {_where(point.value, unit)}, {other} had {amount(metric, diff)}{relative} "
            f"{more} {name} than {base} {tested_p}: {winner} is better there than {loser}."
        )
    quiet = [p for p in tested if not p.significant]
    if quiet and not significant:
        largest = max(quiet, key=lambda p: abs(p.difference or 0.0))
        sentences.append(
            f"There is no significant difference in {name} between {other} and {base} at any "
            f"{variable.lower()} measured; the largest, at {_where(largest.value, unit)}, was "
            f"{_signed(metric, largest.difference or 0.0)} ({_interval(metric, largest)}), "
            f"within the run-to-run noise."
        )
    elif quiet:
        for point in quiet:
            sentences.append(
                f"At {_where(point.value, unit)} there is no significant difference between "
                f"{other} and {base}: {_signed(metric, point.difference or 0.0)} "
                f"({_interval(metric, point)}), within the run-to-run noise."
            )
    untested = [p for p in measured if p.significant is None]
    if untested:
        where = ", ".join(_where(p.value, unit) for p in untested)
        sentences.append(
            f"At {where} a side has a single run, so whether {other} and {base} differ there "
            f"cannot be tested: measure more runs there."
        )
    if significant and len({(p.difference or 0) > 0 for p in significant}) == 1:
        diff = significant[0].difference or 0.0
        better = (diff > 0) == higher_is_better
        winner, loser = (other, base) if better else (base, other)
        sentences.append(
            f"Where the difference is significant, {winner} is better than {loser} "
            f"({'higher' if higher_is_better else 'lower'} {name} at {len(significant)} of "
            f"{len(tested)} points)."
        )
    return sentences


def _signed(metric: str, value: float) -> str:
    return f"{MINUS if value < 0 else '+'}{amount(metric, value)}"


def _p(name: str, p: float | None) -> str:
    """'p = 0.047', 'Holm-adjusted p < 0.001'."""
    shown = format_p(p)
    return f"{name} {shown}" if shown.startswith("<") else f"{name} = {shown}"
