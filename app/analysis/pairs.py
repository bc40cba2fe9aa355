"""What a comparison is made of: the comparable metrics, the compared series, and per pair of
series the difference at each point, its 95 % confidence interval and Welch's t-test, with
Holm's correction over the points of the pair (app.analysis.compare builds the pairs)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

import numpy as np

from app.analysis.points import METRICS
from app.analysis.stats import Summary, scipy_stats, summarize
from app.domain.net import Direction
from app.domain.plan import RunKind, Series
from app.domain.records import RunRecord, SessionRecord

ALPHA = 0.05
METRIC_INFO = {
    # name: (label, unit, higher is better)
    "throughput_bps": ("throughput", "bit/s", True),
    "rtt_ms": ("round-trip time", "ms", False),
    "cpu_local_pct": ("CPU on this computer", "%", False),
    "cpu_remote_pct": ("CPU on the peer", "%", False),
    "jitter_ms": ("jitter", "ms", False),
    "loss_pct": ("loss", "%", False),
    "latency_ms": ("working latency", "ms", False),
    "latency_idle_ms": ("idle latency", "ms", False),
    "latency_p90_ms": ("working latency (p90)", "ms", False),
}
#: Percentages whose differences are said in percentage points, not in per cent of a per cent.
PERCENT_METRICS = frozenset({"loss_pct", "cpu_local_pct", "cpu_remote_pct"})
#: Latencies measured under the run's load: findings say which load ("under upload load").
LOADED_METRICS = frozenset({"latency_ms", "latency_p90_ms"})
#: The names a user types (as in `linklab run --metric`) for the comparable metrics; the
#: stored names (throughput_bps, rtt_ms, ...) are accepted too.
METRIC_NAMES = {
    "throughput": "throughput_bps",
    "rtt": "rtt_ms",
    "cpu": "cpu_local_pct",
    "cpu-peer": "cpu_remote_pct",
    "jitter": "jitter_ms",
    "loss": "loss_pct",
    "latency": "latency_ms",
    "latency-idle": "latency_idle_ms",
    "latency-p90": "latency_p90_ms",
}


def metric_key(name: str) -> str:
    """The stored metric for a name a user gave ('rtt' or 'rtt_ms'); KeyError when none."""
    key = METRIC_NAMES.get(name.strip().lower(), name.strip().lower())
    if key not in METRIC_INFO:
        raise KeyError(name)
    return key


class Mode(StrEnum):
    SESSIONS = "sessions"  # each session's series against the baseline session's same series
    WITHIN = "within"  # the series of one session against its first (TCP vs UDP, v4 vs v6)
    PICKED = "picked"  # series the user named (session@tcp4), each against the first


@dataclass(frozen=True)
class SeriesData:
    """One compared curve: a series of one session, with every run's value per point."""

    session: SessionRecord
    series: Series
    values: dict[float, list[float]]  # swept value -> the runs' measurements
    label: str = ""

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
    value: float
    baseline: Summary
    other: Summary
    difference: float | None  # other − baseline
    relative_pct: float | None  # difference / baseline mean × 100
    ci_low: float | None  # 95 % CI of the difference (Welch)
    ci_high: float | None
    p_value: float | None  # Welch's t-test, two-sided, this point alone
    p_holm: float | None = None  # adjusted over the points of the pair (Holm)
    significant: bool | None = None  # by the Holm-adjusted p; None when not testable


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


def metric_values(runs: Sequence[RunRecord], metric: str) -> list[float]:
    read = dict(METRICS)[metric]
    values = [read(r) for r in runs]
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def series_data(session: SessionRecord, runs: Sequence[RunRecord], metric: str) -> list[SeriesData]:
    """Every series of a session, with the runs' values of metric per point."""
    found = []
    rr_metric = metric == "rtt_ms" and any(r.key.kind is RunKind.RR for r in runs)
    for series in session.plan.series:
        per_value: dict[float, list[float]] = {}
        for index, value in enumerate(session.plan.values):
            here = [
                r
                for r in runs
                if r.ok
                and r.key.series == series
                and r.key.value_index == index
                and (r.key.kind is RunKind.RR) == rr_metric
            ]
            per_value[float(value)] = metric_values(here, metric)
        found.append(SeriesData(session, series, per_value))
    return found


def welch(
    baseline: Sequence[float], other: Sequence[float]
) -> tuple[float | None, float | None, float | None, float | None]:
    """Difference of means (other − baseline), its 95 % CI and the two-sided p-value, by
    Welch's t-test (unequal variances). None where there are fewer than two runs a side."""
    a = np.asarray(baseline, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.size == 0 or b.size == 0:
        return None, None, None, None
    difference = float(b.mean() - a.mean())
    if a.size < 2 or b.size < 2:
        return difference, None, None, None
    if a.var() == 0 and b.var() == 0:
        # Identical runs on each side: the difference is exact (the t-test is undefined).
        return difference, difference, difference, (1.0 if difference == 0 else 0.0)
    with warnings.catch_warnings():
        # Nearly identical runs make SciPy warn about precision; the result is still sound,
        # and a user reads sentences, not Python's warnings.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = scipy_stats().ttest_ind(b, a, equal_var=False)
        interval = result.confidence_interval(1 - ALPHA)
    p = float(result.pvalue)
    if not math.isfinite(p):
        return difference, None, None, None
    return difference, float(interval.low), float(interval.high), p


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of the p-values of one family (the points of a pair),
    keeping the family-wise error at alpha; None stays None. SciPy has no Holm correction
    (its false_discovery_control controls the false discovery rate instead)."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (len(indexed) - rank) * p))
        adjusted[i] = running
    return adjusted


def compare_pair(baseline: SeriesData, other: SeriesData) -> PairComparison:
    raw = []
    for value in sorted(set(baseline.values) | set(other.values)):
        a, b = baseline.values.get(value, []), other.values.get(value, [])
        difference, low, high, p = welch(a, b)
        sa, sb = summarize(a), summarize(b)
        known = difference is not None and sa.mean not in (None, 0)
        relative = 100 * difference / sa.mean if known else None  # type: ignore[operator]
        raw.append(ComparedPoint(value, sa, sb, difference, relative, low, high, p))
    adjusted = holm([p.p_value for p in raw])
    points = [
        replace(p, p_holm=q, significant=None if q is None else q < ALPHA)
        for p, q in zip(raw, adjusted, strict=True)
    ]
    return PairComparison(baseline, other, points)


def format_value(metric: str, value: float) -> str:
    """A magnitude in the metric's unit ('3.17 Mbit/s', '0.42 ms', '2.3 %')."""
    from app.domain.units import format_rate

    if metric == "throughput_bps":
        return format_rate(abs(value))
    unit = METRIC_INFO[metric][1]
    return f"{abs(value):.3g} {unit}"


def format_difference(metric: str, value: float) -> str:
    """A difference's magnitude: percentages in percentage points, the rest in their unit."""
    if metric in PERCENT_METRICS:
        return f"{abs(value):.3g} percentage points"
    return format_value(metric, value)
