"""The two ends' interval reports of a run joined into one sample per interval: the
receiver's figures (what arrived: goodput, loss, jitter) with the sender's rate beside them."""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.domain.metrics import FIGURES
from app.domain.net import Flow
from app.domain.results import Sample

#: The far end's intervals are coarser than this end's when their usual width is more than this
#: many times wider (beyond the few per cent two ends' clocks and timers differ by).
COARSER = 1.5
#: The counts of events per interval (datagrams lost, out of order...), which add up.
_COUNTS = tuple(f.name for f in FIGURES if f.count and f.interval)


def join(own: Sequence[Sample], far: Sequence[Sample]) -> tuple[Sample, ...]:
    """This end's samples with the far end's joined in, flow by flow. The receiver's
    intervals set the times (the server reports at its own interval, which may differ from
    the client's); the sender's rate beside each is its rate over the same stretch of time,
    its intervals weighted by how much of them falls inside. A far end that reports coarser
    than this end leaves this end's samples as they are. A short last interval of the
    receiver (datagrams still on their way when the sender stopped) is added to the one
    before it, so it does not count as an interval of its own."""
    joined: list[Sample] = []
    for flow in (Flow.UP, Flow.DOWN):
        mine = [s for s in own if s.flow is flow and not s.omitted]
        theirs = [s for s in far if s.flow is flow and not s.omitted]
        if not theirs or not mine:
            joined += mine
            continue
        if any(s.received_bps is not None for s in mine):
            receiver, sender = mine, theirs
        elif any(s.received_bps is not None for s in theirs):
            receiver, sender = theirs, mine
        else:
            joined += mine
            continue
        if receiver is theirs and _width(theirs) > COARSER * _width(mine):
            # A server that reports coarser than the client asked (iperf3 -s reports every
            # second whatever the client's -i): the client's own finer samples are kept, as
            # a 0.1-s study asked, rather than replaced by fewer.
            joined += mine
            continue
        receiver = _fold_tail(receiver)
        sender = sorted(sender, key=lambda s: s.start_s)
        sender_ends = [s.end_s for s in sender]
        receiver_ends = [s.end_s for s in receiver]
        # Each sender's interval lends its socket figures to the receiver's it overlaps most.
        nearest: dict[int, list[Sample]] = {}
        for sent in sender:
            best = max(
                _overlapping(receiver, receiver_ends, sent),
                key=lambda i: _overlap(receiver[i], sent),
                default=None,
            )
            if best is not None:
                nearest.setdefault(best, []).append(sent)
        for i, got in enumerate(receiver):
            during = [sender[j] for j in _overlapping(sender, sender_ends, got)]
            joined.append(_pair(got, during, nearest.get(i, [])))
    return tuple(sorted(joined, key=lambda s: (s.start_s, s.flow is Flow.DOWN)))


def _width(samples: Sequence[Sample]) -> float:
    """The usual width of the intervals (the median: a short last one does not count)."""
    return statistics.median(s.end_s - s.start_s for s in samples)


def _overlapping(ordered: Sequence[Sample], ends: Sequence[float], span: Sample) -> list[int]:
    """The indexes of the samples (in time order, none overlapping another; `ends` their end
    times) that share some time with span: found by bisection, so that joining a day of
    intervals stays quick."""
    first = bisect.bisect_right(ends, span.start_s)
    found = []
    for index in range(first, len(ordered)):
        if ordered[index].start_s >= span.end_s:
            break
        if _overlap(ordered[index], span) > 0:
            found.append(index)
    return found


def _overlap(a: Sample, b: Sample) -> float:
    return max(0.0, min(a.end_s, b.end_s) - max(a.start_s, b.start_s))


def _pair(got: Sample, during: Sequence[Sample], inside: Sequence[Sample]) -> Sample:
    """The receiver's interval with the sender's rate over the same time (its intervals
    `during` it, weighted by how much of them falls inside), and the socket figures of those
    that lie mostly inside it (TCP retransmits, RTT and congestion window are known only where
    the data was sent)."""
    weighted = [(_overlap(got, s), s.sent_bps) for s in during if s.sent_bps is not None]
    total = sum(w for w, _ in weighted)
    sent = sum(w * bps for w, bps in weighted) / total if total > 0 else None
    retransmits = [s.retransmits for s in inside if s.retransmits is not None]
    rtts = [s.rtt_ms for s in inside if s.rtt_ms is not None]
    cwnds = [s.cwnd_bytes for s in inside if s.cwnd_bytes is not None]
    return replace(
        got,
        sent_bps=sent,
        retransmits=sum(retransmits) if retransmits else got.retransmits,
        rtt_ms=statistics.fmean(rtts) if rtts else got.rtt_ms,
        cwnd_bytes=cwnds[-1] if cwnds else got.cwnd_bytes,
    )


def _fold_tail(samples: list[Sample]) -> list[Sample]:
    if len(samples) < 2:
        return samples
    *head, before, last = samples
    width = statistics.median(s.end_s - s.start_s for s in samples)
    if last.end_s - last.start_s >= width / 2:
        return samples
    return [*head, _merged(before, last)]


def _merged(first: Sample, second: Sample) -> Sample:
    """Two consecutive intervals as one: rates weighted by their durations, counts added."""
    spans = (first.end_s - first.start_s, second.end_s - second.start_s)
    total = sum(spans)

    def rate(a: float | None, b: float | None) -> float | None:
        if a is None or b is None or total <= 0:
            return a
        return (a * spans[0] + b * spans[1]) / total

    def add(a: int | None, b: int | None) -> int | None:
        return a + b if a is not None and b is not None else a

    counts: dict[str, Any] = {n: add(getattr(first, n), getattr(second, n)) for n in _COUNTS}
    return replace(
        first,
        end_s=second.end_s,
        received_bps=rate(first.received_bps, second.received_bps),
        sent_bps=rate(first.sent_bps, second.sent_bps),
        bytes=add(first.bytes, second.bytes),
        **counts,
        jitter_ms=second.jitter_ms if second.jitter_ms is not None else first.jitter_ms,
        owd_ms=rate(first.owd_ms, second.owd_ms),
    )


def with_late(samples: Sequence[Sample], late: Sequence[Sample]) -> tuple[Sample, ...]:
    """The samples with the counts the engine stated late (LateCounts) added to those of the
    sample of the same flow and start."""
    revised = list(samples)
    for extra in late:
        for index, sample in enumerate(revised):
            if sample.flow is extra.flow and abs(sample.start_s - extra.start_s) < 1e-3:
                counts: dict[str, Any] = {
                    name: (getattr(sample, name) or 0) + value
                    for name in _COUNTS
                    if (value := getattr(extra, name)) is not None
                }
                revised[index] = replace(sample, **counts)
                break
    return tuple(revised)
