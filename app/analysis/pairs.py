"""What a comparison is made of: the comparable metrics, the compared series, and per pair of
series the difference at each point, Welch's t-test with Holm's correction over the points of
the pair, and the confidence interval of the difference at the level of the point's Holm step,
so that a difference is significant exactly where its interval excludes zero (the tests:
app.analysis.significance; in words: app.analysis.pair_words; app.analysis.compare builds the
pairs)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from app.analysis.cpu_check import cpu_busy, peer_is_local
from app.analysis.points import METRICS
from app.analysis.significance import excludes_zero, holm, holm_intervals, welch_test
from app.analysis.stats import Summary, summarize
from app.domain.metrics import COMPARABLE, POINT_METRICS, Better
from app.domain.net import Direction
from app.domain.plan import PointValue, RunKind, Series, as_point
from app.domain.records import RunRecord, SessionRecord

METRIC_INFO = {
    # name: (label, unit, higher is better)
    m.name: (m.label, m.unit, m.better is Better.HIGHER)
    for m in COMPARABLE
}
#: Percentages whose differences are said in percentage points, not in per cent of a per cent.
PERCENT_METRICS = frozenset(m.name for m in POINT_METRICS if m.percent_points)
#: Latencies measured under the run's load: findings say which load ("under upload load").
LOADED_METRICS = frozenset(m.name for m in POINT_METRICS if m.loaded)
#: The names a user types (as in `linklab run --metric`) for the comparable metrics; the
#: stored names (throughput_bps, rtt_ms, ...) are accepted too.
METRIC_NAMES = {m.user_name: m.name for m in COMPARABLE if m.user_name}


def metric_key(name: str) -> str:
    """The stored metric for a name a user gave ('rtt' or 'rtt_ms'); KeyError when none."""
    key = METRIC_NAMES.get(name.strip().lower(), name.strip().lower())
    if key not in METRIC_INFO:
        raise KeyError(name)
    return key


class Absence(StrEnum):
    """Why a side of a pair has no figure at a point."""

    NOT_PLANNED = "not planned"  # the point is not in the side's plan
    NO_RUN = "no successful run"  # planned, but no run there succeeded
    NOT_MEASURED = "not measured"  # runs succeeded there, but none reports the metric


class Mode(StrEnum):
    SESSIONS = "sessions"  # each session's series against the baseline session's same series
    WITHIN = "within"  # the series of one session in pairs differing in one factor only
    PICKED = "picked"  # series the user named (session@tcp4), each against the first


@dataclass(frozen=True)
class SeriesData:
    """One compared curve: a series of one session, with every run's value per point."""

    session: SessionRecord
    series: Series
    values: dict[PointValue, list[float]]  # swept value -> the runs' measurements
    label: str = ""
    #: Per planned value, the successful runs there whatever they report (missing: as many
    #: as the values), telling a metric not measured from a point without a successful run.
    ok_runs: Mapping[PointValue, int] = field(default_factory=dict)
    #: Per value, how many of those successful runs had this computer's or the peer's CPU
    #: busy (at or above 90 % of one core, as the CPU warning counts them).
    cpu_busy: Mapping[PointValue, int] = field(default_factory=dict)

    def absence(self, value: PointValue) -> Absence | None:
        """Why this series has no figure at value (None: it has one)."""
        if value not in self.values:
            return Absence.NOT_PLANNED
        if self.values[value]:
            return None
        if self.ok_runs.get(value, 0) > 0:
            return Absence.NOT_MEASURED
        return Absence.NO_RUN

    @property
    def key(self) -> str:
        return f"{self.session.id}:{self.series.protocol.value}:{int(self.series.ip_version)}"

    @property
    def direction(self) -> Direction:
        return self.session.plan.direction

    @property
    def like(self) -> tuple[object, ...]:
        """What must match for two series to be compared like with like."""
        return (self.series.protocol, self.series.ip_version, self.direction)

    @property
    def series_text(self) -> str:
        """'TCP · IPv4 · upload': the series itself, without its session."""
        words = {Direction.UP: "upload", Direction.DOWN: "download", Direction.BIDIR: "both"}
        return f"{self.series.label} · {words[self.direction]}"


@dataclass(frozen=True)
class ComparedPoint:
    value: PointValue
    baseline: Summary
    other: Summary
    difference: float | None  # other − baseline
    relative_pct: float | None  # difference / baseline mean × 100
    ci_low: float | None  # CI of the difference (Welch) at ci_level
    ci_high: float | None
    p_value: float | None  # Welch's t-test, two-sided, this point alone
    p_holm: float | None = None  # adjusted over the points of the pair (Holm)
    # True exactly when [ci_low, ci_high] excludes zero; None when not testable.
    significant: bool | None = None
    ci_level: float | None = None  # the level of the point's Holm step (see holm_intervals)
    #: Why each side (baseline, other) has no figure here; None where it has one. Left at
    #: (None, None), a side without runs counts as having no successful run.
    absent: tuple[Absence | None, Absence | None] = (None, None)

    @property
    def missing(self) -> tuple[Absence | None, Absence | None]:
        """Why each side (baseline, other) has no figure here (None: it has one)."""
        if self.absent != (None, None):
            return self.absent
        return (
            Absence.NO_RUN if self.baseline.n == 0 else None,
            Absence.NO_RUN if self.other.n == 0 else None,
        )


@dataclass(frozen=True)
class PairComparison:
    """One series against its partner: the same series of the baseline session (or, within a
    session, the session's first series)."""

    baseline: SeriesData
    other: SeriesData
    points: list[ComparedPoint]

    @property
    def tested(self) -> list[ComparedPoint]:
        return [p for p in self.points if p.significant is not None]

    @property
    def significant(self) -> list[ComparedPoint]:
        return [p for p in self.points if p.significant]


@dataclass(frozen=True)
class Comparison:
    metric: str
    variable_label: str
    variable_unit: str
    mode: Mode
    pairs: list[PairComparison]
    unpaired: list[SeriesData] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # how the sessions differ otherwise
    findings: list[str] = field(default_factory=list)
    baseline_session: SessionRecord | None = None

    @property
    def curves(self) -> list[SeriesData]:
        """Every curve once, pair by pair (baseline, then the other), then those without a
        partner (shown, not compared)."""
        seen: dict[str, SeriesData] = {}
        for pair in self.pairs:
            seen.setdefault(pair.baseline.key, pair.baseline)
            seen.setdefault(pair.other.key, pair.other)
        for curve in self.unpaired:
            seen.setdefault(curve.key, curve)
        return list(seen.values())

    @property
    def sessions(self) -> list[SessionRecord]:
        """The distinct sessions behind the curves, the baseline session first."""
        found: dict[str, SessionRecord] = {}
        if self.baseline_session is not None:
            found[self.baseline_session.id] = self.baseline_session
        for curve in self.curves:
            found.setdefault(curve.session.id, curve.session)
        return list(found.values())


def in_order(values: Iterable[PointValue]) -> list[PointValue]:
    """The values once each: numbers ascending, names in the order the sweep has them."""
    unique = list(dict.fromkeys(values))
    if any(isinstance(v, str) for v in unique):
        return unique
    return sorted(unique)


def metric_values(runs: Sequence[RunRecord], metric: str) -> list[float]:
    read = dict(METRICS)[metric]
    values = [read(r) for r in runs]
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def series_data(session: SessionRecord, runs: Sequence[RunRecord], metric: str) -> list[SeriesData]:
    """Every series of a session, with the runs' values of metric per point."""
    found = []
    rr_metric = metric == "rtt_ms" and any(r.key.kind is RunKind.RR for r in runs)
    local = peer_is_local(session.plan, session.environment)
    for series in session.plan.series:
        per_value: dict[PointValue, list[float]] = {}
        ok_runs: dict[PointValue, int] = {}
        busy: dict[PointValue, int] = {}
        for index, value in enumerate(session.plan.values):
            here = [
                r
                for r in runs
                if r.ok
                and r.key.series == series
                and r.key.value_index == index
                and (r.key.kind is RunKind.RR) == rr_metric
            ]
            per_value[as_point(value)] = metric_values(here, metric)
            ok_runs[as_point(value)] = len(here)
            busy[as_point(value)] = sum(cpu_busy(r, session.environment, local) for r in here)
        found.append(SeriesData(session, series, per_value, ok_runs=ok_runs, cpu_busy=busy))
    return found


def measured_metrics(
    session: SessionRecord, runs: Sequence[RunRecord]
) -> dict[str, frozenset[str]]:
    """Per series of a session (by SeriesData.key), the comparable metrics its successful runs
    report at some point: what a comparison of it can offer."""
    found: dict[str, set[str]] = {}
    for metric in METRIC_INFO:
        for item in series_data(session, runs, metric):
            held = found.setdefault(item.key, set())
            if any(item.values.values()):
                held.add(metric)
    return {key: frozenset(metrics) for key, metrics in found.items()}


def compare_pair(baseline: SeriesData, other: SeriesData) -> PairComparison:
    values = in_order([*baseline.values, *other.values])
    sides = [(baseline.values.get(v, []), other.values.get(v, [])) for v in values]
    tests = [welch_test(a, b) for a, b in sides]
    adjusted = holm([t.p_value if t.se is not None else None for t in tests])
    intervals = holm_intervals(tests)
    points = []
    for value, (a, b), test, q, (level, low, high) in zip(
        values, sides, tests, adjusted, intervals, strict=True
    ):
        sa, sb = summarize(a), summarize(b)
        difference = test.difference
        known = difference is not None and sa.mean not in (None, 0)
        relative = 100 * difference / sa.mean if known else None  # type: ignore[operator]
        points.append(
            ComparedPoint(
                value,
                sa,
                sb,
                difference,
                relative,
                low,
                high,
                test.p_value,
                q,
                excludes_zero(low, high),
                level,
                (baseline.absence(value), other.absence(value)),
            )
        )
    return PairComparison(baseline, other, points)
