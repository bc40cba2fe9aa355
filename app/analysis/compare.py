"""Comparisons: two or more series (from one session or several) point by point, with the
difference, its 95 % confidence interval and Welch's t-test, and findings in sentences."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.analysis.points import METRICS
from app.analysis.stats import Summary, scipy_stats, summarize
from app.domain.plan import VARIABLE_LABELS, RunKind, Security, Series
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
}
#: The names a user types (as in `linklab run --metric`) for the comparable metrics; the
#: stored names (throughput_bps, rtt_ms, ...) are accepted too.
METRIC_NAMES = {
    "throughput": "throughput_bps",
    "rtt": "rtt_ms",
    "cpu": "cpu_local_pct",
    "cpu-peer": "cpu_remote_pct",
    "jitter": "jitter_ms",
    "loss": "loss_pct",
}


def metric_key(name: str) -> str:
    """The stored metric for a name a user gave ('rtt' or 'rtt_ms'); KeyError when none."""
    key = METRIC_NAMES.get(name.strip().lower(), name.strip().lower())
    if key not in METRIC_INFO:
        raise KeyError(name)
    return key


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


@dataclass(frozen=True)
class ComparedPoint:
    value: float
    baseline: Summary
    other: Summary
    difference: float | None  # other − baseline
    relative_pct: float | None  # difference / baseline mean × 100
    ci_low: float | None  # 95 % CI of the difference (Welch)
    ci_high: float | None
    p_value: float | None  # Welch's t-test, two-sided
    significant: bool | None  # None when either side has fewer than 2 runs


@dataclass(frozen=True)
class SeriesComparison:
    other: SeriesData
    points: list[ComparedPoint]


@dataclass(frozen=True)
class Comparison:
    metric: str
    variable_label: str
    variable_unit: str
    baseline: SeriesData
    results: list[SeriesComparison]
    findings: list[str]


def metric_values(runs: Sequence[RunRecord], metric: str) -> list[float]:
    read = dict(METRICS)[metric]
    values = [read(r) for r in runs]
    return [v for v in values if v is not None and math.isfinite(v)]


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
    result = scipy_stats().ttest_ind(b, a, equal_var=False)
    interval = result.confidence_interval(1 - ALPHA)
    return difference, float(interval.low), float(interval.high), float(result.pvalue)


def legend_labels(items: Sequence[SeriesData]) -> list[str]:
    """Labels from what differs between the curves: "IPv4 · Open", "IPv4 · WPA2"."""

    def facets(item: SeriesData) -> list[tuple[str, str]]:
        conditions = item.session.plan.conditions
        security = conditions.security
        return [
            ("protocol", item.series.protocol.value.upper()),
            ("ip", f"IPv{int(item.series.ip_version)}"),
            ("security", "Open" if security is Security.OPEN else security.value),
            ("medium", conditions.medium.value),
            ("direction", item.session.plan.direction.value),
            *sorted((f"tag:{k}", f"{k}={v}") for k, v in conditions.tags),
        ]

    all_facets = [dict(facets(item)) for item in items]
    keys = [k for k, _ in facets(items[0])] if items else []
    for facet_map in all_facets[1:]:
        keys += [k for k in facet_map if k not in keys]
    varying = [k for k in keys if len({f.get(k, "") for f in all_facets}) > 1]
    labels = []
    for item, facet in zip(items, all_facets, strict=True):
        parts = [facet[k] for k in varying if facet.get(k) and facet[k] != "unknown"]
        if not parts:  # nothing stated tells them apart: name the session
            parts = [
                item.session.name or item.session.short_id,
                f"IPv{int(item.series.ip_version)}",
            ]
        labels.append(" · ".join(parts))
    # Still the same (e.g. two sessions alike in every stated way): add the session.
    if len(set(labels)) < len(labels):
        labels = [
            f"{label} ({item.session.name or item.session.short_id})"
            for label, item in zip(labels, items, strict=True)
        ]
    return labels


def compare(
    items: Sequence[SeriesData], metric: str = "throughput_bps", baseline: int = 0
) -> Comparison:
    """Every other curve against the baseline curve, point by point, with findings."""
    if len(items) < 2:
        raise ValueError("a comparison needs at least two series")
    labels = legend_labels(items)
    items = [
        SeriesData(i.session, i.series, i.values, label)
        for i, label in zip(items, labels, strict=True)
    ]
    base = items[baseline]
    results = []
    for index, item in enumerate(items):
        if index == baseline:
            continue
        points = []
        for value in sorted(set(base.values) | set(item.values)):
            a, b = base.values.get(value, []), item.values.get(value, [])
            difference, low, high, p = welch(a, b)
            sa, sb = summarize(a), summarize(b)
            relative = (
                100 * difference / sa.mean
                if difference is not None and sa.mean not in (None, 0)
                else None
            )
            points.append(
                ComparedPoint(
                    value,
                    sa,
                    sb,
                    difference,
                    relative,
                    low,
                    high,
                    p,
                    None if p is None else p < ALPHA,
                )
            )
        results.append(SeriesComparison(item, points))
    plan = base.session.plan
    label, unit = VARIABLE_LABELS[plan.variable]
    comparison = Comparison(metric, label, unit, base, results, [])
    return Comparison(metric, label, unit, base, results, findings(comparison))


def format_value(metric: str, value: float) -> str:
    from app.domain.units import format_rate

    if metric == "throughput_bps":
        return format_rate(abs(value))
    unit = METRIC_INFO[metric][1]
    return f"{abs(value):.3g} {unit}"


def _where(value: float, unit: str) -> str:
    return f"{value:g} {unit}".strip() if unit else f"{value:g}"


def findings(comparison: Comparison) -> list[str]:
    """Plain sentences, like the papers' conclusions, plus what the papers could not say:
    whether each difference is larger than the noise."""
    metric = comparison.metric
    name, _, higher_is_better = METRIC_INFO[metric]
    unit = comparison.variable_unit
    base = comparison.baseline.label
    sentences: list[str] = []
    for result in comparison.results:
        other = result.other.label
        known = [p for p in result.points if p.difference is not None]
        if not known:
            sentences.append(f"{other} and {base} have no point measured on both sides.")
            continue
        largest = max(known, key=lambda p: abs(p.difference or 0.0))
        diff = largest.difference or 0.0
        more_less = "more" if diff > 0 else "less"
        rel = f" ({abs(largest.relative_pct):.1f} %)" if largest.relative_pct is not None else ""
        verdict = _verdict(largest)
        sentences.append(
            f"The largest difference is at {_where(largest.value, unit)}: {other} had "
            f"{format_value(metric, diff)}{rel} {more_less} {name} than {base} ({verdict})."
        )
        mean_diff = float(np.mean([p.difference for p in known]))
        rels = [p.relative_pct for p in known if p.relative_pct is not None]
        mean_rel = f" ({abs(float(np.mean(rels))):.1f} %)" if rels else ""
        sentences.append(
            f"Over the sweep, {other} averaged {format_value(metric, mean_diff)}{mean_rel} "
            f"{'more' if mean_diff > 0 else 'less'} {name} than {base}."
        )
        not_significant = [p for p in known if p.significant is False]
        untested = [p for p in known if p.significant is None]
        if not_significant:
            where = ", ".join(_where(p.value, unit) for p in not_significant)
            sentences.append(
                f"At {where} the difference between {other} and {base} is not significant "
                f"(Welch's t-test, α = {ALPHA}): it is within the run-to-run noise."
            )
        if untested:
            where = ", ".join(_where(p.value, unit) for p in untested)
            sentences.append(
                f"At {where} a side has a single run, so whether the difference is real "
                f"cannot be tested: measure more runs there."
            )
        wins = (
            sum(1 for p in known if (p.difference or 0) > 0)
            if higher_is_better
            else sum(1 for p in known if (p.difference or 0) < 0)
        )
        better, worse = (other, base) if (mean_diff > 0) == higher_is_better else (base, other)
        if mean_diff == 0:
            sentences.append(f"Overall, {other} and {base} measured the same {name}.")
        else:
            count = wins if better == other else len(known) - wins
            sentences.append(
                f"Overall {better} is better than {worse}: "
                f"{'higher' if higher_is_better else 'lower'} {name} at {count} of "
                f"{len(known)} points, by {format_value(metric, mean_diff)}{mean_rel} on "
                f"average."
            )
    return sentences


def _verdict(point: ComparedPoint) -> str:
    if point.significant is None:
        return "not testable: a side has a single run"
    assert point.p_value is not None
    p = "p < 0.001" if point.p_value < 0.001 else f"p = {point.p_value:.3f}"
    return f"significant, {p}" if point.significant else f"not significant, {p}"
