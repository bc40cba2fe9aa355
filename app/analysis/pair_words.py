"""A compared point in words, as the tables, the findings and the exports say it: its verdict
(or why a side has no figure), its interval with the level it is at, and its figures and
differences in the metric's unit."""

from __future__ import annotations

from app.analysis.pairs import (
    METRIC_INFO,
    PERCENT_METRICS,
    Absence,
    ComparedPoint,
    PairComparison,
    SeriesData,
)
from app.domain.metrics import BY_NAME
from app.domain.precision import ALONE_DIGITS, MEAN_DIGITS, fixed, places
from app.domain.units import DASH, rate_unit


def unmeasured_reason(series: SeriesData, metric: str) -> str:
    """Why a series' successful runs carry no figure of metric: 'TCP reports no loss' (the
    metric belongs to the other protocol), else 'its runs report no round-trip time'."""
    spec = BY_NAME[metric]
    if spec.protocol is not None and series.series.protocol is not spec.protocol:
        return f"{series.series.protocol.value.upper()} reports no {spec.label}"
    return f"its runs report no {spec.label}"


def both_unmeasured_reason(pair: PairComparison, metric: str) -> str:
    """Why neither side of a pair has a figure of metric: 'TCP reports no loss', or each
    side's reason where they differ."""
    base = unmeasured_reason(pair.baseline, metric)
    other = unmeasured_reason(pair.other, metric)
    if base == other:
        return base.replace("its runs", "their runs")
    return f"{pair.other.label}: {other}; {pair.baseline.label}: {base}"


def point_status(pair: PairComparison, point: ComparedPoint, metric: str) -> str:
    """The table's verdict of a point, in the words its finding uses: 'yes', 'no', 'untested
    (1 run)', or why a side has no figure ('not measured: TCP reports no loss', 'not in the
    baseline's plan', 'no successful run in this series')."""
    if point.significant is not None:
        return "yes" if point.significant else "no"
    if point.difference is not None:
        return "untested (1 run)"
    base, other = point.missing
    if base is other is Absence.NOT_MEASURED:
        return f"not measured: {both_unmeasured_reason(pair, metric)}"
    if base is other is Absence.NO_RUN:
        return "no successful run on either side"
    said = []
    for absence, side, who, whose in (
        (base, pair.baseline, "the baseline", "the baseline's"),
        (other, pair.other, "this series", "this series'"),
    ):
        if absence is Absence.NOT_PLANNED:
            said.append(f"not in {whose} plan")
        elif absence is Absence.NO_RUN:
            said.append(f"no successful run in {who}")
        elif absence is Absence.NOT_MEASURED:
            said.append(f"{who} not measured: {unmeasured_reason(side, metric)}")
    return "; ".join(said)


#: How the interval beside each verdict is made, said once for the JSON and the reports.
INTERVAL_METHOD = (
    "Each point's confidence interval of the difference is at the level of the point's step "
    "in Holm's step-down: 1 − α / (m − r + 1) for "
    "the point with the r-th smallest p of the m tested; from the first point not significant "
    "on, that point's level. A difference is significant exactly when its interval excludes "
    "zero."
)


#: Why each row's interval has a level of its own, in plain words: the Differences table's
#: tooltip on that column, and (shorter) the findings' method sentence.
LEVELS_WHY = (
    "Why the level differs from row to row: the more points are tested at once, the likelier "
    "one of them looks different by chance alone. Holm's step-down guards against that: it "
    "tests the point with the smallest p at α / m, the next at α / (m − 1), and so on, the "
    "k-th smallest p of the m tested at α / (m − k + 1). Each row's interval is drawn at the "
    "level its own test used, 1 − α / (m − k + 1) (with two points 97.5 %, then 95 %), and "
    "from the first point not significant on, the rows after it keep that point's level; so "
    "an interval leaves out zero exactly where its row is significant."
)


def interval_cell(metric: str, point: ComparedPoint) -> str:
    """A point's interval as the tables show it: '+1.47 … +6.68 Gbit/s (98.3 %)'; '—' when
    the point cannot be tested."""
    from app.domain.units import signed

    if point.ci_low is None or point.ci_high is None or point.ci_level is None:
        return DASH
    low = signed(format_value(metric, point.ci_low), point.ci_low < 0, plus=True)
    high = signed(format_value(metric, point.ci_high), point.ci_high < 0, plus=True)
    return f"{low} … {high} ({level_text(point.ci_level)})"


def level_text(level: float) -> str:
    """A confidence level as a percentage with the digits it needs: '95 %', '99.2 %',
    '99.95 %' (never '100 %')."""
    for digits in range(1, 6):
        shown = f"{level * 100:.{digits}f}"
        if float(shown) < 100:
            return f"{shown.rstrip('0').rstrip('.')} %"
    return f"{level * 100:.6g} %"


def format_value(metric: str, value: float) -> str:
    """A magnitude in the metric's unit ('3.17 Mbit/s', '0.42 ms', '2.3 %')."""
    from app.domain.units import format_rate

    if metric == "throughput_bps":
        return format_rate(abs(value))
    unit = METRIC_INFO[metric][1]
    magnitude = abs(value)
    # Three significant digits, but a count in the thousands (datagrams out of order) reads
    # whole: '1234 datagrams', never '1.23e+03 datagrams'.
    shown = f"{magnitude:.0f}" if magnitude >= 1000 else f"{magnitude:.3g}"
    return f"{shown} {unit}"


def format_difference(metric: str, value: float) -> str:
    """A difference's magnitude: percentages in percentage points, the rest in their unit."""
    if metric in PERCENT_METRICS:
        return f"{abs(value):.3g} percentage points"
    return format_value(metric, value)


#: The significant digits of a difference that the two means beside it show.
DIFFERENCE_DIGITS = 2


def means_text(metric: str, baseline: float | None, other: float | None) -> tuple[str, str]:
    """A compared point's two means as the table shows them side by side: in one unit (the
    larger's) and to one decimal place, fine enough for their difference to read to two
    significant digits, so that "27.7390" beside "27.7397 Mbit/s" reads as the "+667 bit/s"
    between them, never "27.7" twice; but to no fewer digits than a mean shown alone (three)
    nor more than any mean (six). Without both, each as format_value shows it."""
    if baseline is None or other is None:
        return _alone(metric, baseline), _alone(metric, other)
    larger = max(abs(baseline), abs(other))
    apart = abs(other - baseline)
    if metric != "throughput_bps":
        unit, scale = METRIC_INFO[metric][1], 1.0
    else:
        unit, scale = rate_unit(larger)
        decimals = _decimals(larger / scale, apart / scale)
        if scale < 1e12 and abs(float(fixed(larger / scale, decimals))) >= 1000:
            unit, scale = rate_unit(scale * 1000)  # 999.96 Mbit/s reads 1.000 Gbit/s
    decimals = _decimals(larger / scale, apart / scale)
    return (
        f"{fixed(baseline / scale, decimals)} {unit}",
        f"{fixed(other / scale, decimals)} {unit}",
    )


def mean_numbers(baseline: float | None, other: float | None, scale: float) -> tuple[str, str]:
    """A compared point's two means as numbers in a table's unit (divided by scale), to one
    decimal place as means_text chooses it; '—' for a side without one."""
    if baseline is None or other is None:
        return _number_alone(baseline, scale), _number_alone(other, scale)
    decimals = _decimals(max(abs(baseline), abs(other)) / scale, abs(other - baseline) / scale)
    return fixed(baseline / scale, decimals), fixed(other / scale, decimals)


def _number_alone(value: float | None, scale: float) -> str:
    return DASH if value is None else fixed(value / scale, places(value / scale, ALONE_DIGITS))


def _decimals(larger: float, apart: float) -> int:
    """The places that show the larger mean to three significant digits at least, and the
    difference to two, up to the mean's six."""
    decimals = places(larger, ALONE_DIGITS)
    if apart:
        decimals = max(decimals, min(places(apart, DIFFERENCE_DIGITS), places(larger, MEAN_DIGITS)))
    return decimals


def _alone(metric: str, value: float | None) -> str:
    return DASH if value is None else format_value(metric, value)
