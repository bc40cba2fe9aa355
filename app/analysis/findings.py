"""A comparison's findings, the one generator every view, export and report reads: per pair the
statements of app.analysis.pair_findings (every point in exactly one, "better" only where the
difference is significant), the series left without a partner, and what security's extra
bytes explain between sessions. Differences of percentages are said in percentage points."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.analysis.expectation import (
    NoExpectation,
    expectation_problem,
    link_inputs,
    rate_words,
    value_text,
)
from app.analysis.overhead import WIFI, OverheadError, security_cost
from app.analysis.pair_findings import LOAD_WORDS, pair_findings
from app.analysis.pairs import ComparedPoint, Mode, PairComparison, SeriesData
from app.analysis.wifi_overhead import CIPHER_BYTES, SECURITY_CIPHER
from app.domain.plan import Security
from app.domain.units import format_rate, percent_text, signed

# Where findings are read from: the comparison's, and a pair's (app.analysis.pair_findings).
__all__ = ["LOAD_WORDS", "findings", "pair_findings", "security_findings"]

if TYPE_CHECKING:
    from app.analysis.pairs import Comparison


def findings(comparison: Comparison) -> list[str]:
    sentences: list[str] = []
    explained = False  # the method is said in full once, with the first pair tested twice
    for pair in comparison.pairs:
        sentences += pair_findings(
            pair,
            comparison.metric,
            comparison.variable_unit,
            comparison.variable_label,
            explain=not explained,
        )
        explained = explained or len(pair.tested) > 1
    within = comparison.mode is Mode.WITHIN
    if not comparison.pairs and within:
        # Nothing of the session is compared: said once, not again of each of its series.
        sentences.append(
            "This session has one series: nothing to compare it with."
            if len(comparison.unpaired) == 1
            else "No two of these series differ in one way only, so none is compared."
        )
    else:
        sentences += [_unpaired(single, within) for single in comparison.unpaired]
        if not comparison.pairs:
            sentences.append(
                "No series of these sessions can be compared like with like: compare the "
                "series within one session instead, or pick them by name."
            )
    sentences += security_findings(comparison)
    return sentences


def _unpaired(single: SeriesData, within: bool) -> str:
    """Why a series that others are compared beside is not compared itself."""
    partner = (
        "that differs from it in one way only (protocol, IP version or direction)"
        if within
        else "of the same protocol, IP version and direction in the baseline session"
    )
    name = single.session.name or single.session.short_id
    return f"{single.label} ({name}) has no partner {partner}, so it is not compared."


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
        f"{format_rate(cost.expected_b.expected_bps, 4)} on "
        f"{rate_words(base_plan.conditions)}"
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
        f"At {where}, {costs}: they explain {percent_text(share * 100)} % of the {measured} "
        f"measured between {other} and {base}; the "
        f"other {format_rate(left)} ({percent_text((1 - share) * 100)} %) is not in the "
        "headers: air "
        "time, retries, encryption work on the hosts."
    )
