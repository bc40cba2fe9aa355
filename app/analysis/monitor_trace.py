"""A monitor's curves over time in bounded memory, however long it runs: each curve keeps its
latest points at full resolution (an hour at 0.1 s intervals, ten at 1 s) and its whole history
in a fixed number of buckets (lowest, highest and mean of the points in each), whose span
doubles whenever the history outgrows them. Every interval is in the database; these are what
a chart draws. Times are seconds since the monitor started."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from app.domain.net import Flow, Protocol
from app.domain.results import LatencySecond, Sample
from app.domain.units import format_rate

RECENT_POINTS = 36_000
#: A stretch this many report intervals long without one is a gap (the peer gone).
GAP_STEPS = 2.5
HISTORY_BUCKETS = 2048
FIRST_SPAN_S = 1.0


class Ring:
    """The last `size` (time, value) points, oldest first."""

    def __init__(self, size: int = RECENT_POINTS) -> None:
        self.size = size
        # Filled, not zeros: the memory is taken at the start rather than page by page as the
        # ring fills (np.zeros leaves untouched pages to the operating system).
        self._t = np.full(size, 0.0)
        self._v = np.full(size, 0.0)
        self._next = 0
        self.count = 0  # points held (at most size)
        self.total = 0  # points ever added

    def add(self, t: float, value: float) -> None:
        self._t[self._next] = t
        self._v[self._next] = value
        self._next = (self._next + 1) % self.size
        self.count = min(self.count + 1, self.size)
        self.total += 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.since(-np.inf)

    def since(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """The points from time t on, oldest first: copies of those only (a window of minutes
        out of hours costs its own points, not the whole ring's)."""
        if self.count < self.size:
            parts = [(0, self.count)]
        else:  # wrapped: the older part from _next to the end, then from the start
            parts = [(self._next, self.size), (0, self._next)]
        times, values = [], []
        for begin, end in parts:
            first = begin + int(np.searchsorted(self._t[begin:end], t))
            times.append(self._t[first:end])
            values.append(self._v[first:end])
        return np.concatenate(times), np.concatenate(values)

    @property
    def first_t(self) -> float | None:
        if not self.count:
            return None
        return float(self._t[0 if self.count < self.size else self._next])


class Buckets:
    """The whole history as at most `size` buckets from time 0, each `span` seconds wide."""

    def __init__(self, size: int = HISTORY_BUCKETS, span: float = FIRST_SPAN_S) -> None:
        self.size = size
        self.span = span
        self._low = np.full(size, np.inf)
        self._high = np.full(size, -np.inf)
        self._sum = np.full(size, 0.0)
        self._n = np.full(size, 0, dtype=np.int64)

    def add(self, t: float, value: float) -> None:
        index = int(max(t, 0.0) // self.span)
        while index >= self.size:
            self._merge_pairs()
            index = int(max(t, 0.0) // self.span)
        self._low[index] = min(self._low[index], value)
        self._high[index] = max(self._high[index], value)
        self._sum[index] += value
        self._n[index] += 1

    def _merge_pairs(self) -> None:
        half = self.size // 2
        for values, pair, empty in (
            (self._low, np.minimum, np.inf),
            (self._high, np.maximum, -np.inf),
            (self._sum, np.add, 0.0),
            (self._n, np.add, 0),
        ):
            merged = pair(values[0::2], values[1::2])
            values[:half] = merged
            values[half:] = empty
        self.span *= 2

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(mid-times, means, lows, highs) of the buckets holding any point."""
        held = np.nonzero(self._n)[0]
        times = (held + 0.5) * self.span
        means = self._sum[held] / self._n[held]
        return times, means, self._low[held], self._high[held]


@dataclass(frozen=True)
class _Held:
    """A curve as it was before points were held: enough to take them back."""

    ring: tuple[int, int, int]  # the ring's next slot, count and total
    buckets: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]
    figures: tuple[float, int, float | None, float | None, float | None, float | None]

    @classmethod
    def of(cls, trace: Trace) -> _Held:
        ring, history = trace.recent, trace.history
        return cls(
            (ring._next, ring.count, ring.total),
            (
                history._low.copy(),
                history._high.copy(),
                history._sum.copy(),
                history._n.copy(),
                history.span,
            ),
            (trace._sum, trace._n, trace.last, trace.last_t, trace.low, trace.high),
        )

    def restore(self, trace: Trace) -> None:
        ring, history = trace.recent, trace.history
        ring._next, ring.count, ring.total = self.ring
        low, high, total, n, span = self.buckets
        history._low, history._high, history._sum, history._n, history.span = (
            low.copy(),
            high.copy(),
            total.copy(),
            n.copy(),
            span,
        )
        trace._sum, trace._n, trace.last, trace.last_t, trace.low, trace.high = self.figures


@dataclass
class Trace:
    """One curve: its recent points, its history, and its running mean since the start. Its
    latest points can be held provisionally (hold()): withdrawn again (withdraw()) when better
    figures for the same intervals come, or kept (keep())."""

    recent: Ring
    history: Buckets
    _sum: float = 0.0
    _n: int = 0
    last: float | None = None  # the latest value
    last_t: float | None = None  # and its time
    low: float | None = None  # the lowest and highest since the start
    high: float | None = None
    _held: _Held | None = None

    @classmethod
    def new(cls, recent_points: int = RECENT_POINTS, buckets: int = HISTORY_BUCKETS) -> Trace:
        return cls(Ring(recent_points), Buckets(buckets))

    def add(self, t: float, value: float, *, counted: bool = True) -> None:
        """A point drawn; counted=False: drawn, but kept out of the figures (an interval
        cut short, whose rate is of a fraction of a second)."""
        self.recent.add(t, value)
        self.history.add(t, value)
        if not counted:
            return
        self._sum += value
        self._n += 1
        self.last, self.last_t = value, t
        self.low = value if self.low is None else min(self.low, value)
        self.high = value if self.high is None else max(self.high, value)

    @property
    def mean(self) -> float | None:
        return self._sum / self._n if self._n else None

    @property
    def count(self) -> int:
        return self._n

    # -- points held provisionally -----------------------------------------------------------
    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self) -> None:
        """The points added from now on are provisional (once; until withdraw() or keep())."""
        if self._held is None:
            self._held = _Held.of(self)

    def withdraw(self) -> None:
        """Take back the points added since hold(), as if they never came."""
        held, self._held = self._held, None
        if held is not None:
            held.restore(self)

    def keep(self) -> None:
        """The points added since hold() are the curve's for good."""
        self._held = None

    def window(self, since: float) -> tuple[np.ndarray, np.ndarray]:
        """The points from `since` on at full resolution (the history's buckets where the
        recent points do not reach back that far)."""
        t, v = self.recent.since(since)
        first = self.recent.first_t
        if first is not None and since < first and self.recent.total > self.recent.count:
            ht, hv, _low, _high = self.history.arrays()
            older = (ht >= since) & (ht < first)
            t, v = np.concatenate([ht[older], t]), np.concatenate([hv[older], v])
        return t, v

    @property
    def bucketed(self) -> bool:
        """Whether the whole monitor is drawn from its buckets (else point by point)."""
        return self.recent.total > self.recent.count or self.recent.count > self.history.size

    def whole(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(times, values, lows, highs) over the whole monitor: every point while there are
        no more of them than buckets, else the history's buckets."""
        if not self.bucketed:
            t, v = self.recent.arrays()
            return t, v, v, v
        return self.history.arrays()


#: Curve names: the flow, and whose count it is (the receiver's, or the sender's where the
#: receiver's has not come yet).
UPLOAD, DOWNLOAD = "upload", "download"
RECEIVED, SENT = " (received)", " (sent)"
#: An interval shorter than this share of the report interval (the one a Stop or a lost
#: peer cut) is drawn but not counted in the figures.
PARTIAL_SHARE = 0.5


def flow_name(flow: Flow) -> str:
    return UPLOAD if flow is Flow.UP else DOWNLOAD


class MonitorTraces:
    """Throughput, loss (UDP: % of datagrams; TCP: retransmits) and working latency (median
    of each second's probes, and the share of them lost) of one monitor, by curve name.

    Throughput is the receiver's where it is known. Live, an upload's intervals come with the
    sender's figures only, its receiver's when the run ends: they are held as the sender's
    ("sent") until then (add_sample(provisional=True)), replaced by the receiver's when those
    come (revise()), or kept as the sender's when none do (settle())."""

    def __init__(
        self,
        protocol: Protocol,
        recent_points: int = RECENT_POINTS,
        buckets: int = HISTORY_BUCKETS,
        interval_s: float = 1.0,
    ) -> None:
        self.protocol = protocol
        self.interval_s = interval_s
        self._sizes = (recent_points, buckets)
        self.throughput: dict[str, Trace] = {}
        self.loss: dict[str, Trace] = {}
        self.latency: dict[str, Trace] = {}
        self.latest_t = 0.0

    def _trace(self, group: dict[str, Trace], name: str) -> Trace:
        if name not in group:
            group[name] = Trace.new(*self._sizes)
        return group[name]

    def add_sample(self, offset: float, sample: Sample, *, provisional: bool = False) -> None:
        """One interval, at `offset` + its end. provisional: the interval as it came live,
        whose receiver's figures may come later (revise()): its sender's rate is held until
        then."""
        t = offset + sample.end_s
        self.latest_t = max(self.latest_t, t)
        name = flow_name(sample.flow)
        whole = self._whole(sample)
        if sample.received_bps is not None:
            self._trace(self.throughput, name + RECEIVED).add(t, sample.received_bps, counted=whole)
        elif sample.sent_bps is not None:
            sent = self._trace(self.throughput, name + SENT)
            if provisional:
                sent.hold()
            sent.add(t, sample.sent_bps, counted=whole)
        self._add_loss(t, name, sample, whole)

    def revise(self, offset: float, samples: Sequence[Sample]) -> None:
        """A run's intervals with the receiver's figures, come as it ended: for each flow
        whose intervals were held as the sender's, those give way to these."""
        held = {name for name, trace in self.throughput.items() if trace.holding}
        for name in held:
            self.throughput[name].withdraw()
        for sample in samples:
            name = flow_name(sample.flow)
            if name + SENT not in held:
                continue  # its receiver's figures came live, and are charted already
            t = offset + sample.end_s
            self.latest_t = max(self.latest_t, t)
            whole = self._whole(sample)
            if sample.received_bps is not None:
                self._trace(self.throughput, name + RECEIVED).add(
                    t, sample.received_bps, counted=whole
                )
            elif sample.sent_bps is not None:
                self._trace(self.throughput, name + SENT).add(t, sample.sent_bps, counted=whole)
            if self.protocol is Protocol.UDP:  # a UDP receiver's loss comes only now
                self._add_loss(t, name, sample, whole)

    def settle(self) -> None:
        """The run ended without its receiver's figures: its sender's stay."""
        for trace in self.throughput.values():
            trace.keep()

    def _whole(self, sample: Sample) -> bool:
        return sample.end_s - sample.start_s >= PARTIAL_SHARE * self.interval_s

    def _add_loss(self, t: float, name: str, sample: Sample, whole: bool) -> None:
        if self.protocol is Protocol.UDP:
            if sample.packets and sample.lost_packets is not None:
                loss = 100.0 * sample.lost_packets / sample.packets
                self._trace(self.loss, name).add(t, loss, counted=whole)
        elif sample.retransmits is not None:
            self._trace(self.loss, name).add(t, float(sample.retransmits), counted=whole)

    def add_seconds(self, offset: float, seconds: Iterable[LatencySecond]) -> None:
        """Seconds of working latency under load (app.analysis.latency_seconds), each drawn at
        its end: `offset` + its second + 1."""
        for second in seconds:
            t = offset + second.second + 1.0
            if second.median_ms is not None:
                self._trace(self.latency, "latency").add(t, second.median_ms)
            if (lost := second.lost_pct) is not None:
                self._trace(self.latency, "probes lost").add(t, lost)
            self.latest_t = max(self.latest_t, t)


#: The rows of a stored monitor's figures: its last value, not "now".
STORED_ROWS = ("Last", "Mean", "Min", "Max")


@dataclass(frozen=True)
class Figures:
    """One curve's figures since the monitor started: the latest, mean, lowest and highest."""

    what: str  # "upload (received)", "upload loss", "latency": the column's heading
    unit: str  # "bit/s", "%", "retransmits", "ms"
    now: float | None  # None while the peer is down (down) or before the first value
    mean: float | None
    low: float | None
    high: float | None
    down: bool = False  # the peer is not answering: there is no value now


def figures(traces: MonitorTraces, *, down: bool = False, live: bool = True) -> list[Figures]:
    """The figures beside a monitor's chart: throughput, loss (or retransmits) and working
    latency of each flow, in that order; a flow's rate as the receiver counted it, and as the
    sender did for the intervals whose receiver's figures are not known. down: the peer is
    not answering, so no figure is "now". live: a flow's "now" is in the one of its columns
    that holds its latest interval (the other's is not now); stored, each column's is its
    last."""
    rows: list[Figures] = []
    udp = traces.protocol is Protocol.UDP
    latest: dict[str, float] = {}
    for name, trace in traces.throughput.items():
        flow = name.removesuffix(RECEIVED).removesuffix(SENT)
        if trace.last_t is not None:
            latest[flow] = max(latest.get(flow, trace.last_t), trace.last_t)
    for name in sorted(traces.throughput, key=_curve_order):
        trace = traces.throughput[name]
        if not trace.count:
            continue  # held points withdrawn, or an interval too short to count
        flow = name.removesuffix(RECEIVED).removesuffix(SENT)
        stale = live and trace.last_t is not None and trace.last_t < latest.get(flow, 0.0)
        rows.append(_figures(name, "bit/s", trace, down, stale))
    both = len(traces.loss) > 1  # up and down: each flow's loss named
    for name, trace in traces.loss.items():
        what = "loss" if udp else "retransmits"
        rows.append(_figures(f"{name} {what}" if both else what, "%" if udp else "", trace, down))
    if "latency" in traces.latency:
        rows.append(_figures("latency", "ms", traces.latency["latency"], down))
    return rows


def _curve_order(name: str) -> tuple[int, int]:
    """Upload before download, and each flow's receiver's count before its sender's."""
    return (0 if name.startswith(UPLOAD) else 1, 0 if name.endswith(RECEIVED) else 1)


def figure_text(value: float | None, unit: str) -> str:
    """'94.1 Mbit/s', '0.12 %', '3 ms', '12'; '—' while there is none."""
    if value is None:
        return "—"
    if unit == "bit/s":
        return format_rate(value)
    if unit == "ms":
        digits = 2 if value < 1 else 1 if value < 100 else 0
        return f"{value:.{digits}f} ms"
    if unit == "%":
        return f"{value:.2f} %"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def _figures(
    what: str, unit: str, trace: Trace, down: bool = False, stale: bool = False
) -> Figures:
    now = None if down or stale else trace.last
    return Figures(what, unit, now, trace.mean, trace.low, trace.high, down)


def run_start_s(started_at: str) -> float:
    """A run's stored start (ISO 8601) as epoch seconds."""
    return dt.datetime.fromisoformat(started_at.replace("Z", "+00:00")).timestamp()


def _first_start(runs: Sequence[tuple[str, Sequence[Sample]]]) -> float:
    """When the first run that measured anything started (epoch seconds)."""
    return min(
        (run_start_s(started) for started, samples in runs if samples and started), default=0.0
    )


def placed(runs: Sequence[tuple[str, Sequence[Sample]]]) -> list[tuple[float, Sample]]:
    """A stored monitor's intervals on its time axis: (seconds since the first run's start
    to the interval's end, the interval), in time order; runs are (started_at, samples).
    The stretches without runs (the peer down) stay gaps."""
    first = _first_start(runs)
    found = [
        (run_start_s(started) - first + sample.end_s, sample)
        for started, samples in runs
        if started
        for sample in samples
    ]
    return sorted(found, key=lambda point: point[0])


def stored_traces(
    protocol: Protocol,
    interval_s: float,
    runs: Sequence[tuple[str, Sequence[Sample]]],
    seconds: Sequence[Sequence[LatencySecond]] = (),
) -> MonitorTraces:
    """A stored monitor's curves, every interval placed as placed() places it, and each
    run's seconds of working latency (seconds[i]: those of runs[i]) from its start."""
    traces = MonitorTraces(protocol, interval_s=interval_s)
    for t, sample in placed(runs):
        traces.add_sample(t - sample.end_s, sample)
    first = _first_start(runs)
    for (started, _samples), kept in zip(runs, seconds, strict=False):
        if started:
            traces.add_seconds(run_start_s(started) - first, kept)
    return traces


def gaps(times: Sequence[float], interval_s: float) -> list[float]:
    """Per time, the seconds without an interval before it (0 where none is missing): a
    stretch longer than GAP_STEPS report intervals is a gap (the peer down)."""
    found = [0.0] * len(times)
    for index in range(1, len(times)):
        step = times[index] - times[index - 1]
        if step > GAP_STEPS * interval_s:
            found[index] = step - interval_s
    return found
