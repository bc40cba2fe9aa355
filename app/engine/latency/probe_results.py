"""What a probe run finds: per-probe records, their summary, and the matching of replies to
probes by sequence number (reordering, duplicates, loss) that produces them."""

from __future__ import annotations

import copy
import math
import statistics
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.engine.latency.echo import SEQ_MODULO

DEFAULT_TIMEOUT_S = 1.0
DEFAULT_KEEP = 60_000  # per-probe records kept: 10 minutes at the default interval
_REMEMBERED = 4096  # answered or lost sequence numbers kept to tell duplicates from strays
_ADAPT_EVERY = 16  # replies between updates of the loss timeout


class LatencyMethod(StrEnum):
    UDP_ECHO = "udp-echo"  # LinkLab's responder
    TCP_CONNECT = "tcp-connect"  # handshake time to a listening port (netserver or iperf3)
    REQUEST_RESPONSE = "netperf-rr"  # netperf's request/response test (TCP_RR)


@dataclass(frozen=True)
class ProbeRecord:
    seq: int
    sent_s: float  # seconds after the first probe
    rtt_ms: float | None  # None: lost
    reordered: bool = False  # answered after a probe sent later than it

    @property
    def lost(self) -> bool:
        return self.rtt_ms is None


@dataclass(frozen=True)
class ProbeSummary:
    """Counts cover every probe; the round-trip figures cover the records kept (the most
    recent `window` answered probes), except min, max and mean, which cover every one."""

    method: LatencyMethod
    host: str
    port: int
    sent: int
    received: int
    lost: int
    reordered: int
    duplicates: int
    late: int  # replies that came after their probe had been counted lost
    window: int
    min_ms: float | None
    median_ms: float | None
    mean_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    trimmed_mean_ms: float | None
    interval_s: float
    kernel_timestamps: bool = False  # replies stamped by the kernel on arrival

    @property
    def loss_pct(self) -> float | None:
        resolved = self.received + self.lost
        return 100.0 * self.lost / resolved if resolved else None


class ProbeMatcher:
    """Sent probes waiting for their replies; no clock of its own, no threads (callers lock)."""

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S, keep: int = DEFAULT_KEEP) -> None:
        self.min_timeout_ns = int(timeout_s * 1e9)
        self.timeout_ns = self.min_timeout_ns
        self._outstanding: OrderedDict[int, int] = OrderedDict()  # seq -> sent ns
        self._resolved: OrderedDict[int, bool] = OrderedDict()  # seq -> answered
        self._records: deque[ProbeRecord] = deque(maxlen=keep)
        self._recent: deque[float] = deque(maxlen=64)
        self._origin_ns: int | None = None
        self._highest_sent = -1
        self._highest_answered = -1
        self.sent = self.received = self.lost = 0
        self.reordered = self.duplicates = self.late = 0
        self._min_ms: float | None = None
        self._max_ms: float | None = None
        self._sum_ms = 0.0

    @property
    def outstanding(self) -> int:
        return len(self._outstanding)

    def unwrap(self, wire_seq: int) -> int:
        """The full sequence number of a 32-bit one from the wire (the nearest one sent)."""
        return self._highest_sent - ((self._highest_sent - wire_seq) % SEQ_MODULO)

    def on_sent(self, seq: int, at_ns: int) -> None:
        if self._origin_ns is None:
            self._origin_ns = at_ns
        self._outstanding[seq] = at_ns
        self._highest_sent = max(self._highest_sent, seq)
        self.sent += 1

    def on_reply(self, seq: int, at_ns: int, rtt_ns: int | None = None) -> ProbeRecord | None:
        """The record of an answered probe, or None for a duplicate, late or unknown reply.

        rtt_ns, when given, is a more precise round trip (kernel stamps); it is used only
        when it is no longer than the one measured here, which always includes it."""
        sent_ns = self._outstanding.pop(seq, None)
        if sent_ns is None:
            answered = self._resolved.get(seq)
            if answered is True:
                self.duplicates += 1
            elif answered is False:
                self.late += 1
            return None
        measured = at_ns - sent_ns
        if rtt_ns is not None and 0 < rtt_ns <= measured:
            measured = rtt_ns
        rtt_ms = measured / 1e6
        reordered = seq < self._highest_answered
        self._highest_answered = max(self._highest_answered, seq)
        self.received += 1
        self.reordered += reordered
        self._sum_ms += rtt_ms
        self._min_ms = rtt_ms if self._min_ms is None else min(self._min_ms, rtt_ms)
        self._max_ms = rtt_ms if self._max_ms is None else max(self._max_ms, rtt_ms)
        self._recent.append(rtt_ms)
        if self.received % _ADAPT_EVERY == 0:
            # A queue that fills under load stretches every round trip; a fixed timeout would
            # then count slow replies as lost.
            adaptive = int(4 * statistics.median(self._recent) * 1e6)
            self.timeout_ns = max(self.min_timeout_ns, adaptive)
        return self._resolve(seq, sent_ns, rtt_ms, reordered)

    def expire(self, now_ns: int) -> list[ProbeRecord]:
        """Count as lost the probes unanswered for longer than the timeout."""
        lost = []
        while self._outstanding:
            seq, sent_ns = next(iter(self._outstanding.items()))
            if now_ns - sent_ns < self.timeout_ns:
                break
            del self._outstanding[seq]
            self.lost += 1
            lost.append(self._resolve(seq, sent_ns, None, False))
        return lost

    def next_expiry_ns(self) -> int | None:
        if not self._outstanding:
            return None
        return next(iter(self._outstanding.values())) + self.timeout_ns

    def discard_outstanding(self) -> None:
        """Forget probes still in flight (a stop by the user): neither answered nor lost."""
        self.sent -= len(self._outstanding)
        self._outstanding.clear()

    def _resolve(
        self, seq: int, sent_ns: int, rtt_ms: float | None, reordered: bool
    ) -> ProbeRecord:
        self._resolved[seq] = rtt_ms is not None
        if len(self._resolved) > _REMEMBERED:
            self._resolved.popitem(last=False)
        origin = self._origin_ns if self._origin_ns is not None else sent_ns
        record = ProbeRecord(seq, (sent_ns - origin) / 1e9, rtt_ms, reordered)
        self._records.append(record)
        return record

    def snapshot(self) -> ProbeMatcher:
        """A copy to summarise outside the caller's lock: the records are copied, the rest is
        shared and must not be changed through it."""
        twin = copy.copy(self)
        twin._records = self._records.copy()
        return twin

    def records(self) -> tuple[ProbeRecord, ...]:
        return tuple(sorted(self._records, key=lambda r: r.seq))

    def summary(
        self,
        method: LatencyMethod,
        host: str,
        port: int,
        interval_s: float,
        kernel_timestamps: bool = False,
    ) -> ProbeSummary:
        import numpy as np  # on first use: a study without latency probes never needs it

        rtts = np.array([r.rtt_ms for r in self._records if r.rtt_ms is not None], dtype=float)
        median: float | None = None
        p90: float | None = None
        p99: float | None = None
        if rtts.size:
            median, p90, p99 = (float(v) for v in np.percentile(rtts, [50, 90, 99]))
        trimmed = trimmed_mean(rtts)
        return ProbeSummary(
            method=method,
            host=host,
            port=port,
            sent=self.sent,
            received=self.received,
            lost=self.lost,
            reordered=self.reordered,
            duplicates=self.duplicates,
            late=self.late,
            window=int(rtts.size),
            min_ms=self._min_ms,
            median_ms=median,
            mean_ms=self._sum_ms / self.received if self.received else None,
            p90_ms=p90,
            p99_ms=p99,
            max_ms=self._max_ms,
            trimmed_mean_ms=trimmed,
            interval_s=interval_s,
            kernel_timestamps=kernel_timestamps,
        )


#: The responsiveness draft trims the slowest 5 % of the round trips before averaging (its
#: "95th percentile trimmed mean"); the fastest are kept, since a link is never faster than
#: it is.
TRIM_SLOWEST = 0.05


def trimmed_mean(values: Iterable[float], slowest: float = TRIM_SLOWEST) -> float | None:
    """Mean after dropping the largest `slowest` share of the values (None when empty): the
    cut of scipy.stats.trim1(tail="right"), int(share x n) values, which trim_mean would make
    on both tails."""
    import numpy as np

    data = np.sort(np.array([v for v in values if math.isfinite(v)], dtype=float))
    if data.size == 0:
        return None
    if not 0.0 <= slowest < 1.0:
        raise ValueError(f"the share to trim must be in [0, 1), not {slowest}")
    cut = int(slowest * data.size)
    return float(np.mean(data[: data.size - cut]))
