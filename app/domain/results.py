"""What engines report, as typed values: interval samples, per-flow totals, run results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import Flow, Protocol


@dataclass(frozen=True)
class Sample:
    """One interval report inside a run. Every measured field may be missing (None).

    Throughput is what the receiver got (received_bps, the goodput); sent_bps is the sender's
    rate in the same interval. While a run goes on, one end's reports are known: the
    sender's only, for an upload measured from the sending end; the receiver's figures
    replace them when the run ends (iperf3's --get-server-output). `bytes` is the receiver's
    count when its report is known, else the sender's."""

    start_s: float
    end_s: float
    flow: Flow = Flow.UP
    sent_bps: float | None = None
    received_bps: float | None = None
    bytes: int | None = None
    retransmits: int | None = None
    rtt_ms: float | None = None
    cwnd_bytes: int | None = None
    jitter_ms: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    owd_ms: float | None = None  # one-way delay, mean over the interval (synchronised clocks)
    out_of_order: int | None = None  # UDP datagrams the receiver got out of order
    omitted: bool = False

    def goodput_bps(self, protocol: Protocol) -> float | None:
        """What the receiver got in this interval. TCP delivers in order all it sends (the
        sender's count runs ahead by at most a socket buffer), so where only the sender
        reported, its rate stands in for TCP; never for UDP, whose datagrams may be lost."""
        if self.received_bps is not None:
            return self.received_bps
        return self.sent_bps if protocol is Protocol.TCP else None


class Derivation(StrEnum):
    """How LinkLab worked out a figure the engine did not state itself."""

    LOSS_COUNTERS = "loss counters"  # the sender's count x (datagrams - lost) / datagrams
    INTERVALS = "intervals"  # the receiver's own interval reports, added up


@dataclass(frozen=True)
class FlowSummary:
    """End-of-run totals for one data flow, as counted by its sender and by its receiver."""

    flow: Flow
    sender_bps: float | None = None
    receiver_bps: float | None = None
    sender_bytes: int | None = None
    receiver_bytes: int | None = None
    retransmits: int | None = None
    jitter_ms: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    loss_pct: float | None = None
    owd_ms: float | None = None  # one-way delay, the receiver's mean (synchronised clocks)
    out_of_order: int | None = None  # UDP datagrams the receiver got out of order
    #: Set when the engine gave no receiver total and receiver_bps/receiver_bytes were worked
    #: out from what it did give (iperf3 before 3.11 in UDP); None when the engine stated them.
    receiver_derived: Derivation | None = None

    @property
    def throughput_bps(self) -> float | None:
        """What reached the far end; the sender's count when the receiver's is unknown."""
        return self.receiver_bps if self.receiver_bps is not None else self.sender_bps


@dataclass(frozen=True)
class RunSummary:
    """What an engine reports at the end of a run, before argv and raw output are attached."""

    flows: tuple[FlowSummary, ...] = ()
    rtt_mean_ms: float | None = None
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None
    cpu_local_pct: float | None = None
    cpu_remote_pct: float | None = None
    transactions_per_s: float | None = None  # netperf *_RR


@dataclass(frozen=True)
class EngineMessage:
    """A line the engine printed that is worth showing in a log (not a measurement)."""

    text: str


@dataclass(frozen=True)
class EngineFailure:
    """The engine said it failed; the driver turns this into a typed error."""

    message: str


@dataclass(frozen=True)
class FarEndIntervals:
    """The other end's interval reports, which iperf3 sends when the run ends
    (--get-server-output): the receiver's figures of an upload, the sender's of a download."""

    samples: tuple[Sample, ...]


@dataclass(frozen=True)
class LateCounts:
    """Counts the engine stated after an interval's report had been passed on (iperf 2 prints
    a receiver's out-of-order datagrams on a line of their own after the report): added to
    the run's sample of the same flow and start when the run ends."""

    samples: tuple[Sample, ...]


@dataclass(frozen=True)
class LatencySecond:
    """One second of a run's working-latency probes under load, from `second` to `second + 1`
    seconds after its engine started: the median round trip of the probes answered (None when
    none was), how many were answered and how many lost."""

    second: int
    median_ms: float | None
    answered: int
    lost: int

    @property
    def lost_pct(self) -> float | None:
        """The share of the second's probes lost (None when none was sent)."""
        sent = self.answered + self.lost
        return 100.0 * self.lost / sent if sent else None


# What a parser yields, line by line.
ParseEvent = Sample | RunSummary | EngineMessage | EngineFailure | FarEndIntervals | LateCounts


@dataclass(frozen=True)
class RunResult:
    """One finished engine invocation: summary metrics plus everything needed to audit it."""

    engine: str
    engine_version: str
    argv: tuple[str, ...]
    summary: RunSummary
    samples: tuple[Sample, ...]
    raw_output: str
    started_at: float  # seconds since the epoch
    elapsed_s: float
    #: The far end's interval reports were joined into the samples when the run ended, so
    #: they differ from those passed on live.
    samples_revised: bool = False
    #: When the engine started by the steady clock (time.monotonic) of the process that ran
    #: it: the store places it on the session's own time (app.domain.clock).
    started_steady: float | None = None

    def flow(self, which: Flow) -> FlowSummary | None:
        return next((f for f in self.summary.flows if f.flow is which), None)

    @property
    def throughput_bps(self) -> float | None:
        """Delivered throughput: the receivers' counts, summed over flows for --bidir."""
        values = [f.throughput_bps for f in self.summary.flows]
        known = [v for v in values if v is not None]
        return sum(known) if known else None
