"""What a report shows besides the comparison: every compared session's point summaries (for
the papers' mean ± SD tables of throughput, loss, jitter, retransmits and RTT) and, per pair,
the throughput over time of one typical run from each side, read from the stored samples."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from app.analysis.compare import (
    Comparison,
    Mode,
    SeriesData,
    compare,
    series_data,
    within_session,
)
from app.analysis.context_checks import context_checks
from app.analysis.points import PointSummary, point_summaries
from app.domain.net import Flow, Protocol
from app.domain.plan import RunKind
from app.domain.records import RunRecord
from app.domain.results import Sample
from app.study.frontdoor import FrontDoor


@dataclass(frozen=True)
class Timeline:
    """One run's throughput over time: the run closest to its point's median."""

    label: str  # the curve's label
    value: float | str  # the swept value of the run
    repetition: int
    samples: tuple[Sample, ...]
    protocol: Protocol = Protocol.TCP

    def _drawn(self) -> list[Sample]:
        """The run's upload intervals with a receiver's figure (its download's when it has
        no upload): the same throughput as the tables, never the sender's."""
        flows = [s for s in self.samples if s.goodput_bps(self.protocol) is not None]
        return [s for s in flows if s.flow is Flow.UP] or flows

    def points(self) -> list[tuple[float, float]]:
        """(end of interval in s, what the receiver got in bit/s) of the intervals drawn."""
        return [(s.end_s, s.goodput_bps(self.protocol) or 0.0) for s in self._drawn()]

    def intervals(self) -> int:
        """The intervals drawn that are whole: a run's last sliver (1.00–1.01 s, what the
        engine counted after its last report) is no interval of its own to read a trend in."""
        shown = self._drawn()
        longest = max((s.end_s - s.start_s for s in shown), default=0.0)
        return sum(1 for s in shown if s.end_s - s.start_s >= longest / 2)


@dataclass(frozen=True)
class ReportData:
    comparison: Comparison
    points: dict[str, list[PointSummary]]  # session id -> its point summaries
    timelines: list[tuple[str, list[Timeline]]]  # a title, and a run of each side
    #: The titles whose typical runs hold one interval each (a run as long as its report
    #: interval): no curve over time to draw.
    one_interval: tuple[str, ...] = ()


def typical_run(
    runs: Sequence[RunRecord], curve: SeriesData, value: float | str
) -> RunRecord | None:
    """The successful throughput run of the curve at value closest to the median."""
    here = [
        r
        for r in runs
        if r.ok
        and r.key.series == curve.series
        and r.key.kind is RunKind.STREAM
        and r.value == value
        and r.metrics.throughput_bps is not None
    ]
    if not here:
        return None
    middle = statistics.median(r.metrics.throughput_bps or 0.0 for r in here)
    return min(here, key=lambda r: abs((r.metrics.throughput_bps or 0.0) - middle))


def collect(comparison: Comparison, door: FrontDoor) -> ReportData:
    """Read what the report needs from the database of the front door."""
    stored = door.sessions()
    runs: dict[str, list[RunRecord]] = {s.id: stored.runs(s.id) for s in comparison.sessions}
    points = {s.id: point_summaries(s.plan, runs[s.id]) for s in comparison.sessions}
    groups: list[tuple[str, list[SeriesData]]] = [
        (f"{p.other.label} against {p.baseline.label}", [p.baseline, p.other])
        for p in comparison.pairs
    ]
    groups += [(curve.label, [curve]) for curve in comparison.unpaired]
    timelines = []
    one_interval: list[str] = []
    for title, curves in groups:
        shared = set.intersection(*(set(v for v, xs in c.values.items() if xs) for c in curves))
        if not shared:
            continue
        value = max(shared)  # the largest point: where a link is nearest its limit
        picked = []
        for curve in curves:
            run = typical_run(runs[curve.session.id], curve, value)
            if run is not None:
                samples = tuple(stored.samples(run.id))
                picked.append(
                    Timeline(curve.label, value, run.key.repetition, samples, run.key.protocol)
                )
        if picked and max(t.intervals() for t in picked) < 2:
            one_interval.append(title)
        elif picked:
            timelines.append((title, picked))
    return ReportData(comparison, points, timelines, tuple(one_interval))


def sessions_comparison(
    door: FrontDoor, refs: Sequence[str], metric: str = "throughput_bps"
) -> Comparison:
    """What a report of sessions shows: one session's series in pairs differing in one way, or
    several sessions like with like against the first (the baseline)."""
    stored = door.sessions()
    sessions = [stored.get(ref) for ref in refs]
    runs = {s.id: stored.runs(s.id) for s in sessions}
    if len(sessions) == 1:
        return within_session(sessions[0], runs[sessions[0].id], metric)
    items = [item for s in sessions for item in series_data(s, runs[s.id], metric)]
    context = [w for s in sessions for w in context_checks(s, runs[s.id])]
    return compare(
        items, metric, mode=Mode.SESSIONS, baseline_session=sessions[0].id, context=context
    )
