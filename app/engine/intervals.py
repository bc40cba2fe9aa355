"""The two ends' interval reports of a run joined into one sample per interval: the
receiver's figures (what arrived: goodput, loss, jitter) with the sender's rate beside them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

from app.domain.net import Flow
from app.domain.results import Sample


def join(own: Sequence[Sample], far: Sequence[Sample]) -> tuple[Sample, ...]:
    """This end's samples with the far end's joined in, flow by flow. The receiver's
    intervals set the times; the sender's interval of the same place in the sequence (when it
    starts within half an interval of it) gives sent_bps and its socket figures. A short last
    interval of the receiver (datagrams still on their way when the sender stopped) is added
    to the one before it, so it does not count as an interval of its own."""
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
        receiver = _fold_tail(receiver)
        width = statistics.median(s.end_s - s.start_s for s in receiver)
        for index, got in enumerate(receiver):
            partner = sender[index] if index < len(sender) else None
            if partner is not None and abs(partner.start_s - got.start_s) <= width / 2:
                joined.append(_pair(got, partner))
            else:
                joined.append(replace(got, sent_bps=None))
    return tuple(sorted(joined, key=lambda s: (s.start_s, s.flow is Flow.DOWN)))


def _pair(got: Sample, sent: Sample) -> Sample:
    """The receiver's interval with the sender's rate and socket figures (TCP retransmits,
    RTT and congestion window are known only where the data was sent)."""
    return replace(
        got,
        sent_bps=sent.sent_bps,
        retransmits=sent.retransmits if sent.retransmits is not None else got.retransmits,
        rtt_ms=sent.rtt_ms if sent.rtt_ms is not None else got.rtt_ms,
        cwnd_bytes=sent.cwnd_bytes if sent.cwnd_bytes is not None else got.cwnd_bytes,
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

    return replace(
        first,
        end_s=second.end_s,
        received_bps=rate(first.received_bps, second.received_bps),
        sent_bps=rate(first.sent_bps, second.sent_bps),
        bytes=add(first.bytes, second.bytes),
        lost_packets=add(first.lost_packets, second.lost_packets),
        packets=add(first.packets, second.packets),
        jitter_ms=second.jitter_ms if second.jitter_ms is not None else first.jitter_ms,
    )
