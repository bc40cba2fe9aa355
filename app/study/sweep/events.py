"""Typed events a study yields as it measures (the sweep runner's and the monitor's
generators), read by the window's worker and the command line alike."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.analysis.stats import Summary
from app.domain.plan import Plan, PointValue, RunKey, Series
from app.domain.records import RunMetrics, SessionStatus
from app.domain.results import LatencySecond, Sample
from app.domain.units import counted


@dataclass(frozen=True)
class StudyPrepared:
    """The plan as it will run (this computer's ports filled in, series that cannot run left
    out) and what the user is told before the first run."""

    plan: Plan
    notes: tuple[str, ...]


@dataclass(frozen=True)
class SessionStarted:
    session_id: str
    plan: Plan
    total_runs: int
    already_done: int  # > 0 when resuming


@dataclass(frozen=True)
class RunStarted:
    key: RunKey
    value: PointValue
    argv: tuple[str, ...]
    attempt: int


@dataclass(frozen=True)
class SampleArrived:
    key: RunKey
    sample: Sample


@dataclass(frozen=True)
class SamplesRevised:
    """The run's samples as the run ended: the receiver's figures joined in (an upload's
    live samples were the sender's), to replace those that arrived live."""

    key: RunKey
    samples: tuple[Sample, ...]


@dataclass(frozen=True)
class LatencyNote:
    """About working latency, in a sentence: how it is measured against the peer (said once
    per IP version before the first run that measures it; method set), or why it is not, or
    what went wrong with a run's probes (method empty)."""

    method: str  # udp-echo, tcp-connect, netperf-rr; "" when the sentence names no method
    sentence: str


@dataclass(frozen=True)
class LatencyProbed:
    """A batch of a run's latency probes: idle ones before the engine starts (at negative
    times), loaded ones while it runs. rtts_ms[i] is None for a probe that was lost."""

    key: RunKey
    phase: str  # "idle" or "loaded"
    times_s: tuple[float, ...]  # since the engine started
    rtts_ms: tuple[float | None, ...]


@dataclass(frozen=True)
class LatencySeconds:
    """Seconds of a run's loaded latency probes, each once complete (its median round trip and
    its probes answered and lost): what a monitor charts, kept with the run as it goes."""

    key: RunKey
    seconds: tuple[LatencySecond, ...]


@dataclass(frozen=True)
class RunFinished:
    key: RunKey
    value: PointValue
    run_id: int
    metrics: RunMetrics


class AfterFailure(StrEnum):
    """What the study does after a run failed for good, as the runner knows it then."""

    GOES_ON = "goes-on"  # runs remain, and this failure does not end the study
    LAST = "last"  # it was the study's last run to do
    GIVES_UP = "gives-up"  # one failure in a row too many: the study ends here
    UNSAID = "unsaid"  # runs of the same moment are still going: their outcome decides


@dataclass(frozen=True)
class RunFailed:
    key: RunKey
    value: PointValue
    error_kind: str
    sentence: str
    will_retry: bool
    attempt: int
    #: Why the run did not start at once, as its error's class says it (LinkLabError.retry_words).
    retry_words: str = "it failed"
    #: What follows a failure that stays (will_retry False).
    then: AfterFailure = AfterFailure.UNSAID
    in_a_row: int = 1  # failures in a row with this one

    @property
    def then_words(self) -> str:
        """What follows, in a sentence ("" when the runner cannot know yet)."""
        if self.will_retry:
            return ""
        if self.then is AfterFailure.GOES_ON:
            return "The sweep goes on."
        if self.then is AfterFailure.LAST:
            return "It was the sweep's last run."
        if self.then is AfterFailure.GIVES_UP:
            return f"That is {counted(self.in_a_row, 'failure')} in a row: the sweep stops here."
        return ""

    @property
    def retry_note(self) -> str:
        """A failure about to be retried, said quietly (a server still ending the test before
        usually answers the next try); the sentence is for a failure that stays."""
        why = self.retry_words
        return f"Run {self.key.repetition} did not start at once ({why}); trying again."


@dataclass(frozen=True)
class PointUpdated:
    """The statistics of one point after a run finished there: every metric of
    app.analysis.points.METRICS, by name (throughput_bps, rtt_ms, loss_pct, ...)."""

    series: Series
    value: PointValue
    metrics: dict[str, Summary]
    runs: int
    precise_enough: bool  # early stop reached: no more runs at this point

    @property
    def throughput_bps(self) -> Summary:
        return self.metrics["throughput_bps"]

    @property
    def rtt_ms(self) -> Summary:
        return self.metrics["rtt_ms"]

    @property
    def cpu_pct(self) -> Summary:
        """This computer's CPU."""
        return self.metrics["cpu_local_pct"]


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    eta_s: float | None
    point: int  # 1-based index of the current point
    points: int
    repetition: int
    repetitions: int
    series: str


@dataclass(frozen=True)
class SessionFinished:
    session_id: str
    status: SessionStatus
    reason: str
    runs_done: int = 0  # finished runs of the session, ok or failed
    runs_failed: int = 0
    #: The runs Stop cut short, each as the intervals it had measured: kept unfinished with
    #: them (one with none is not kept).
    cut_short: tuple[int, ...] = ()
    #: When (time.monotonic()) the last engine Stop ended was seen ended; None when no engine
    #: ran as Stop came (it came between runs) or the session was not stopped.
    engines_ended_at: float | None = None


@dataclass(frozen=True)
class MonitorWaiting:
    """A monitor's peer stopped answering: what happened, in a sentence, and when the next
    try is (the monitor keeps trying until it answers or the user stops it)."""

    sentence: str
    retry_in_s: float
    attempt: int  # failed runs in a row


@dataclass(frozen=True)
class MonitorResumed:
    """A monitor's peer answers again after a gap: the monitor goes on."""

    sentence: str
    gap_s: float  # seconds from the first failure to the run that worked


@dataclass(frozen=True)
class ServerNote:
    """Something LinkLab did to this computer's own servers while the study ran (it started
    one again that a client held without progress), said when a run failed because of it."""

    sentence: str


StudyEvent = (
    StudyPrepared
    | SessionStarted
    | RunStarted
    | SampleArrived
    | SamplesRevised
    | LatencyNote
    | LatencyProbed
    | LatencySeconds
    | RunFinished
    | RunFailed
    | PointUpdated
    | Progress
    | SessionFinished
    | MonitorWaiting
    | MonitorResumed
    | ServerNote
)
