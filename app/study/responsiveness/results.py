"""What a responsiveness test reports: its settings, the progress events a window shows, and
the result per load direction (loaded latency, RPM, rating, confidence, goodput)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.analysis.responsiveness import Rating
from app.analysis.saturation import Confidence
from app.domain.errors import BadOption
from app.engine.latency.probe_results import LatencyMethod


class Phase(StrEnum):
    IDLE = "idle"
    DOWNLOAD = "download"
    UPLOAD = "upload"
    BOTH = "both"  # download and upload at once

    @property
    def label(self) -> str:
        return {
            Phase.IDLE: "Idle",
            Phase.DOWNLOAD: "Download",
            Phase.UPLOAD: "Upload",
            Phase.BOTH: "Download and upload at once",
        }[self]


LOAD_PHASES = (Phase.DOWNLOAD, Phase.UPLOAD, Phase.BOTH)
MAX_FLOWS = 16


@dataclass(frozen=True)
class ResponsivenessSettings:
    """How long and how hard: each load phase ramps from one TCP flow, one more every
    step_s seconds, up to max_flows, until stable or phase_s has passed."""

    max_flows: int = MAX_FLOWS
    phase_s: float = 20.0  # the longest a load phase runs
    step_s: int = 2  # seconds each number of flows runs (whole seconds: iperf3 -t)
    idle_s: float = 3.0
    warmup_s: float = 0.5  # the start of each step, left out of goodput and latency
    interval_s: float = 0.5  # iperf3's interval reports
    both: bool = True  # the phase with download and upload at once

    def __post_init__(self) -> None:
        if not 1 <= self.max_flows <= 64:
            raise BadOption(f"The most parallel flows must be 1 to 64, not {self.max_flows}.")
        if not 1 <= self.step_s <= 60:
            raise BadOption(f"A ramp step must last 1 to 60 s, not {self.step_s}.")
        if not self.step_s <= self.phase_s <= 600:
            raise BadOption(
                f"A load phase must last {self.step_s} to 600 s (at least one step), "
                f"not {self.phase_s:g}."
            )
        if not 0.5 <= self.idle_s <= 60:
            raise BadOption(f"The idle phase must last 0.5 to 60 s, not {self.idle_s:g}.")

    @property
    def most_steps(self) -> int:
        """Steps a load phase may take: phase_s / step_s (each step also spends a moment
        connecting, so a phase lasts a little longer than phase_s)."""
        return max(1, int(self.phase_s // self.step_s))

    @property
    def phases(self) -> tuple[Phase, ...]:
        loads = LOAD_PHASES if self.both else LOAD_PHASES[:2]
        return (Phase.IDLE, *loads)


@dataclass(frozen=True)
class Step:
    """One number of flows held for one step of the ramp."""

    flows: int
    goodput_bps: float | None
    latency_ms: float | None  # trimmed mean of the step's probes
    answered: int
    lost: int
    #: Seconds after the test began when the step started and ended (for the chart over time).
    start_s: float = 0.0
    end_s: float = 0.0
    #: The round trips of the step's answered probes, as measured (kept for comparisons).
    rtts_ms: tuple[float, ...] = ()


@dataclass(frozen=True)
class LoadResult:
    phase: Phase
    loaded_latency_ms: float | None  # None: no probe came back under this load
    rpm: float | None
    rating: Rating
    confidence: Confidence
    goodput_bps: float | None
    flows: int  # of the last step (each way, for both at once)
    answered: int  # probes answered in the window the result comes from
    lost: int
    stable: bool
    steps: tuple[Step, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "loaded_latency_ms": _round(self.loaded_latency_ms),
            "rpm": _round(self.rpm, 0),
            "rating": self.rating.value,
            "confidence": self.confidence.value,
            "goodput_bps": _round(self.goodput_bps, 0),
            "flows": self.flows,
            "probes_answered": self.answered,
            "probes_lost": self.lost,
            "stable": self.stable,
        }


@dataclass(frozen=True)
class ResponsivenessResult:
    host: str
    method: LatencyMethod
    method_sentence: str
    idle_latency_ms: float
    idle_answered: int
    loads: tuple[LoadResult, ...]
    elapsed_s: float
    notes: tuple[str, ...] = ()

    def load(self, phase: Phase) -> LoadResult | None:
        return next((r for r in self.loads if r.phase is phase), None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON of `linklab responsiveness --json`."""
        two = (Phase.DOWNLOAD, Phase.UPLOAD)

        def each(key: str) -> dict[str, Any]:
            return {p.value: (r.to_dict()[key] if (r := self.load(p)) else None) for p in two}

        both = self.load(Phase.BOTH)
        return {
            "peer": self.host,
            "idle_latency_ms": _round(self.idle_latency_ms),
            "loaded_latency_ms": each("loaded_latency_ms"),
            "rpm": each("rpm"),
            "rating": each("rating"),
            "confidence": each("confidence"),
            "goodput_bps": each("goodput_bps"),
            "flows": each("flows"),
            "both": both.to_dict() if both else None,
            "method": self.method.value,
            "method_sentence": self.method_sentence,
            "idle_probes_answered": self.idle_answered,
            "elapsed_s": round(self.elapsed_s, 1),
            "notes": list(self.notes),
        }


def idle_above_loaded(idle_ms: float, loads: Sequence[LoadResult]) -> str:
    """Where the idle latency is above the latency under every load that has one: a sentence
    saying so and what to do ('' otherwise). Load adds queueing, never takes it away, so the
    idle probes were delayed by something else: another program busy on either computer."""
    loaded = [r.loaded_latency_ms for r in loads if r.loaded_latency_ms is not None]
    # Judged on the figures shown: "3.50 ms above 3.50 ms" would say nothing.
    if not loaded or float(latency_number(idle_ms)) <= float(latency_number(max(loaded))):
        return ""
    return (
        f"The idle latency ({latency_text(idle_ms)}) is above the latency under every load "
        f"(up to {latency_text(max(loaded))}): load adds waiting, so something else, such as "
        "another program busy on this computer or the peer, delayed the idle probes. Test "
        "again when both are otherwise idle."
    )


def latency_number(ms: float | None) -> str:
    """A latency in ms as the card, the tables and the exports show it, three figures:
    8.25, 12.1, 475; "—"."""
    if ms is None:
        return "—"
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def latency_text(ms: float | None) -> str:
    if ms is None:
        return "no probe came back"
    return f"{latency_number(ms)} ms"


def rpm_number(rpm: float | None) -> str:
    """Round trips per minute as shown everywhere: 7,500; "—"."""
    return "—" if rpm is None else f"{rpm:,.0f}"


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


# -- progress events: one type per event, for a window's queued signals ----------------------
@dataclass(frozen=True)
class TestStarted:
    __test__ = False  # not a pytest test class

    host: str
    method: LatencyMethod
    method_sentence: str
    phases: tuple[Phase, ...]


@dataclass(frozen=True)
class PhaseStarted:
    phase: Phase
    index: int  # 0 = idle
    count: int
    fraction: float  # of the whole test done, 0..1


@dataclass(frozen=True)
class StepMeasured:
    phase: Phase
    step: Step
    goodput_stable: bool
    latency_stable: bool
    fraction: float


@dataclass(frozen=True)
class IdleMeasured:
    latency_ms: float
    answered: int
    fraction: float


@dataclass(frozen=True)
class PhaseFinished:
    result: LoadResult
    fraction: float


ResponsivenessEvent = TestStarted | PhaseStarted | StepMeasured | IdleMeasured | PhaseFinished
