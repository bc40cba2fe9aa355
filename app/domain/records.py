"""What the store hands out: sessions, runs and their metrics as typed, frozen values."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from app.domain.clock import CLOCK
from app.domain.clock import iso as iso  # re-exported: where the stamps are written
from app.domain.clock import iso_from_epoch as iso_from_epoch
from app.domain.metrics import COLUMNS, FIGURES
from app.domain.plan import Plan, RunKey
from app.domain.results import RunResult


class SessionStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    STOPPED = "stopped"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


def status_words(status: SessionStatus, runs_failed: int) -> str:
    """A session's status in the one wording every view and command uses: a completed one
    with failed runs is "completed with failures"."""
    if status is SessionStatus.COMPLETED and runs_failed:
        return "completed with failures"
    return status.value


def utc_now() -> str:
    """The computer's clock now, ISO 8601 UTC with milliseconds (2026-11-21T11:48:42.123Z);
    a session's own stamps are its Timeline's (app.domain.clock)."""
    return CLOCK.now()


#: Metric columns of the runs table, in order (also the CSV and --json vocabulary).
METRIC_FIELDS = tuple(column.name for column in COLUMNS)
#: Metric fields that hold words, not numbers (how the latency was measured).
TEXT_METRIC_FIELDS = frozenset(column.name for column in COLUMNS if column.kind is str)


@dataclass(frozen=True)
class RunMetrics:
    throughput_bps: float | None = None
    sender_bps: float | None = None
    receiver_bps: float | None = None
    bytes_sent: int | None = None
    bytes_received: int | None = None
    retransmits: int | None = None
    rtt_mean_ms: float | None = None
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None
    jitter_ms: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    loss_pct: float | None = None
    cpu_local_pct: float | None = None  # the engine's own figure for this host
    cpu_remote_pct: float | None = None
    cpu_host_mean_pct: float | None = None  # psutil, sampled by LinkLab during the run
    cpu_host_peak_pct: float | None = None
    transactions_per_s: float | None = None
    # Working latency (plans with the latency metric): the median round trip of the probes
    # before the run (idle) and during it (loaded), the loaded p90 and share of probes lost,
    # and the method: udp-echo, tcp-connect or netperf-rr (app.engine.latency.probe_results).
    latency_idle_ms: float | None = None
    latency_ms: float | None = None
    latency_p90_ms: float | None = None
    latency_loss_pct: float | None = None
    latency_method: str | None = None
    # One-way delay (iperf 2 --trip-times, clocks stated synchronised): the receiver's mean;
    # with both directions at once, the larger.
    owd_ms: float | None = None
    out_of_order: int | None = None  # UDP datagrams the receiver got out of order
    # Of cpu_host_mean_pct, the part LinkLab's own processes (its engines among them) used.
    cpu_linklab_mean_pct: float | None = None

    @classmethod
    def from_result(
        cls,
        result: RunResult,
        cpu_mean: float | None = None,
        cpu_peak: float | None = None,
        cpu_linklab: float | None = None,
    ) -> RunMetrics:
        """Totals over the run's flows (two with --bidir): counts of events added up."""
        flows = result.summary.flows

        def total(name: str) -> Any:
            values = [getattr(f, name) for f in flows if getattr(f, name) is not None]
            return sum(values) if values else None

        counts = {f.name: total(f.name) for f in FIGURES if f.count and f.run and f.flow}
        lost, packets = counts["lost_packets"], counts["packets"]
        if lost is not None and packets:
            loss_pct: float | None = 100.0 * lost / packets
        else:
            loss_pct = next((f.loss_pct for f in flows if f.loss_pct is not None), None)
        jitters = [f.jitter_ms for f in flows if f.jitter_ms is not None]
        delays = [f.owd_ms for f in flows if f.owd_ms is not None]
        summary = result.summary
        return cls(
            throughput_bps=result.throughput_bps,
            sender_bps=total("sender_bps"),
            receiver_bps=total("receiver_bps"),
            bytes_sent=total("sender_bytes"),
            bytes_received=total("receiver_bytes"),
            rtt_mean_ms=summary.rtt_mean_ms,
            rtt_min_ms=summary.rtt_min_ms,
            rtt_max_ms=summary.rtt_max_ms,
            jitter_ms=max(jitters) if jitters else None,
            loss_pct=loss_pct,
            cpu_local_pct=summary.cpu_local_pct,
            cpu_remote_pct=summary.cpu_remote_pct,
            cpu_host_mean_pct=cpu_mean,
            cpu_host_peak_pct=cpu_peak,
            cpu_linklab_mean_pct=cpu_linklab,
            transactions_per_s=summary.transactions_per_s,
            owd_ms=max(delays) if delays else None,
            **counts,
        )

    @property
    def cpu_local(self) -> float | None:
        """This host's CPU: the engine's figure, else LinkLab's own psutil sampling."""
        return self.cpu_local_pct if self.cpu_local_pct is not None else self.cpu_host_mean_pct


@dataclass(frozen=True)
class RunRecord:
    id: int
    session_id: str
    key: RunKey
    value: float | str  # a name for a variable whose values are names
    ok: bool
    error_kind: str
    error: str
    attempts: int
    started_at: str
    ended_at: str
    elapsed_s: float | None
    engine: str
    engine_version: str
    argv: tuple[str, ...]
    metrics: RunMetrics
    raw_output: str = field(repr=False, default="")
    #: Never finished (LinkLab died, or the user stopped it), or an attempt tried again (a
    #: retry, or a failed run measured again on resume): its samples are kept, but it is
    #: neither ok nor failed and never counts as a done repetition.
    partial: bool = False
    #: Columns read from a damaged database whose bytes were not text: each bad byte was
    #: read as U+FFFD (the raw output of a run whose pages were damaged).
    damaged: tuple[str, ...] = ()
    #: How far the computer's clock was from the session's own time when the run ended
    #: (seconds, + ahead; app.domain.clock): its times follow the session's clock, not the
    #: computer's, which was set meanwhile. None: the two agreed.
    clock_step_s: float | None = None

    @property
    def status(self) -> str:
        """ok, failed or partial (the word the exports use)."""
        return "partial" if self.partial else ("ok" if self.ok else "failed")


@dataclass(frozen=True)
class SessionRecord:
    id: str
    name: str
    peer_host: str
    plan: Plan
    environment: dict[str, Any]
    status: SessionStatus
    status_reason: str
    created_at: str
    started_at: str | None
    ended_at: str | None
    app_version: str
    total_runs: int
    runs_done: int  # finished runs, ok or failed
    runs_failed: int
    runs_partial: int = 0  # runs unfinished or tried again (kept, never counted as done)
    #: Parts of its row that could not be read ("name", "conditions", "environment"): shown
    #: empty (the conditions its plan holds), the session otherwise whole
    #: (app.store.damage words it).
    damaged: tuple[str, ...] = ()
    #: The largest difference seen between the computer's clock and the session's own time
    #: while it ran (as RunRecord.clock_step_s); None: the computer's clock kept time.
    clock_step_s: float | None = None

    @property
    def conditions(self) -> Any:
        return self.plan.conditions

    @property
    def status_text(self) -> str:
        """The status every list, view and command shows (status_words)."""
        return status_words(self.status, self.runs_failed)

    @property
    def short_id(self) -> str:
        return self.id[:8]


@dataclass(frozen=True)
class UnreadableSession:
    """A stored session whose plan, status or run count cannot be read: listed and marked
    beside the sessions that can be, never opened, compared or exported."""

    id: str
    name: str
    created_at: str
    #: What cannot be read and why, e.g. "the plan was written by a newer LinkLab (format
    #: 3)".
    what: str
    runs_done: int = 0

    @property
    def short_id(self) -> str:
        return self.id[:8]


@dataclass(frozen=True)
class SessionList:
    """The sessions a list shows: those that can be read, and those that cannot."""

    sessions: tuple[SessionRecord, ...]
    unreadable: tuple[UnreadableSession, ...] = ()
