"""The findings of one pair of series: a sentence counting the significant points and saying
the method once, then every point of the pair in exactly one statement, in the order of the
swept value, consecutive points with the same verdict (the same side significantly better, no
significant difference, not testable, not measured on both sides) in one statement with their
figures; a side is "better" only where the difference is significant."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.analysis.cpu_check import CPU_CORE_PCT
from app.analysis.expected_findings import AT_TARGET, offered_bps
from app.analysis.pair_words import both_unmeasured_reason, level_text, unmeasured_reason
from app.analysis.pair_words import format_difference as amount
from app.analysis.pairs import (
    LOADED_METRICS,
    METRIC_INFO,
    Absence,
    ComparedPoint,
    PairComparison,
)
from app.analysis.significance import ALPHA
from app.domain.net import Direction
from app.domain.plan_fields import label_words, where_set
from app.domain.units import MINUS, counted, format_p, format_rate, format_rate_as, percent_text

#: The load a working latency was measured under, as a finding says it.
LOAD_WORDS = {
    Direction.UP: "under upload load",
    Direction.DOWN: "under download load",
    Direction.BIDIR: "under load in both directions",
}


class Verdict(StrEnum):
    """What the statistics say at one point of a pair."""

    HIGHER = "higher"  # the other side significantly above the baseline
    LOWER = "lower"  # the other side significantly below the baseline
    SAME = "same"  # tested: no significant difference
    UNTESTED = "untested"  # measured on both sides, but a side has a single run
    UNMEASURED = "unmeasured"  # a side has no figure: not planned, no successful run, or
    # its runs do not report the metric


def verdict(point: ComparedPoint) -> Verdict:
    if point.difference is None:
        return Verdict.UNMEASURED
    if point.significant is None:
        return Verdict.UNTESTED
    if point.significant:
        return Verdict.HIGHER if point.difference > 0 else Verdict.LOWER
    return Verdict.SAME


@dataclass(frozen=True)
class Statement:
    """One sentence of a pair's findings and the points it covers (consecutive, one verdict)."""

    verdict: Verdict
    points: tuple[ComparedPoint, ...]
    text: str


def groups(points: Sequence[ComparedPoint]) -> list[tuple[Verdict, list[ComparedPoint]]]:
    """Runs of consecutive points with the same verdict (unmeasured points also with the
    same reasons on each side)."""
    found: list[tuple[Verdict, list[ComparedPoint]]] = []
    last: object = None
    for point in points:
        said = verdict(point)
        key = (said, point.missing if said is Verdict.UNMEASURED else None)
        if found and key == last:
            found[-1][1].append(point)
        else:
            found.append((said, [point]))
        last = key
    return found


def where(values: Sequence[float | str], unit: str, variable: str = "") -> str:
    """Where a statement holds: '1408 B', '1152 and 1408 B', '128–640 B (3 points)'; a
    variable without a unit is named: 'parallel streams 1 and 4'; names are listed, never
    spanned: 'congestion control cubic, bbr and reno'."""
    said = label_words(variable)
    named = "" if unit or not variable else f"{said} "
    if any(isinstance(v, str) for v in values):
        words = [str(v) for v in values]
        listed = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
        return f"{named}{listed}"

    def one(value: float | str) -> str:
        if isinstance(value, str):
            return value
        return format_rate(value) if unit == "bit/s" else f"{value:g}"

    tail = f" {unit}" if unit and unit != "bit/s" else ""
    if len(values) == 1:
        return f"{named}{one(values[0])}{tail}"
    if len(values) == 2:
        return f"{named}{one(values[0])} and {one(values[1])}{tail}"
    return f"{named}{one(values[0])}–{one(values[-1])}{tail} ({counted(len(values), 'point')})"


def _signed(metric: str, value: float) -> str:
    """'+0.41 Mbit/s', '−0.30 Mbit/s'; exactly nothing has no sign: '0 bit/s'."""
    if value == 0:
        return amount(metric, value)
    return f"{MINUS if value < 0 else '+'}{amount(metric, value)}"


def _p(name: str, p: float | None) -> str:
    """'p = 0.047', 'Holm-adjusted p < 0.001'."""
    shown = format_p(p)
    return f"{name} {shown}" if shown.startswith("<") else f"{name} = {shown}"


def interval_text(metric: str, point: ComparedPoint) -> str:
    """'98.3 % CI of the difference +1.47 … +6.68 Gbit/s': the interval the verdict rests on."""
    assert point.ci_low is not None and point.ci_high is not None
    assert point.ci_level is not None
    return (
        f"{level_text(point.ci_level)} CI of the difference "
        f"{_signed(metric, point.ci_low)} … {_signed(metric, point.ci_high)}"
    )


def _relative(metric: str, point: ComparedPoint) -> str:
    if point.relative_pct is None or metric == "loss_pct":
        return ""
    return f" ({percent_text(abs(point.relative_pct), 1)} %)"  # as the table, never 0.0


def _amounts(metric: str, points: Sequence[ComparedPoint]) -> str:
    """'3.04 Mbit/s (6.7 %)', or for several points 'between 2.10 Mbit/s (4.5 %) and 8.30
    Mbit/s (17.9 %)': the smallest and the largest difference of the group."""
    ordered = sorted(points, key=lambda p: abs(p.difference or 0.0))
    small, large = ordered[0], ordered[-1]
    first = f"{amount(metric, small.difference or 0.0)}{_relative(metric, small)}"
    if len(points) == 1:
        return first
    return (
        f"between {first} and {amount(metric, large.difference or 0.0)}{_relative(metric, large)}"
    )


def _spread(metric: str, points: Sequence[ComparedPoint]) -> str:
    """'+0.41 Mbit/s' for one point, 'from −0.30 Mbit/s to +0.41 Mbit/s' for several."""
    differences = sorted(p.difference or 0.0 for p in points)
    if len(points) == 1:
        return _signed(metric, differences[0])
    return f"from {_signed(metric, differences[0])} to {_signed(metric, differences[-1])}"


def _tested(points: Sequence[ComparedPoint]) -> str:
    """The tests behind a significant statement: one point's p-values and interval are said
    by the caller; several points' largest Holm-adjusted p."""
    largest = max(p.p_holm or 0.0 for p in points)
    shown = format_p(largest)
    bound = shown if shown.startswith("<") else f"≤ {shown}"
    return f"Holm-adjusted p {bound} at each, and each point's interval excludes zero"


class _Pair:
    """The words of one pair: its labels, metric and unit."""

    def __init__(self, pair: PairComparison, metric: str, unit: str, variable: str) -> None:
        self.pair = pair
        self.metric = metric
        self.unit = unit
        self.variable = variable
        self.name, _, self.higher_is_better = METRIC_INFO[metric]
        self.base, self.other = pair.baseline.label, pair.other.label

    def capped(self, said: Verdict, point: ComparedPoint) -> float | None:
        """The UDP bitrate the user asked for, where the lower side of a significant
        difference in throughput is UDP that carried it (at least AT_TARGET of it): its rate
        was set by that bitrate, not by the link, so it is no worse (None: not so)."""
        if self.metric != "throughput_bps" or said not in (Verdict.HIGHER, Verdict.LOWER):
            return None
        lower = self.pair.other if said is Verdict.LOWER else self.pair.baseline
        summary = point.other if said is Verdict.LOWER else point.baseline
        target = offered_bps(lower.session.plan, lower.series.protocol, point.value)
        if target is None or summary.mean is None or summary.mean < AT_TARGET * target:
            return None
        return target

    def carried(self, said: Verdict, point: ComparedPoint) -> float | None:
        """The mean rate the lower side of the difference carried at the point."""
        return (point.other if said is Verdict.LOWER else point.baseline).mean

    def lower_label(self, said: Verdict) -> str:
        return self.other if said is Verdict.LOWER else self.base

    def winner(self, said: Verdict) -> tuple[str, str]:
        better = (said is Verdict.HIGHER) == self.higher_is_better
        return (self.other, self.base) if better else (self.base, self.other)

    def statement(self, said: Verdict, points: list[ComparedPoint]) -> str:
        at = where([p.value for p in points], self.unit, self.variable)
        if said in (Verdict.HIGHER, Verdict.LOWER):
            return self.significant(said, points, at)
        if said is Verdict.SAME:
            if len(points) == 1:
                (point,) = points
                return (
                    f"At {at} there is no significant difference between {self.other} and "
                    f"{self.base}: {_signed(self.metric, point.difference or 0.0)} "
                    f"({interval_text(self.metric, point)}), within the run-to-run noise."
                )
            return (
                f"At {at} there is no significant difference between {self.other} and "
                f"{self.base}: the differences, {_spread(self.metric, points)}, are within the "
                "run-to-run noise (each point's interval includes zero)."
            )
        if said is Verdict.UNTESTED:
            which = "a difference of" if len(points) == 1 else "differences"
            return (
                f"At {at} a side has a single run, so whether {self.other} and {self.base} "
                f"differ there cannot be tested ({which} {_spread(self.metric, points)}): "
                "measure more runs there."
            )
        return self.unmeasured(points, at)

    def unmeasured(self, points: list[ComparedPoint], at: str) -> str:
        """Why a side has no figure at these points: a metric its runs do not report ("TCP
        reports no loss"), points not in its plan, or no successful run there."""
        base, other = points[0].missing
        cannot = f"so {self.other} and {self.base} cannot be compared there"
        if base is other is Absence.NOT_MEASURED:
            why = both_unmeasured_reason(self.pair, self.metric)
            return (
                f"At {at} neither {self.other} nor {self.base} has a figure of {self.name} "
                f"({why}), so nothing can be compared there."
            )
        if base is other is Absence.NO_RUN:
            nobody = f"neither {self.other} nor {self.base} has a successful run"
            return f"At {at} {nobody}, so nothing can be compared there."
        these = "this point is" if len(points) == 1 else "these points are"
        said = []
        for absence, side, label in (
            (other, self.pair.other, self.other),
            (base, self.pair.baseline, self.base),
        ):
            if absence is Absence.NOT_PLANNED:
                said.append(f"{these} not in the plan of {label}")
            elif absence is Absence.NO_RUN:
                said.append(f"{label} has no successful run")
            elif absence is Absence.NOT_MEASURED:
                why = unmeasured_reason(side, self.metric)
                said.append(f"{label} has no figure of {self.name} ({why})")
        return f"At {at} {' and '.join(said)}, {cannot}."

    def significant(self, said: Verdict, points: list[ComparedPoint], at: str) -> str:
        winner, loser = self.winner(said)
        much = _amounts(self.metric, points)
        if len(points) == 1:
            (point,) = points
            tested = (
                f"{_p('p', point.p_value)}, {_p('Holm-adjusted p', point.p_holm)}; "
                f"{interval_text(self.metric, point)}"
            )
        else:
            tested = _tested(points)
        if self.metric in LOADED_METRICS:
            # "At 1408 B, under upload load, WPA2 added 212 ms (35.0 %) of working latency
            # against open": latency is what a setting adds, under the load it was measured in.
            load = LOAD_WORDS[self.pair.other.direction]
            what = (
                f"added {much} of {self.name} against {self.base}"
                if said is Verdict.HIGHER
                else f"had {much} less {self.name} than {self.base}"
            )
            return (
                f"At {at}, {load}, {self.other} {what} ({tested}): {winner} is better there "
                f"than {loser}."
            )
        more = "more" if said is Verdict.HIGHER else "less"
        targets = [self.capped(said, p) for p in points]
        if None not in targets:
            carried = [self.carried(said, p) for p in points]
            asked = carried_words(
                [t for t in targets if t is not None], [c for c in carried if c is not None]
            )
            return (
                f"At {at}, {self.other} had {much} {more} {self.name} than {self.base} "
                f"({tested}): {self.lower_label(said)} carried {asked} "
                f"({where_set('bitrate')}), so its rate was set by that bitrate, not by the "
                "link: neither is better there."
            )
        return (
            f"At {at}, {self.other} had {much} {more} {self.name} than {self.base} ({tested}): "
            f"{winner} is better there than {loser}{self.cpu_caveat(said, points)}."
        )

    def cpu_caveat(self, said: Verdict, points: list[ComparedPoint]) -> str:
        """Where the lower side of a throughput difference had its CPU busy in some of its
        runs there (as the CPU warning counts them): that the computer may have set its
        pace, not the link; '' otherwise."""
        if self.metric != "throughput_bps" or said not in (Verdict.HIGHER, Verdict.LOWER):
            return ""
        lower = self.pair.other if said is Verdict.LOWER else self.pair.baseline
        busy = sum(lower.cpu_busy.get(p.value, 0) for p in points)
        if not busy:
            return ""
        runs = sum(lower.ok_runs.get(p.value, 0) for p in points)
        return (
            f", though in {busy} of {counted(runs, 'run')} of {self.lower_label(said)} there "
            f"the CPU was busy at or above {CPU_CORE_PCT:g} % of one core: the computer, not "
            "the link, may have set its pace (see the CPU warning)"
        )


def carried_words(targets: Sequence[float], carried: Sequence[float]) -> str:
    """What UDP carried of the bitrate it was asked for, point by point (each at least
    AT_TARGET of it): "the 10.0 Mbit/s it was asked to send" where every mean reaches or reads
    as its target; else what it fell short by, in the target's unit, "0.93 Mbit/s of the 1.00
    Mbit/s it was asked to send", or over several points "at least 93 % of the bitrate it was
    asked to send at each"."""
    rates = sorted(set(targets))
    pairs = list(zip(carried, targets, strict=True))
    if all(c >= t or format_rate_as(c, t) == format_rate(t) for c, t in pairs):
        if len(rates) == 1:
            return f"the {format_rate(rates[0])} it was asked to send"
        return "the bitrate it was asked to send at each"
    if len(pairs) == 1:
        ((c, t),) = pairs
        return f"{format_rate_as(c, t)} of the {format_rate(t)} it was asked to send"
    least = min(c / t for c, t in pairs)
    # A mean at exactly the share accepted (AT_TARGET) is 90 %, not 89 % of float noise.
    share = f"at least {math.floor(least * 100 + 1e-9):.0f} % of"
    if len(rates) == 1:
        return f"{share} the {format_rate(rates[0])} it was asked to send"
    return f"{share} the bitrate it was asked to send at each"


def pair_statements(
    pair: PairComparison, metric: str, unit: str, variable: str = ""
) -> list[Statement]:
    """Every point of the pair in exactly one statement, in the order of the swept value."""
    words = _Pair(pair, metric, unit, variable)
    return [
        Statement(said, tuple(points), words.statement(said, points))
        for said, grouped in groups(pair.points)
        for points in _apart(words, said, grouped)
    ]


def _apart(words: _Pair, said: Verdict, points: list[ComparedPoint]) -> list[list[ComparedPoint]]:
    """A group's points in runs alike in whether UDP's rate there was its bitrate asked for
    (a statement says either that, or which side is better)."""
    runs: list[list[ComparedPoint]] = []
    last: object = None
    for point in points:
        capped = words.capped(said, point) is not None
        if runs and capped == last:
            runs[-1].append(point)
        else:
            runs.append([point])
        last = capped
    return runs


def family_text(tested: int, explain: bool = True) -> str:
    """The method: in full once per comparison (explain), briefly for the pairs after it."""
    if tested > 1 and not explain:
        return (
            "Welch's t-test per point, Holm's correction over "
            f"{counted(tested, 'point')}, α = {ALPHA}, "
            "intervals at the level of each point's Holm step as above"
        )
    if tested > 1:
        return (
            "Welch's t-test per point, Holm's correction over "
            f"{counted(tested, 'point')}, α = {ALPHA}; "
            "each interval is at the level of its point's Holm step — the k-th smallest p "
            "of the m is tested at α / (m − k + 1), stricter where more points could "
            "differ by chance, so its interval is at 1 − α / (m − k + 1): "
            f"{level_text(1 - ALPHA / tested)} for the smallest p, up to "
            f"{level_text(1 - ALPHA)}; from the first point not significant on, that point's "
            "level — so it excludes zero exactly where the difference is significant"
        )
    return f"Welch's t-test, α = {ALPHA}, {level_text(1 - ALPHA)} CI of the difference"


def pair_findings(
    pair: PairComparison, metric: str, unit: str, variable: str, *, explain: bool = True
) -> list[str]:
    """What one pair shows, point by point, in words that do not overstate it; explain=False
    for a pair after one whose sentences said the method in full."""
    words = _Pair(pair, metric, unit, variable)
    if not pair.points:
        return [f"{words.other} and {words.base} have no point measured on both sides."]
    tested = pair.tested
    significant = pair.significant
    sentences: list[str] = []
    if tested:
        untested = len(pair.points) - len(tested)
        more = (
            f"; {counted(untested, 'more point', 'more points')} cannot be tested"
            if untested
            else ""
        )
        sentences.append(
            f"{words.other} against {words.base}: {len(significant)} of "
            f"{counted(len(tested), 'point')} {'differs' if len(significant) == 1 else 'differ'} "
            "significantly "
            f"({family_text(len(tested), explain)}){more}."
        )
    sentences += [s.text for s in pair_statements(pair, metric, unit, variable)]
    overall = _overall(words, pair, variable)
    if overall:
        sentences.append(overall)
    return sentences


def _overall(words: _Pair, pair: PairComparison, variable: str) -> str:
    """Which side is better where the difference is significant, over the whole pair (the
    points where UDP carried the bitrate asked for left out: none is better there); '' where
    no difference says so."""
    tested = pair.tested
    significant = [p for p in pair.significant if words.capped(verdict(p), p) is None]
    if not significant:
        return ""
    higher = [p for p in significant if verdict(p) is Verdict.HIGHER]
    lower = [p for p in significant if verdict(p) is Verdict.LOWER]
    if not higher or not lower:
        winner, loser = words.winner(Verdict.HIGHER if higher else Verdict.LOWER)
        return (
            f"Where the difference is significant, {winner} is better than {loser} "
            f"({'higher' if words.higher_is_better else 'lower'} {words.name} at "
            f"{len(significant)} of {counted(len(tested), 'point')})."
        )
    up_winner, _ = words.winner(Verdict.HIGHER)
    down_winner, _ = words.winner(Verdict.LOWER)
    return (
        f"Where the difference is significant, {up_winner} is better at {len(higher)} of "
        f"{counted(len(tested), 'point')} and {down_winner} at {len(lower)}: which is better "
        "depends on "
        f"the {variable.lower()}."
    )
