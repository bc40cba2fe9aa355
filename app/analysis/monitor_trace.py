"""A monitor's curves over time, each in bounded memory however long it runs (trace.py):
throughput, loss and working latency by flow, live and as stored, the figures beside them, and
the gaps where the peer was down. Every interval is in the database; these are what a chart
draws. Times are seconds since the monitor started."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.analysis.trace import HISTORY_BUCKETS, RECENT_POINTS, Trace
from app.domain.net import Flow, Protocol
from app.domain.results import LatencySecond, Sample
from app.domain.units import format_rate

#: A stretch this many report intervals long without one is a gap (the peer gone).
GAP_STEPS = 2.5

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
