"""Findings in sentences whose words match the statistics: a side is "better" only where the
difference is significant (Welch's t-test per point, Holm's correction over the points of a
pair); elsewhere the sentence says there is no significant difference and gives the interval.
Differences of percentages are said in percentage points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.analysis.expectation import (
    NoExpectation,
    expectation_problem,
    link_inputs,
    value_text,
)
from app.analysis.overhead import WIFI, OverheadError, security_cost
from app.analysis.pairs import (
    ALPHA,
    LOADED_METRICS,
    METRIC_INFO,
    ComparedPoint,
    PairComparison,
)
from app.analysis.pairs import format_difference as amount
from app.analysis.wifi_overhead import CIPHER_BYTES, SECURITY_CIPHER
from app.domain.net import Direction
from app.domain.plan import Security
from app.domain.units import MINUS, format_p, format_rate, plain_rate, signed

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
    sentences += security_findings(comparison)
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


# -- security between sessions --------------------------------------------------------------


def _cipher_words(security: Security) -> str:
    cipher = SECURITY_CIPHER.get(security)
    if cipher is None or not CIPHER_BYTES[cipher]:
        return "none"
    return f"{cipher.value} {CIPHER_BYTES[cipher]} B"


def _comparable(pair: PairComparison) -> str | None:
    """Why the extra bytes cannot be weighed for this pair (None: they can)."""
    base, other = pair.baseline.session.plan, pair.other.session.plan
    a, b = base.conditions, other.conditions
    if Security.UNKNOWN in (a.security, b.security) or a.security is b.security:
        return "security"
    if a.link_rate_bps is None or a.link_rate_bps != b.link_rate_bps:
        return "link rate"
    if a.medium not in WIFI or a.medium is not b.medium:
        return "medium"
    if a.frame_overhead is not None or b.frame_overhead is not None:
        return "frame overhead"
    if expectation_problem(base) or expectation_problem(other):
        return "plan"
    return None


def _chosen(pair: PairComparison) -> ComparedPoint | None:
    """The largest significant difference, else the largest point measured on both sides."""
    measured = [p for p in pair.points if p.difference is not None]
    significant = [p for p in measured if p.significant]
    if significant:
        return max(significant, key=lambda p: abs(p.difference or 0.0))
    return max(measured, key=lambda p: p.value) if measured else None


def security_findings(comparison: Comparison) -> list[str]:
    """For each pair of sessions stated as Wi-Fi at one link rate under different security:
    what the extra bytes per frame cost by the model, against the measured difference."""
    if comparison.metric != "throughput_bps":
        return []
    sentences = []
    for pair in comparison.pairs:
        if _comparable(pair) is not None:
            continue
        point = _chosen(pair)
        if point is None:
            continue
        sentence = _security_sentence(pair, point)
        if sentence:
            sentences.append(sentence)
    return sentences


def _security_sentence(pair: PairComparison, point: ComparedPoint) -> str | None:
    base_plan = pair.baseline.session.plan
    sec_a = base_plan.conditions.security
    sec_b = pair.other.session.plan.conditions.security
    try:
        spec = link_inputs(base_plan, pair.baseline.series, point.value)
        cost = security_cost(spec, sec_a, sec_b)
    except (NoExpectation, OverheadError):
        return None
    base, other = pair.baseline.label, pair.other.label
    where = value_text(base_plan, point.value)
    bytes_words = f"{sec_b.value}: {_cipher_words(sec_b)}; {sec_a.value}: {_cipher_words(sec_a)}"
    model = (
        f"expected {format_rate(cost.expected_a.expected_bps, 4)} → "
        f"{format_rate(cost.expected_b.expected_bps, 4)} at "
        f"{plain_rate(base_plan.conditions.link_rate_bps or 0)}"
    )
    drop = -(point.difference or 0.0)  # baseline − other, as the model's a − b
    measured = format_rate(abs(drop))
    if point.significant is None:
        noise = "a side has a single run there, so the measured difference cannot be tested"
        untold = "but a side has a single run there: measure more runs to tell how much of it"
    else:
        noise = "the measured difference is within the run-to-run noise"
        untold = "within the run-to-run noise, so it cannot be told how much of it"
    if abs(cost.difference_bps) < 1.0:
        said = (
            f"At {where} the security bytes of each frame ({bytes_words}) cost nothing by the "
            f"model: they fit in the padding of the last data symbol ({model})"
        )
        if point.significant:
            return (
                f"{said}; the measured difference of {measured} comes from elsewhere: air "
                "time, retries, encryption work on the hosts."
            )
        return f"{said}, and {noise}."
    costs = (
        f"the extra bytes per frame ({bytes_words}) cost "
        f"{format_rate(abs(cost.difference_bps))} by the model ({model})"
    )
    if not point.significant:
        difference = point.difference or 0.0
        shown = signed(format_rate(abs(difference)), difference < 0, plus=True)
        return (
            f"At {where}, {costs}; {other} against {base} measured {shown}, {untold} the "
            "bytes explain."
        )
    if (drop > 0) != (cost.difference_bps > 0):
        heavier = other if cost.difference_bps > 0 else base
        return (
            f"At {where}, {costs}, yet {heavier}, with more bytes per frame, measured "
            f"{measured} more: the difference comes from elsewhere (the channel, other "
            "stations, retries), not from the security's bytes."
        )
    share = cost.explained_share(drop) or 0.0
    if share >= 1.0:
        return (
            f"At {where}, {costs}: they explain all of the {measured} measured between "
            f"{other} and {base}."
        )
    left = abs(drop) - abs(cost.difference_bps)
    return (
        f"At {where}, {costs}: they explain {share * 100:.0f} % of the {measured} measured "
        f"between {other} and {base}; the "
        f"other {format_rate(left)} ({(1 - share) * 100:.0f} %) is not in the headers: air "
        "time, retries, encryption work on the hosts."
    )
