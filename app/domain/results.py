"""What engines report, as typed values: interval samples, per-flow totals, run results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import Flow


@dataclass(frozen=True)
class Sample:
    """One interval report inside a run. Every measured field may be missing (None)."""

    start_s: float
    end_s: float
    flow: Flow = Flow.UP
    bits_per_second: float | None = None
    bytes: int | None = None
    retransmits: int | None = None
    rtt_ms: float | None = None
    cwnd_bytes: int | None = None
    jitter_ms: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    omitted: bool = False


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


# What a parser yields, line by line.
ParseEvent = Sample | RunSummary | EngineMessage | EngineFailure


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

    def flow(self, which: Flow) -> FlowSummary | None:
        return next((f for f in self.summary.flows if f.flow is which), None)

    @property
    def throughput_bps(self) -> float | None:
        """Delivered throughput: the receivers' counts, summed over flows for --bidir."""
        values = [f.throughput_bps for f in self.summary.flows]
        known = [v for v in values if v is not None]
        return sum(known) if known else None
