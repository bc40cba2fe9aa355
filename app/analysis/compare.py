"""Comparisons that answer the question asked: sessions compared series by series, like with
like (the same protocol, IP version and direction), against a baseline session the user picks;
or, as a separate choice, the series within one session. Per point: the difference and Welch's
t-test, with Holm's correction over the points of a pair, and the interval of the difference at
the level of the point's Holm step (significant exactly where it excludes zero)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from app.analysis.confounds import confounds
from app.analysis.context_checks import ContextWarning, context_checks
from app.analysis.findings import findings
from app.analysis.pair_words import (
    INTERVAL_METHOD,
    LEVELS_WHY,
    format_difference,
    format_value,
    interval_cell,
    level_text,
    mean_numbers,
    means_text,
    point_status,
)
from app.analysis.pairs import (
    METRIC_INFO,
    METRIC_NAMES,
    PERCENT_METRICS,
    ComparedPoint,
    Comparison,
    Mode,
    PairComparison,
    SeriesData,
    compare_pair,
    measured_metrics,
    metric_key,
    metric_values,
    series_data,
)
from app.analysis.significance import ALPHA, holm, welch
from app.domain.net import Direction, Protocol
from app.domain.plan import Security
from app.domain.plan_fields import VARIABLE_LABELS
from app.domain.records import RunRecord, SessionRecord

# The comparison's parts are imported from here by the window, the reports and the CLI.
__all__ = [
    "ALPHA",
    "INTERVAL_METHOD",
    "LEVELS_WHY",
    "METRIC_INFO",
    "METRIC_NAMES",
    "PERCENT_METRICS",
    "ComparedPoint",
    "Comparison",
    "Mode",
    "PairComparison",
    "SeriesData",
    "compare",
    "compare_pair",
    "format_difference",
    "format_value",
    "holm",
    "interval_cell",
    "legend_labels",
    "level_text",
    "mean_numbers",
    "means_text",
    "measured_metrics",
    "metric_key",
    "metric_values",
    "offered_metrics",
    "pair_like_with_like",
    "pair_one_factor",
    "point_status",
    "series_data",
    "welch",
    "within_session",
]


def pair_like_with_like(
    items: Sequence[SeriesData], baseline_session: str
) -> tuple[list[tuple[SeriesData, SeriesData]], list[SeriesData]]:
    """Each series of the other sessions with the baseline session's series of the same
    protocol, IP version and direction; the ones with no partner are left unpaired."""
    base = {s.like: s for s in items if s.session.id == baseline_session}
    pairs = []
    unpaired = []
    partnered: set[str] = set()
    for item in items:
        if item.session.id == baseline_session:
            continue
        partner = base.get(item.like)
        if partner is None:
            unpaired.append(item)
        else:
            pairs.append((partner, item))
            partnered.add(partner.key)
    unpaired += [s for s in base.values() if s.key not in partnered]
    return pairs, unpaired


def matched(
    items: Sequence[SeriesData], mode: Mode, baseline_session: str | None = None
) -> tuple[list[tuple[SeriesData, SeriesData]], list[SeriesData]]:
    """The pairs a comparison makes of items (baseline, other), and the items left alone."""
    if mode is Mode.SESSIONS:
        return pair_like_with_like(items, baseline_session or items[0].session.id)
    if mode is Mode.WITHIN:
        return pair_one_factor(items)
    unpaired = list(items) if len(items) == 1 else []  # one series: shown, not compared
    return [(items[0], other) for other in items[1:]], unpaired


#: What the series within a session can differ in, in the order their pairs are listed.
FACTORS = ("protocol", "IP version", "direction", "session")


def _factors(item: SeriesData, sessions: Sequence[str]) -> tuple[int, ...]:
    """A series' place along each factor: TCP before UDP, IPv4 before IPv6, upload before
    download, sessions as given; this order also makes the baseline of each pair."""
    return (
        list(Protocol).index(item.series.protocol),
        int(item.series.ip_version),
        list(Direction).index(item.direction),
        sessions.index(item.session.id),
    )


def pair_one_factor(
    items: Sequence[SeriesData],
) -> tuple[list[tuple[SeriesData, SeriesData]], list[SeriesData]]:
    """The series of one session in like-for-like pairs, each differing in exactly one factor
    (UDP · IPv6 against TCP · IPv6, TCP · IPv6 against TCP · IPv4; never UDP · IPv6 against
    TCP · IPv4, which changes two at once): protocol pairs first, then IP version, then
    direction, the earlier series of each pair its baseline. A series without such a partner
    is left unpaired (shown, not compared)."""
    sessions = list(dict.fromkeys(i.session.id for i in items))
    ordered = sorted(items, key=lambda i: _factors(i, sessions))
    places = [_factors(i, sessions) for i in ordered]
    pairs = []
    for factor in range(len(FACTORS)):
        for a, base in enumerate(ordered):
            for b in range(a + 1, len(ordered)):
                differ = [k for k in range(len(FACTORS)) if places[a][k] != places[b][k]]
                if differ == [factor]:
                    pairs.append((base, ordered[b]))
    paired = {id(s) for pair in pairs for s in pair}
    return pairs, [i for i in ordered if id(i) not in paired]


def offered_metrics(
    items: Sequence[SeriesData],
    measured: Mapping[str, frozenset[str]],
    mode: Mode = Mode.SESSIONS,
    baseline_session: str | None = None,
) -> list[str]:
    """The metrics worth offering for a comparison: those both sides of some pair measured
    (measured_metrics), in the order of METRIC_INFO; throughput at least."""
    if not items:
        return ["throughput_bps"]
    pairs, _ = matched(items, mode, baseline_session)
    sides = [(a.key, b.key) for a, b in pairs] or [(i.key, i.key) for i in items]
    offered = [
        metric
        for metric in METRIC_INFO
        if any(
            metric in measured.get(a, frozenset()) and metric in measured.get(b, frozenset())
            for a, b in sides
        )
    ]
    return offered or ["throughput_bps"]


def compare(
    items: Sequence[SeriesData],
    metric: str = "throughput_bps",
    *,
    mode: Mode = Mode.SESSIONS,
    baseline_session: str | None = None,
    context: Sequence[ContextWarning] = (),
) -> Comparison:
    """The comparison the user asked for: sessions like with like (the default), the series
    within one session in pairs differing in one factor only, or picked series, each against
    the first. context: the compared
    sessions' context checks (app.analysis.context_checks); those about a compared session
    and series are raised to the comparison's warnings, after the confounds."""
    if not items:
        raise ValueError("nothing to compare")
    labels = legend_labels(items)
    items = [replace(i, label=label) for i, label in zip(items, labels, strict=True)]
    baseline_id = baseline_session or items[0].session.id
    matches, unpaired = matched(items, mode, baseline_id)
    pairs = [compare_pair(base, other) for base, other in matches]
    first = next((i.session for i in items if i.session.id == baseline_id), items[0].session)
    label, unit = VARIABLE_LABELS[first.plan.variable]
    partial = Comparison(metric, label, unit, mode, pairs, unpaired, baseline_session=first)
    sessions = partial.sessions
    said = confounds(first, sessions[1:]) if mode is Mode.SESSIONS else []
    said += raised_context(partial, context)
    return Comparison(
        metric,
        label,
        unit,
        mode,
        pairs,
        unpaired,
        said,
        findings(partial),
        first,
    )


def within_session(
    session: SessionRecord, runs: Sequence[RunRecord], metric: str = "throughput_bps"
) -> Comparison:
    """One session's series against each other, in pairs that differ in one way only, with
    its context checks raised: what its report, its view and Compare its series say."""
    items = series_data(session, runs, metric)
    return compare(items, metric, mode=Mode.WITHIN, context=context_checks(session, runs))


def raised_context(comparison: Comparison, context: Sequence[ContextWarning]) -> list[str]:
    """The context checks of the compared curves' sessions (those about a series only where
    that series is compared), each named by its session when several are compared."""
    curves = {(c.session.id, c.series) for c in comparison.curves}
    sessions = {c.session.id: c.session for c in comparison.curves}
    named = len(sessions) > 1
    said = []
    for warning in context:
        session = sessions.get(warning.session_id)
        if session is None:
            continue
        if warning.series is not None and (warning.session_id, warning.series) not in curves:
            continue
        prefix = f"“{session.name or session.short_id}”: " if named else ""
        said.append(prefix + warning.sentence)
    return list(dict.fromkeys(said))


def legend_labels(items: Sequence[SeriesData]) -> list[str]:
    """Labels from what differs between the curves: "TCP · IPv4 · Open", "TCP · IPv4 · WPA2"."""

    def facets(item: SeriesData) -> list[tuple[str, str]]:
        conditions = item.session.plan.conditions
        security = conditions.security
        return [
            ("protocol", item.series.protocol.value.upper()),
            ("ip", f"IPv{int(item.series.ip_version)}"),
            ("security", "Open" if security is Security.OPEN else security.value),
            ("medium", conditions.medium.value),
            ("direction", item.session.plan.direction.value),
            *sorted((f"tag:{k}", f"{k}={v}" if v else k) for k, v in conditions.tags),
        ]

    all_facets = [dict(facets(item)) for item in items]
    keys = [k for k, _ in facets(items[0])] if items else []
    for facet_map in all_facets[1:]:
        keys += [k for k in facet_map if k not in keys]
    varying = [k for k in keys if len({f.get(k, "") for f in all_facets}) > 1]
    # A series is always named by its protocol and IP version, even where all share them.
    shown = ["protocol", "ip", *[k for k in varying if k not in ("protocol", "ip")]]
    labels = [
        " · ".join(facet[k] for k in shown if facet.get(k) and facet[k] != "unknown")
        for facet in all_facets
    ]
    # Still the same (e.g. two sessions alike in every stated way): add the session.
    if len(set(labels)) < len(labels):
        labels = [
            f"{label} ({item.session.name or item.session.short_id})"
            for label, item in zip(labels, items, strict=True)
        ]
    return labels
