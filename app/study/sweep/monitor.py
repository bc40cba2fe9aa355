"""A monitor: one flow (TCP or UDP; upload, download or both at once) measured over time until
the user stops it, as engine runs chained back to back, every interval stored as it arrives.

A server serves tests of bounded length (LinkLab's own, and `linklab serve`, at most an hour),
so a monitor runs the engine for up to `run_s` seconds at a time and starts the next run as one
ends (a second or so between them; with working latency, the idle probes' two seconds too). It
is stored as a session like any other: its plan sweeps nothing (Variable.NONE, the one value
0) and its runs are the chained runs, numbered as repetitions, each run's samples written
about once a second while it runs (app.study.sweep.sample_writer), so a crash loses at most the
last second. The plan's repetitions count the runs begun so far (at its end, those kept).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from app.domain.errors import LinkLabError
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, Metric, Peer, Plan, RunKey, Variable, as_point
from app.domain.records import RunMetrics, RunRecord, SessionStatus
from app.domain.results import RunResult
from app.domain.units import counted
from app.engine.drivers.registry import RunHandle
from app.engine.errors import ImpossibleValue
from app.engine.readings.bounds import impossible
from app.engine.readings.interval_totals import summary_of
from app.store.db import StoreError
from app.store.monitors import count_monitor_runs
from app.study.host.cpu_sampler import CpuSampler
from app.study.sweep.describe import duration_text
from app.study.sweep.events import (
    AfterFailure,
    LatencyNote,
    MonitorResumed,
    MonitorWaiting,
    RunFailed,
    RunFinished,
    SampleArrived,
    SessionFinished,
    SessionStarted,
    StudyEvent,
)
from app.study.sweep.outcomes import Outcome, RetryPolicy
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.run_to_end import STOPPED, Events, Runner
from app.study.sweep.sample_writer import SampleWriter

if TYPE_CHECKING:
    from app.study.sweep.working_latency import RunProbes

#: Seconds per chained run: long enough that the gaps between runs cost under 1 % of the
#: time, short enough that a UDP upload's loss (reported by the receiving end when a run
#: ends) comes in every few minutes.
DEFAULT_RUN_S = 300
#: A UDP upload's loss is what the receiving end reports as a run ends: minute-long runs.
UDP_RUN_S = 60
#: The longest run: a server others can reach serves tests of at most an hour.
MAX_RUN_S = 3600


def monitor_plan(
    peer: Peer,
    *,
    protocol: Protocol = Protocol.TCP,
    ip_version: IpVersion = IpVersion.V4,
    direction: Direction = Direction.UP,
    run_s: int = DEFAULT_RUN_S,
    bitrate_bps: int = 0,
    latency: bool = False,
    interval_s: float = 1.0,
    name: str = "",
    conditions: Conditions | None = None,
) -> Plan:
    """The plan of a monitor of one flow."""
    metrics = (Metric.THROUGHPUT, Metric.LATENCY) if latency else (Metric.THROUGHPUT,)
    return Plan(
        peer=peer,
        protocols=(protocol,),
        ip_versions=(ip_version,),
        direction=direction,
        variable=Variable.NONE,
        values=(0,),
        repetitions=1,
        duration_s=run_s,
        metrics=metrics,
        bitrate_bps=bitrate_bps if protocol is Protocol.UDP else 0,
        interval_s=interval_s,
        name=name,
        conditions=conditions or Conditions(),
    )


class MonitorRunner(Runner):
    """Runs of a monitor's one flow, back to back, each stored as a run is, until stop().
    A peer that stops answering is said in a sentence and tried again with a growing wait
    (BACKOFF's ceilings: 1, 2, 4 … 30 s), for as long as the user lets the monitor run;
    everything measured before stays stored. Stop is a monitor's normal end: its status is
    then completed, said as stopped by the user, and the run in progress is finished as a run
    of what it measured until then (its figures from its intervals); one that measured no
    interval yet is dropped."""

    #: Waits between tries while the peer does not answer (its ceilings, without jitter: one
    #: monitor does not crowd a server).
    backoff = RetryPolicy(first_wait_s=1.0, max_wait_s=30.0)
    #: When the peer stopped answering; None while it answers.
    _lost_since: float | None = None
    _engine_version = ""

    def _emit(self, event: StudyEvent) -> None:
        """The first interval measured after the peer stopped answering says it is back."""
        if isinstance(event, SampleArrived) and self._lost_since is not None:
            gap = time.monotonic() - self._lost_since
            self._lost_since = None
            super()._emit(MonitorResumed(back_text(self.plan, gap), gap))
        super()._emit(event)

    def _after_failure(self) -> tuple[AfterFailure, int]:
        """A monitor tries again for as long as the user lets it run (MonitorWaiting says
        when)."""
        return AfterFailure.GOES_ON, 1

    def _cut_short(
        self,
        key: RunKey,
        writer: SampleWriter,
        run: RunHandle,
        attempt: int,
        sampler: CpuSampler,
        probes: RunProbes | None,
    ) -> RunRecord | None:
        """The run Stop cut short, finished with its figures worked out from the intervals it
        measured (the engine, stopped, states no totals) and the engine's output until then as
        its raw output; with none, it is dropped."""
        if not writer.count:
            return super()._cut_short(key, writer, run, attempt, sampler, probes)
        return self._finished_from_intervals(
            key, writer, run, attempt, sampler, probes, run.output()
        )

    def _cut_by_failure(
        self,
        key: RunKey,
        writer: SampleWriter,
        run: RunHandle,
        attempt: int,
        sampler: CpuSampler,
        probes: RunProbes | None,
        err: LinkLabError,
    ) -> RunRecord | None:
        """A run the peer's absence cut after it measured: a monitor keeps it as a finished
        run of what it measured until then (the engine's words kept with it); the next run
        meets the absence and is the failure."""
        if not writer.count:
            return None
        return self._finished_from_intervals(
            key, writer, run, attempt, sampler, probes, err.detail or err.sentence
        )

    def _finished_from_intervals(
        self,
        key: RunKey,
        writer: SampleWriter,
        run: RunHandle,
        attempt: int,
        sampler: CpuSampler,
        probes: RunProbes | None,
        raw_output: str = "",
    ) -> RunRecord:
        """The run finished with its figures worked out from the intervals it measured, held
        to the same physical bounds as an engine's own totals (app.engine.readings.bounds)."""
        writer.flush()
        samples = tuple(self.store.samples(writer.run_id))
        elapsed = max(s.end_s for s in samples)  # the span it measured
        summary = summary_of(samples)
        engine, version = self._driver.name, self._engine_version
        if (problem := impossible(summary)) is not None:
            err = ImpossibleValue(engine, *problem, detail=raw_output)
            value = as_point(self.plan.values[key.value_index])
            self._emit(RunFailed(key, value, err.kind, err.sentence, False, attempt))
            writer.finish(
                metrics=None,
                error_kind=err.kind,
                error=err.sentence,
                attempts=attempt,
                elapsed_s=elapsed,
                raw_output=raw_output,
            )
            assert self.session_id is not None
            return self._stored(self.session_id, writer.run_id)
        result = RunResult(engine, version, run.argv, summary, samples, "", 0.0, elapsed)
        metrics = RunMetrics.from_result(result, sampler.mean, sampler.peak, sampler.own_mean)
        if probes is not None:
            metrics = replace(metrics, **probes.figures().metric_fields())
            if probes.problem:
                self._emit(LatencyNote("", probes.problem))
        writer.finish(
            metrics=metrics,
            attempts=attempt,
            elapsed_s=elapsed,
            flows=summary.flows,
            raw_output=raw_output,
        )
        value = as_point(self.plan.values[key.value_index])
        self._emit(RunFinished(key, value, writer.run_id, metrics))
        assert self.session_id is not None
        return self._stored(self.session_id, writer.run_id)

    def _sweep(self) -> Events:
        validate_plan(self.plan)
        engine_version = self._engine_version = self._driver.version()
        session_id = self.session_id = self.store.create_session(self.plan, self._environment)
        series = self.plan.series[0]
        self._emit(SessionStarted(session_id, self.plan, 0, 0))
        yield from self._said_so_far()
        t0 = time.monotonic()
        begun = done = failed = in_a_row = 0
        try:
            while not self._stop.is_set():
                begun += 1
                count_monitor_runs(self.store.db, session_id, begun)
                key = RunKey(series.protocol, series.ip_version, 0, begun)
                record = yield from self._run_with_retries(session_id, engine_version, key)
                yield from self._said_so_far()
                if record is None:  # stopped before it measured anything
                    break
                done += 1
                if record.ok:
                    in_a_row = 0
                    continue
                failed += 1
                in_a_row += 1
                if self._lost_since is None:
                    self._lost_since = time.monotonic()
                wait = self.backoff.ceiling(in_a_row)
                self._emit(MonitorWaiting(lost_text(self.plan, wait, in_a_row), wait, in_a_row))
                yield from self._said_so_far()
                self._stop.wait(wait)
        except StoreError as err:
            self._emit(SessionFinished(session_id, SessionStatus.FAILED, err.sentence))
            yield from self._said_so_far()
            try:
                self.store.finish(session_id, SessionStatus.FAILED, err.sentence)
            except StoreError:
                pass  # the database itself is what failed; the session shows as interrupted
            raise
        # The run Stop cut before its first interval is dropped: the count is of those kept.
        kept = len(self.store.runs(session_id, partial=True))
        if kept != begun:
            count_monitor_runs(self.store.db, session_id, kept)
        reason = monitored_text(time.monotonic() - t0, kept, self.plan.duration_s, failed)
        reason = f"{reason} {STOPPED}"
        if self._reason:
            reason = f"{reason} {self._reason}"
        reason = " ".join([reason, *self._latency_notes]).strip()
        self.store.finish(session_id, SessionStatus.COMPLETED, reason)
        ended = self._engines_ended_at()
        status = SessionStatus.COMPLETED
        said = SessionFinished(session_id, status, reason, done, failed, engines_ended_at=ended)
        self._emit(said)
        return Outcome(session_id, SessionStatus.COMPLETED, reason, done, failed)


def peer_words(plan: Plan) -> str:
    """'this computer's server', 'lab-peer'."""
    return "this computer's server" if plan.peer.is_this_computer else plan.peer.host


def lost_text(plan: Plan, wait_s: float, tries: int) -> str:
    """'Lab-peer stopped answering (2 tries). The monitor tries again in 2 s and keeps
    everything it measured.' (The engine's own sentence goes to the log with the run.)"""
    who = peer_words(plan)
    counted_tries = f" ({counted(tries, 'try', 'tries')})" if tries > 1 else ""
    return (
        f"{who[:1].upper()}{who[1:]} stopped answering{counted_tries}. The monitor tries "
        f"again in {wait_s:.0f} s and keeps everything it measured."
    )


def back_text(plan: Plan, gap_s: float) -> str:
    """'lab-peer answers again after 12 s: the monitor goes on.'"""
    who = peer_words(plan)
    after = duration_text(gap_s)
    return f"{who[:1].upper()}{who[1:]} answers again after {after}: the monitor goes on."


def monitored_text(elapsed_s: float, runs: int, run_s: int, failed: int = 0) -> str:
    """'Monitored for about 2 h 05 min, in 26 runs of up to 300 s chained back to back (1
    failed).'"""
    text = (
        f"Monitored for {duration_text(elapsed_s)}, in {counted(runs, 'run')} of up to "
        f"{run_s} s chained back to back"
    )
    return f"{text} ({failed} failed)." if failed else f"{text}."
