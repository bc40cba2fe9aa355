"""What the sweep's runner and the monitor's share: their runs measured one at a time to their
end — the engine started, the run's row stored as it happens, a transient failure retried,
working latency probed beside it — and read as a generator of typed events.

events() is read in one thread (the CLI's main thread, the window's worker): the runs go on
as it is read, each run's engine output read between yields. stop() may be called from any
thread and ends the run in progress within about a second; the last events (the session's
end) still come. Events said in another thread (a concurrent series' run, the latency
probes) wait in a queue for the next yield. Which runs, in which order, and what a failure
leads to are the sweep's (app.study.sweep.runner) or the monitor's (app.study.sweep.monitor).
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from app.domain.errors import LinkLabError
from app.domain.plan import Engine, Metric, Plan, RunKey, as_point
from app.domain.records import RunMetrics, RunRecord, SessionStatus
from app.domain.results import LatencySecond, Sample
from app.domain.stream import drive
from app.engine.drivers.registry import DRIVERS, EngineDriver, RunHandle
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ServerStopped,
    StoppedByUser,
)
from app.store.db import StoreError
from app.store.run_rows import RunRows
from app.store.sessions import SessionStore
from app.study.host.cpu_sampler import CpuSampler
from app.study.sweep.events import (
    AfterFailure,
    LatencyNote,
    LatencyProbed,
    LatencySeconds,
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SamplesRevised,
    ServerNote,
    StudyEvent,
)
from app.study.sweep.outcomes import Outcome, RetryPolicy, transient
from app.study.sweep.said import Said
from app.study.sweep.sample_writer import SampleWriter

if TYPE_CHECKING:
    from app.engine.latency.latency import MethodChoice
    from app.study.sweep.working_latency import ChoiceCallback, Phase, RunProbes, WorkingLatency

#: A runner's events, and its outcome once read to the end.
Events = Generator[StudyEvent, None, Outcome]
#: Makes the working-latency part of a plan that measures it (tests give their own probes).
LatencyFactory = Callable[[Plan, "ChoiceCallback"], "WorkingLatency"]
STOPPED = "Stopped by the user."
DEFAULT_RETRY = RetryPolicy()


class Runner(ABC):
    """A plan's runs measured to their end, one after another (or a group at a time, each in
    a thread of its own): the order and the end are the subclass's _sweep()."""

    def __init__(
        self,
        store: SessionStore,
        plan: Plan,
        *,
        environment: dict[str, object] | None = None,
        resume_session: str | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
        drivers: Mapping[Engine, EngineDriver] | None = None,
        reason: str = "",
        latency: LatencyFactory | None = None,
        server_notes: Callable[[], Sequence[str]] | None = None,  # this computer's servers'
    ) -> None:
        self.store = store
        self._rows = RunRows(store)  # each run's row written as it is measured
        self.plan = plan
        self._said = Said()  # events said, waiting for the reading thread
        self._environment = environment
        self._resume = resume_session
        self._retry = retry
        self._driver = (drivers or DRIVERS)[plan.engine]
        self._stop = threading.Event()
        self._current: set[RunHandle] = set()
        self._stopped_runs: list[RunHandle] = []  # those whose engine ran when Stop came
        self._lock = threading.Lock()
        self.session_id: str | None = resume_session
        self._reason = reason  # said with the outcome when nothing else is (skipped series)
        self._latency_notes: list[str] = []  # how working latency was measured, said at the end
        self._probes: set[RunProbes] = set()
        self._begun = 0  # runs begun in this process (a retry is the same run)
        self._answered: dict[int, int] = {}  # port -> the last run a server there answered
        #: The intervals each run Stop cut short had measured (kept unfinished with them).
        self._cut: list[int] = []
        self._latency: WorkingLatency | None = None
        self._server_notes = server_notes or tuple  # what LinkLab did to them since asked
        if Metric.LATENCY in plan.metrics:  # WorkingLatency.wanted(plan)
            # The probes' modules load only for a plan that measures latency.
            from app.study.sweep.working_latency import WorkingLatency

            self._latency = (latency or WorkingLatency)(plan, self._latency_chosen)

    # -- control -------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask the sweep to stop: the run in progress ends now and is not counted."""
        self._stop.set()
        with self._lock:
            current = list(self._current)
            probes = list(self._probes)
            self._stopped_runs += [r for r in current if r.started and r.ended_at is None]
        for run in current:
            run.cancel()
        for probe in probes:
            probe.cancel()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _engines_ended_at(self) -> float | None:
        """When (time.monotonic()) the last engine that Stop ended was seen ended: read once
        their runs are over (the reader at its end, one not seen ended counts as now); None
        when no engine ran as Stop came (between runs, or not stopped)."""
        with self._lock:
            runs = list(self._stopped_runs)
        if not runs:
            return None
        now = time.monotonic()
        return max(now if r.ended_at is None else r.ended_at for r in runs)

    def _emit(self, event: StudyEvent) -> None:
        """Said from any thread: yielded, in order, at the reading thread's next yield."""
        self._said.say(event)

    def _said_so_far(self) -> Iterator[StudyEvent]:
        return self._said.so_far()

    # -- the runs ------------------------------------------------------------------------------

    def events(self) -> Events:
        """The plan (or the missing runs of a resumed session) measured as the events are
        read, to the end or to stop(); returns the outcome. A reader that leaves before the
        end (closes the generator) stops the sweep: the run in progress is ended and kept
        unfinished, the session marked stopped."""
        self._said.read_here()
        try:
            outcome = yield from self._sweep()
        except GeneratorExit:
            self.stop()
            self._left_unread()
            raise
        yield from self._said_so_far()
        return outcome

    def run(self) -> Outcome:
        """The whole sweep for a caller that wants only its outcome (its events unread)."""
        return drive(self.events())

    def _left_unread(self) -> None:
        """The reader left mid-sweep: the session is stopped (what was measured stays)."""
        if self.session_id is not None:
            try:
                self.store.finish(self.session_id, SessionStatus.STOPPED, STOPPED)
            except StoreError:
                pass  # the session shows as interrupted, to be resumed

    @abstractmethod
    def _sweep(self) -> Events:
        """The runner's runs, in its order, to its end or to stop(); returns the outcome."""

    def _port(self, key: RunKey) -> int:
        return self._driver.port(self.plan, key)

    def _run_with_retries(
        self, session_id: str, engine_version: str, key: RunKey
    ) -> Generator[StudyEvent, None, RunRecord | None]:
        """One run to its end. Its row is stored as it starts (partial) and its samples about
        once a second, so a crash loses at most the last second; the result (or the error)
        completes it. Stopped mid-run, it is what _cut_short() makes of it (a sweep: None)."""
        value = as_point(self.plan.values[key.value_index])
        attempt = 0
        self._begun += 1
        number = self._begun
        while True:
            attempt += 1
            probes = self._run_probes(key)
            run = self._driver.start(self.plan, key)
            self._emit(RunStarted(key, value, run.argv, attempt))
            yield from self._said_so_far()
            writer = SampleWriter(
                self._rows,
                self._rows.begin(
                    session_id,
                    key,
                    value,
                    attempts=attempt,
                    engine=self._driver.name,
                    engine_version=engine_version,
                    argv=run.argv,
                ),
                latency=probes.seconds if probes is not None else None,
            )
            sampler = CpuSampler()
            with self._lock:
                self._current.add(run)
                if probes is not None:
                    self._probes.add(probes)
            try:
                if self._stop.is_set() or (
                    probes is not None and not (yield from self._idle_probes(probes))
                ):
                    writer.unfinished(STOPPED)
                    self._cut.append(0)  # stopped before the engine measured
                    return None
                if probes is not None:
                    probes.started()
                with sampler:
                    for event in run.events():
                        if isinstance(event, Sample):
                            if not event.omitted:
                                writer.add(event)
                                if probes is not None:
                                    probes.loaded()  # the engine's test is under way
                            self._emit(SampleArrived(key, event))
                        yield from self._said_so_far()
                result = run.result
                assert result is not None
                figures = probes.figures() if probes is not None else None
            except GeneratorExit:  # the reader left: the engine is ended, its run kept so far
                run.cancel()
                writer.unfinished(STOPPED, run.output())
                raise
            except StoppedByUser:
                return self._cut_short(key, writer, run, attempt, sampler, probes)
            except StoreError:
                run.cancel()  # the database failed, not the engine: nothing more is measured
                raise
            except LinkLabError as caught:
                if self._stop.is_set():
                    return self._cut_short(key, writer, run, attempt, sampler, probes)
                err = self._named(caught, key, number)
                for sentence in self._server_notes():  # a restart: why the run failed, first
                    self._emit(ServerNote(sentence))
                # A busy server gets the full retry budget; a refusal, or a connection closed
                # before the test (a server still ending the test before), is retried once.
                once = isinstance(err, ConnectionRefused | ClosedBeforeStart)
                limit = 2 if once else self._retry.attempts
                retry = transient(err) and attempt < limit
                after = self._after_failure()  # what follows, and the failures in a row
                failed = (key, value, err.kind, err.sentence, retry, attempt, err.retry_words)
                self._emit(RunFailed(*failed, *after))
                yield from self._said_so_far()
                if retry:
                    writer.unfinished(err.sentence, err.detail or run.output())
                    if self._stop.wait(self._retry.wait(attempt)):
                        return None
                    continue
                kept = self._cut_by_failure(key, writer, run, attempt, sampler, probes, err)
                if kept is not None:
                    return kept
                writer.finish(
                    metrics=None,
                    error_kind=err.kind,
                    error=err.sentence,
                    attempts=attempt,
                    raw_output=err.detail or "",
                )
                return self._stored(session_id, writer.run_id)
            finally:
                with self._lock:
                    self._current.discard(run)
                    if probes is not None:
                        self._probes.discard(probes)
                if probes is not None:
                    probes.close()
            metrics = RunMetrics.from_result(result, sampler.mean, sampler.peak, sampler.own_mean)
            if figures is not None:
                metrics = replace(metrics, **figures.metric_fields())
                if probes is not None and probes.problem:
                    self._emit(LatencyNote("", probes.problem))
            writer.finish(
                metrics=metrics,
                attempts=attempt,
                started_steady=result.started_steady,  # on the session's time (the store's)
                elapsed_s=result.elapsed_s,
                engine_version=result.engine_version,
                argv=result.argv,
                raw_output=result.raw_output,
                flows=result.summary.flows,
                revised=result.samples if result.samples_revised else None,
            )
            if result.samples_revised:
                self._emit(SamplesRevised(key, result.samples))
            self._answered[self._port(key)] = number
            self._emit(RunFinished(key, value, writer.run_id, metrics))
            return self._stored(session_id, writer.run_id)

    @abstractmethod
    def _after_failure(self) -> tuple[AfterFailure, int]:
        """What follows a run failing for good, and the failures in a row (RunFailed's)."""

    def _named(self, err: LinkLabError, key: RunKey, number: int) -> LinkLabError:
        """A refusal by a server that answered an earlier run is named as what it is: the
        server stopped on the peer (crashed, most likely), not one the user never started."""
        if not isinstance(err, ConnectionRefused) or isinstance(err, ServerStopped):
            return err
        answered = self._answered.get(self._port(key))
        if answered is None or not hasattr(err, "server"):
            return err
        return ServerStopped(err, number, answered)

    def _cut_short(
        self,
        key: RunKey,
        writer: SampleWriter,
        run: RunHandle,
        attempt: int,
        sampler: CpuSampler,
        probes: RunProbes | None,
    ) -> RunRecord | None:
        """Stopped mid-run: a sweep keeps what it measured unfinished, with the engine's output
        until then (None is returned)."""
        writer.unfinished(STOPPED, run.output())
        self._cut.append(writer.count)
        return None

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
        """A run that failed after measuring: a sweep stores it failed (None here)."""
        return None

    # -- working latency -----------------------------------------------------------------------

    def _run_probes(self, key: RunKey) -> RunProbes | None:
        if self._latency is None:
            return None

        def probed(phase: Phase, batch: list[tuple[float, float | None]]) -> None:
            times = tuple(t for t, _ in batch)
            self._emit(LatencyProbed(key, phase.value, times, tuple(r for _, r in batch)))

        def seconds(found: list[LatencySecond]) -> None:
            self._emit(LatencySeconds(key, tuple(found)))

        return self._latency.probes(key, probed, seconds)

    def _idle_probes(self, probes: RunProbes) -> Generator[StudyEvent, None, bool]:
        """The idle probes before the engine starts, their batches yielded as they come."""
        ticks = probes.idle()
        while True:
            try:
                next(ticks)
            except StopIteration as end:
                return bool(end.value)
            yield from self._said_so_far()

    def _latency_chosen(self, choice: MethodChoice | None, sentence: str) -> None:
        self._latency_notes.append(sentence)
        self._emit(LatencyNote(choice.method.value if choice is not None else "", sentence))

    def _stored(self, session_id: str, run_id: int) -> RunRecord:
        # Without its raw output: the runner keeps every finished run for the points' figures,
        # and a long study's raw outputs would otherwise stay in memory to its end.
        return self.store.run(session_id, run_id, with_raw=False)
