"""A pair's findings account for every point (Hypothesis over random comparison tables: each
point in exactly one statement, only consecutive points with one verdict grouped, every sign
and verdict as in the table, the count sentence equal to the significant points), and one
verdict rests on one interval (Hypothesis over random data: significant exactly when the
interval shown excludes zero, at the level of the point's Holm step)."""

from __future__ import annotations

import itertools
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from app.analysis.compare import Mode, compare
from app.analysis.pair_findings import pair_findings
from app.analysis.pairs import (
    METRIC_INFO,
    ComparedPoint,
    PairComparison,
    SeriesData,
    compare_pair,
)
from app.analysis.significance import ALPHA, holm, welch, welch_test
from app.analysis.stats import EMPTY, Summary
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, Series
from app.domain.units import MINUS, relative_text
from tests.analysis.findings_text import covered_points, statement_points, statement_verdicts
from tests.records_made import session_record

TCP4 = Series(Protocol.TCP, IpVersion.V4)
BASE, OTHER = "TCP · IPv4 · Open", "TCP · IPv4 · WPA2"
SESSION = session_record(Plan(peer=Peer("lab-peer"), values=(128,)), name="gen")
KINDS = ("higher", "lower", "same", "untested", "no-base", "no-other", "neither")


def _summary(n: int, mean: float) -> Summary:
    return Summary(n, mean, 1.0 if n > 1 else None, mean, mean, mean, None, None)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[ComparedPoint], list[str]]:
    """A random table: sorted points, each with a verdict, a difference of the right sign, an
    interval that agrees with it, and p-values on the right side of α."""
    values = sorted(draw(st.sets(st.integers(1, 99_999), min_size=1, max_size=9)))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=len(values), max_size=len(values)))
    points = []
    magnitude = st.floats(1e-3, 1e9, allow_nan=False, allow_infinity=False)
    for value, kind in zip(values, kinds, strict=True):
        mean = draw(magnitude)
        if kind in ("no-base", "no-other", "neither"):
            base = EMPTY if kind in ("no-base", "neither") else _summary(3, mean)
            other = EMPTY if kind in ("no-other", "neither") else _summary(3, mean)
            points.append(ComparedPoint(float(value), base, other, None, None, None, None, None))
            continue
        # Some differences tiny beside their means: a percentage that rounds to 0.0.
        tiny = draw(st.booleans())
        size = mean * draw(st.floats(1e-6, 5e-4)) if tiny else draw(magnitude)
        if kind == "higher":
            difference = size
        elif kind == "lower":
            difference = -size
        else:
            difference = draw(st.sampled_from([size, -size, 0.0]))
        relative = 100 * difference / mean
        if kind == "untested":
            base, other = _summary(1, mean), _summary(3, mean + difference)
            points.append(
                ComparedPoint(float(value), base, other, difference, relative, None, None, None)
            )
            continue
        half = draw(st.floats(0.01, 0.99)) * size
        if kind == "same":
            half = abs(difference) + draw(magnitude)
        p = draw(st.floats(1e-9, ALPHA / 10)) if kind in ("higher", "lower") else 0.5
        points.append(
            ComparedPoint(
                float(value),
                _summary(3, mean),
                _summary(3, mean + difference),
                difference,
                relative,
                difference - half,
                difference + half,
                p,
                p,
                kind != "same",
                draw(st.sampled_from([0.95, 0.975, 0.99, 1 - ALPHA / 7])),
            )
        )
    return points, kinds


def _table_verdict(kind: str) -> str:
    return kind if kind in ("higher", "lower", "same", "untested") else "unmeasured"


SIGNED = rf"([+{MINUS}]?)\d[^ ]*"  # exactly zero is written without a sign


@settings(max_examples=200, deadline=None)
@given(
    table=tables(),
    metric=st.sampled_from(["throughput_bps", "rtt_ms", "loss_pct", "latency_ms"]),
)
def test_every_point_is_in_one_statement_with_the_tables_verdict(
    table: tuple[list[ComparedPoint], list[str]], metric: str
) -> None:
    points, kinds = table
    pair = PairComparison(
        SeriesData(SESSION, TCP4, {}, BASE), SeriesData(SESSION, TCP4, {}, OTHER), points
    )
    findings = pair_findings(pair, metric, "B", "Packet size")
    values = [p.value for p in points]
    verdicts = [_table_verdict(k) for k in kinds]
    higher_is_better = METRIC_INFO[metric][2]

    # Coverage: every point in exactly one statement.
    assert covered_points(findings, values, "B") == values, findings
    # Verdicts: what each statement says of each of its points is the table's verdict.
    said = statement_verdicts(
        findings, BASE, OTHER, "B", higher_is_better=higher_is_better, values=values
    )
    assert said == dict(zip(values, verdicts, strict=True)), findings
    # Grouping: consecutive points only (statement_points checks the neighbours), one verdict
    # per statement, and neighbouring statements differ (or miss a different side).
    groups = statement_points(findings, values, "B")
    for covered, sentence in groups:
        assert len({kinds[values.index(v)] for v in covered}) == 1, sentence
    for (first, _), (second, _) in itertools.pairwise(groups):
        assert values.index(second[0]) == values.index(first[-1]) + 1  # in the table's order
        assert kinds[values.index(first[-1])] != kinds[values.index(second[0])]
    # Signs: each difference and interval bound written with the table's sign.
    for covered, sentence in groups:
        kind = kinds[values.index(covered[0])]
        point = points[values.index(covered[0])]
        if len(covered) == 1 and kind in ("same", "untested"):
            assert point.difference is not None
            sign = re.search(rf"(?::|of) {SIGNED}", sentence)
            assert sign, sentence
            assert (sign.group(1) == MINUS) == (point.difference < 0), sentence
        if len(covered) > 1 and kind in ("same", "untested"):
            differences = [points[values.index(v)].difference or 0.0 for v in covered]
            ends = re.search(rf"from {SIGNED} .*?to {SIGNED}", sentence)
            assert ends, sentence
            assert (ends.group(1) == MINUS) == (min(differences) < 0), sentence
            assert (ends.group(2) == MINUS) == (max(differences) < 0), sentence
        if len(covered) == 1 and kind in ("higher", "lower", "same"):
            bounds = re.search(rf"CI of the difference {SIGNED} .*?… {SIGNED}", sentence)
            assert bounds, sentence
            assert point.ci_low is not None and point.ci_high is not None
            assert (bounds.group(1) == MINUS) == (point.ci_low < 0), sentence
            assert (bounds.group(2) == MINUS) == (point.ci_high < 0), sentence
    # The table's % column: the difference's own sign, the same minus sign; never 0.0 for one.
    for point in points:
        if point.difference is not None and point.relative_pct is not None:
            shown = relative_text(point.relative_pct)
            assert (shown[0] == MINUS) == (point.difference < 0), (shown, point.difference)
            assert (float(shown.lstrip(f"+{MINUS}")) == 0) == (point.difference == 0), shown
    # Percentages: each written as the table's % column shows its point (the sign aside),
    # a tiny difference's too (never "0.0 %" for one): the smallest and the largest of a group.
    for covered, sentence in groups:
        kind = kinds[values.index(covered[0])]
        if kind not in ("higher", "lower"):
            continue
        group = sorted(
            (points[values.index(v)] for v in covered), key=lambda p: abs(p.difference or 0.0)
        )
        ends = group if len(group) == 1 else [group[0], group[-1]]
        table = [relative_text(p.relative_pct).lstrip(f"+{MINUS}") for p in ends]
        written = re.findall(r"\((\d+(?:\.\d+)?) %\)", sentence)
        assert written == ([] if metric == "loss_pct" else table), sentence
        assert all(float(text) != 0 for text in written), sentence
    # The count sentence: the significant points of the tested ones.
    tested = [k for k in kinds if k in ("higher", "lower", "same")]
    significant = [k for k in tested if k != "same"]
    counts = [s for s in findings if s.startswith(f"{OTHER} against {BASE}: ")]
    if tested:
        (count,) = counts
        number = re.match(rf"{re.escape(OTHER)} against {re.escape(BASE)}: (\d+) of (\d+) ", count)
        assert number and int(number.group(1)) == len(significant), count
        assert int(number.group(2)) == len(tested), count
        untested = len(kinds) - len(tested)
        assert (f"; {untested} more point" in count) == bool(untested), count
    else:
        assert counts == []
    # The summary names each winner with its count.
    if significant:
        (overall,) = [s for s in findings if s.startswith("Where the difference is significant")]
        ups, downs = significant.count("higher"), significant.count("lower")
        of = f"{len(tested)} point{'' if len(tested) == 1 else 's'}"  # "1 point", "2 points"
        if ups and downs:
            up = OTHER if higher_is_better else BASE
            down = BASE if higher_is_better else OTHER
            assert f"{up} is better at {ups} of {of} and {down} at {downs}" in (overall), overall
        else:
            winner = OTHER if (ups > 0) == higher_is_better else BASE
            assert overall.startswith(f"Where the difference is significant, {winner} is better")
            assert f"at {len(significant)} of {of})." in overall, overall
    else:
        assert not any("better" in s for s in findings), findings


# -- one verdict, one interval: generated data -----------------------------------------------

runs = st.lists(
    st.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False),
    min_size=0,
    max_size=6,
)
shifted = st.tuples(runs, runs, st.floats(-200, 200))


@settings(max_examples=200, deadline=None)
@given(sweep=st.lists(shifted, min_size=1, max_size=8))
def test_significant_exactly_when_the_interval_shown_excludes_zero(
    sweep: list[tuple[list[float], list[float], float]],
) -> None:
    base = {float(i): a for i, (a, _, _) in enumerate(sweep)}
    other = {float(i): [v + shift for v in b] for i, (_, b, shift) in enumerate(sweep)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning on any data
        pair = compare_pair(SeriesData(SESSION, TCP4, base), SeriesData(SESSION, TCP4, other))
    tested = [p for p in pair.points if p.p_value is not None]
    order = sorted(tested, key=lambda p: p.p_value or 0.0)
    rejected = 0
    for p in order:
        if p.p_holm is not None and p.p_holm < ALPHA:
            rejected += 1
    for p in pair.points:
        if p.p_value is None:
            assert p.significant is None and p.ci_low is None and p.ci_level is None
            continue
        assert p.ci_low is not None and p.ci_high is not None and p.ci_level is not None
        # The equivalence the findings and tables rest on.
        assert p.significant is (p.ci_low > 0 or p.ci_high < 0)
        assert p.ci_low <= (p.difference or 0.0) <= p.ci_high
        # The verdict is Holm's (away from the boundary, where rounding may tip either way).
        assert p.p_holm is not None
        if abs(p.p_holm - ALPHA) > 1e-9:
            assert p.significant is (p.p_holm < ALPHA)
        # The level is the point's Holm step: 1 − α/(m − r + 1), or the stopping step's.
        rank = order.index(p)
        step = min(rank, rejected)
        if all(abs(q.p_value - p.p_value) > 1e-12 for q in tested if q is not p):  # type: ignore[operator]
            assert p.ci_level == pytest.approx(1 - ALPHA / (len(tested) - step))


def test_interval_matches_scipys_welch_interval_at_the_steps_level() -> None:
    a = [45.2, 45.7, 46.2, 45.4, 45.5]
    b = [42.1, 43.0, 42.6, 42.2, 42.9]
    close = [45.3, 45.9, 45.1, 45.8, 45.4]
    base = SeriesData(SESSION, TCP4, {128.0: a, 640.0: a, 1408.0: [45.0, 45.0, 45.0]})
    other = SeriesData(SESSION, TCP4, {128.0: b, 640.0: close, 1408.0: [44.0, 44.0, 44.0]})
    pair = compare_pair(base, other)
    by_value = {p.value: p for p in pair.points}
    # Exact difference at 1408 B (identical runs a side): p = 0, first step, a zero-width interval.
    assert by_value[1408.0].ci_low == by_value[1408.0].ci_high == pytest.approx(-1.0)
    assert by_value[1408.0].ci_level == pytest.approx(1 - ALPHA / 3)
    # 128 B: the second step, 1 − α/2; 640 B: not significant, the last step's 95 %.
    assert by_value[128.0].ci_level == pytest.approx(1 - ALPHA / 2)
    assert by_value[640.0].ci_level == pytest.approx(0.95)
    for value, sample in ((128.0, b), (640.0, close)):
        point = by_value[value]
        assert point.ci_level is not None
        result = stats.ttest_ind(sample, a, equal_var=False)
        interval = result.confidence_interval(point.ci_level)
        assert point.ci_low == pytest.approx(interval.low)
        assert point.ci_high == pytest.approx(interval.high)
        assert point.p_value == pytest.approx(result.pvalue)
    assert [p.significant for p in pair.points] == [True, False, True]
    assert holm([p.p_value for p in pair.points])[0] == pytest.approx(by_value[128.0].p_holm)


def test_a_point_after_holm_stops_keeps_the_stopping_steps_level() -> None:
    """p-values 0.02, 0.04 and 0.045 over three points: Holm stops at its first step (0.02 is
    not below α/3), so none is significant, though 0.045 is below the last step's α. Every
    interval stays at the first step's level and includes zero."""

    def runs_with_p(target: float) -> tuple[list[float], list[float]]:
        # Two sides of four runs whose Welch p is target: shift one side until it is.
        a = [0.0, 1.0, 2.0, 3.0]
        t = stats.t.ppf(1 - target / 2, df=6)
        se = (2 * (float(stats.tvar(a)) / 4)) ** 0.5
        return a, [v + t * se for v in a]

    base, other = {}, {}
    for value, target in ((1.0, 0.02), (2.0, 0.04), (3.0, 0.045)):
        base[value], other[value] = runs_with_p(target)
    pair = compare_pair(SeriesData(SESSION, TCP4, base), SeriesData(SESSION, TCP4, other))
    assert [round(p.p_value or 0.0, 4) for p in pair.points] == [0.02, 0.04, 0.045]
    assert [p.significant for p in pair.points] == [False, False, False]
    assert all(p.ci_level == pytest.approx(1 - ALPHA / 3) for p in pair.points)
    # At the last step's own 95 % the third interval would have excluded zero.
    _, low, _, _ = welch(base[3.0], other[3.0], 0.95)
    assert low is not None and low > 0
    findings = pair_findings(pair, "throughput_bps", "B", "Packet size")
    assert any(
        s.startswith("At 1–3 B (3 points) there is no significant difference") for s in findings
    )


def test_the_method_is_said_in_full_once_per_comparison() -> None:
    runs = {128.0: [1.0, 1.1, 0.9], 1408.0: [5.0, 5.1, 4.9]}
    more = {128.0: [2.0, 2.1, 1.9], 1408.0: [5.0, 5.2, 4.8]}
    items = [
        SeriesData(SESSION, TCP4, runs, "A"),
        SeriesData(SESSION, TCP4, more, "B"),
        SeriesData(SESSION, TCP4, more, "C"),
    ]
    comparison = compare(items, "throughput_bps", mode=Mode.PICKED)
    counts = [s for s in comparison.findings if "significantly (" in s]
    assert len(counts) == 2
    assert "so it excludes zero exactly where the difference is significant" in counts[0]
    assert "intervals at the level of each point's Holm step as above" in counts[1]


def test_tiny_spreads_are_tested_without_underflow() -> None:
    """Variances near the smallest float: their squares underflow to zero, the test must not."""
    test = welch_test([0.0, 1e-160, 0.0], [1.0, 1.0, 1.0])
    assert test.se is not None and test.se > 0
    assert test.df == pytest.approx(2.0)
    assert test.p_value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("base", "other", "said"),
    [
        ({128.0: [1.0, 1.1, 0.9]}, {128.0: [5.0, 5.1, 4.9]}, "1 of 1 point differs significantly"),
        (
            {128.0: [1.0, 1.1, 0.9], 1408.0: [5.0, 5.1, 4.9]},
            {128.0: [3.0, 3.1, 2.9], 1408.0: [5.0, 5.2, 4.8]},
            "1 of 2 points differs significantly",
        ),
        (
            {128.0: [1.0, 1.1, 0.9], 1408.0: [5.0, 5.1, 4.9]},
            {128.0: [3.0, 3.1, 2.9], 1408.0: [9.0, 9.1, 8.9]},
            "2 of 2 points differ significantly",
        ),
        (
            {128.0: [1.0, 1.1, 0.9], 1408.0: [5.0, 5.1, 4.9]},
            {128.0: [1.0, 1.2, 0.8], 1408.0: [5.0, 5.2, 4.8]},
            "0 of 2 points differ significantly",
        ),
    ],
)
def test_the_count_sentence_agrees_with_its_count(
    base: dict[float, list[float]], other: dict[float, list[float]], said: str
) -> None:
    """As found: "1 of 1 point differ significantly". The verb agrees with the count of
    points that differ, and that count is the pair's own."""
    items = [SeriesData(SESSION, TCP4, base, "A"), SeriesData(SESSION, TCP4, other, "B")]
    comparison = compare(items, "throughput_bps", mode=Mode.PICKED)
    ((count,),) = [[s for s in comparison.findings if "significantly (" in s]]
    assert said in count, count
    (pair,) = comparison.pairs
    assert count.count(f"{len(pair.significant)} of {len(pair.tested)} point") == 1
