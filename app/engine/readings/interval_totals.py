"""A run's end-of-run figures added up from its interval reports: for a run cut short before
its engine stated its totals (a monitor's Stop ends its last run so), what it measured until
then, flow by flow, as the engine's own summary would say it."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from app.domain.metrics import FIGURES
from app.domain.net import Flow
from app.domain.results import FlowSummary, RunSummary, Sample


def summary_of(samples: Sequence[Sample]) -> RunSummary:
    """The totals of the intervals given: rates as their time-weighted means (bytes over
    seconds, as iperf3 states a run's rate), bytes and counts of events (retransmits,
    datagrams) added up, jitter and one-way delay as the intervals' mean, round-trip times
    as the intervals' mean, lowest and highest."""
    flows: list[FlowSummary] = []
    measured = [s for s in samples if not s.omitted and s.end_s > s.start_s]
    for flow in (Flow.UP, Flow.DOWN):
        mine = [s for s in measured if s.flow is flow]
        if not mine:
            continue
        sent, sent_bytes = _rate(mine, lambda s: s.sent_bps)
        received, received_bytes = _rate(mine, lambda s: s.received_bps)
        counts: dict[str, Any] = {n: _total([getattr(s, n) for s in mine]) for n in _COUNTS}
        flows.append(
            FlowSummary(
                flow=flow,
                sender_bps=sent,
                receiver_bps=received,
                sender_bytes=sent_bytes,
                receiver_bytes=received_bytes,
                jitter_ms=_mean([s.jitter_ms for s in mine]),
                owd_ms=_mean([s.owd_ms for s in mine]),
                **counts,
            )
        )
    rtts = [s.rtt_ms for s in measured if s.rtt_ms is not None]
    return RunSummary(
        flows=tuple(flows),
        rtt_mean_ms=statistics.fmean(rtts) if rtts else None,
        rtt_min_ms=min(rtts) if rtts else None,
        rtt_max_ms=max(rtts) if rtts else None,
    )


#: The counts of events a flow states per interval, which add up over them.
_COUNTS = tuple(f.name for f in FIGURES if f.count and f.interval and f.flow)


def _rate(
    samples: Sequence[Sample], rate_of: Callable[[Sample], float | None]
) -> tuple[float | None, int | None]:
    """The rate over the intervals that state it (bit/s, weighted by their length) and the
    bytes it carried; (None, None) when none does."""
    known = [(rate, s.end_s - s.start_s) for s in samples if (rate := rate_of(s)) is not None]
    seconds = sum(length for _rate, length in known)
    if not known or seconds <= 0:
        return None, None
    bits = sum(rate * length for rate, length in known)
    return bits / seconds, round(bits / 8)


def _total(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None
