"""The sweep runner: every run of a plan, each stored before the next starts (Qt-free).

events() is a generator of the sweep's typed events, read in one thread (the CLI's main
thread, the window's worker): the sweep goes on as it is read, each run's engine output read
between yields. stop() may be called from any thread and ends the run in progress within
about a second; the last events (the session's end) still come. Events said in another
thread (a concurrent series' run, the latency probes) wait in a queue for the next yield.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from app.domain.errors import LinkLabError
from app.domain.plan import Engine, Metric, Plan, RunKey, Variable, as_point
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
from app.store.sessions import SessionStore
from app.study.host.cpu_sampler import CpuSampler
from app.study.host.shaping import LossEmulationFailed, loss_emulator
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
    SessionFinished,
    SessionStarted,
    StudyEvent,
)
from app.study.sweep.outcomes import (
    Outcome,
    RetryPolicy,
    after_failure,
    gave_up,
    measured_again,
    transient,
    verdict,
)
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.progress import point_settled, point_updated, progress
from app.study.sweep.said import Said
from app.study.sweep.sample_writer import SampleWriter

if TYPE_CHECKING:
    from app.engine.latency.latency import MethodChoice
    from app.study.sweep.working_latency import ChoiceCallback, Phase, RunProbes, WorkingLatency

#: The sweep's events, and its outcome once read to the end.
Events = Generator[StudyEvent, None, "Outcome"]
#: Makes the working-latency part of a plan that measures it (tests give their own probes).
LatencyFactory = Callable[[Plan, "ChoiceCallback"], "WorkingLatency"]
STOPPED = "Stopped by the user."
DEFAULT_RETRY = RetryPolicy()
# Imported from here by the monitor, the study run and the tests: the runner's vocabulary.
__all__ = ["STOPPED", "Events", "Outcome", "RetryPolicy", "StudyRunner", "gave_up", "verdict"]


class StudyRunner:
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
        self.plan = plan
        self._said = Said()  # events said, waiting for the reading thread
        self._environment = environment
        self._resume = resume_session
        self._retry = retry
        self._driver = (drivers or DRIVERS)[plan.engine]
        self._stop = threading.Event()
        self._current: set[RunHandle] = set()
        self._lock = threading.Lock()
        self.session_id: str | None = resume_session
        self._reason = reason  # said with the outcome when nothing else is (skipped series)
        self._latency_notes: list[str] = []  # how working latency was measured, said at the end
        self._probes: set[RunProbes] = set()
        self._begun = 0  # runs begun in this process (a retry is the same run)
        self._answered: dict[int, int] = {}  # port -> the last run a server there answered
        # Where the sweep stands while a group of runs goes on: what a failure there leads to.
        self._in_a_row = 0  # failures in a row before the group
        self._group_size = 1
        self._later: list[list[RunKey]] = []  # the groups after it
        self._records: list[RunRecord] = []
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
        for run in current:
            run.cancel()
        for probe in probes:
            probe.cancel()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _emit(self, event: StudyEvent) -> None:
        """Said from any thread: yielded, in order, at the reading thread's next yield."""
        self._said.say(event)

    def _said_so_far(self) -> Iterator[StudyEvent]:
        return self._said.so_far()

    # -- the sweep -----------------------------------------------------------------------------
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

    def _sweep(self) -> Events:
        validate_plan(self.plan)
        engine_version = self._driver.version()  # a missing engine is said before any session
        loss = loss_emulator(self.plan.peer) if self.plan.variable is Variable.LOSS else None
        if self._resume is None:
            self.session_id = self.store.create_session(self.plan, self._environment)
        else:
            self.store.claim(self._resume)
        assert self.session_id is not None
        session_id = self.session_id
        done = self.store.done_keys(session_id)
        records = self.store.runs(session_id)
        groups = [[k for k in group if k not in done] for group in self.plan.concurrent_groups()]
        groups = [group for group in groups if group]
        total = self.plan.total_runs
        self._emit(SessionStarted(session_id, self.plan, total, len(done)))
        yield from self._said_so_far()
        status, reason = SessionStatus.COMPLETED, self._reason
        gave_up_early = False  # stopped after too many failures in a row (its reason said)
        consecutive_failures = 0
        durations: list[float] = []
        finished = len(done)
        remaining = sum(len(g) for g in groups)
        try:
            for number, group in enumerate(groups):
                if self._stop.is_set():
                    status, reason = SessionStatus.STOPPED, STOPPED
                    break
                todo = [k for k in group if not point_settled(self.plan, records, k)]
                finished += len(group) - len(todo)
                remaining -= len(group) - len(todo)
                if not todo:
                    continue
                t0 = time.monotonic()
                if loss is not None:
                    loss.apply(
                        int(self.plan.values[todo[0].value_index]),
                        [(k.protocol.value, self._port(k)) for k in todo],
                    )
                self._in_a_row, self._group_size = consecutive_failures, len(todo)
                self._later, self._records = groups[number + 1 :], records
                results = yield from self._run_group(session_id, engine_version, todo)
                yield from self._said_so_far()
                if any(record is None for record in results):
                    # Stopped mid-run: runs already finished are kept, the others dropped.
                    for record in results:
                        if record is not None:
                            measured_again(records, record)
                    status, reason = SessionStatus.STOPPED, STOPPED
                    break
                elapsed = time.monotonic() - t0
                for key, record in zip(todo, results, strict=True):
                    assert record is not None
                    measured_again(records, record)
                    finished += 1
                    remaining -= 1
                    durations.append(elapsed / len(todo))
                    self._emit(point_updated(self.plan, records, key))
                    self._emit(progress(self.plan, finished, total, durations, remaining, key))
                    yield from self._said_so_far()
                    if record.ok:
                        consecutive_failures = 0
                    else:
                        consecutive_failures += 1
                # Runs left to try: too many failures in a row end the sweep before them (with
                # none left, the sweep has ended anyway, and its verdict counts every run).
                if remaining and consecutive_failures >= self.plan.max_consecutive_failures:
                    last = next(r for r in reversed(results) if r is not None and not r.ok)
                    assert last is not None
                    status, reason = gave_up(records, consecutive_failures, last.error)
                    gave_up_early = True
                    break
                if remaining and self.plan.pause_s and self._stop.wait(self.plan.pause_s):
                    status, reason = SessionStatus.STOPPED, STOPPED
                    break
        except LossEmulationFailed as err:
            status, reason = SessionStatus.FAILED, err.sentence
        except StoreError as err:
            status, reason = SessionStatus.FAILED, err.sentence
            self._emit(SessionFinished(session_id, status, reason))
            yield from self._said_so_far()
            try:
                self.store.finish(session_id, status, reason)
            except StoreError:
                pass  # the database itself is what failed; the session shows as interrupted
            raise
        finally:
            if loss is not None:
                loss.clear()  # never leave the rule behind, whatever happened (a reader gone)
        if status is SessionStatus.COMPLETED and not gave_up_early:
            status, reason = verdict(records, " ".join([reason, *self._latency_notes]).strip())
        finished_runs, failed = len(records), sum(not r.ok for r in records)
        self.store.finish(session_id, status, reason)
        self._emit(SessionFinished(session_id, status, reason, finished_runs, failed))
        return Outcome(session_id, status, reason, finished_runs, failed)

    def _port(self, key: RunKey) -> int:
        return self._driver.port(self.plan, key)

    def _run_group(
        self, session_id: str, engine_version: str, keys: list[RunKey]
    ) -> Generator[StudyEvent, None, list[RunRecord | None]]:
        """One run, or (concurrent plans) every series' run at the same time: each series in
        a thread of its own, their events yielded here as they are said."""
        if len(keys) == 1:
            return [(yield from self._run_with_retries(session_id, engine_version, keys[0]))]
        results: list[RunRecord | None] = [None] * len(keys)
        errors: list[BaseException] = []

        def work(index: int, key: RunKey) -> None:
            try:
                run = self._run_with_retries(session_id, engine_version, key)
                results[index] = drive(run)  # its events wait for the reading thread
            except BaseException as err:  # re-raised below, in the runner's own thread
                errors.append(err)
                self.stop()

        threads = [
            threading.Thread(target=work, args=(i, k), name=f"run-{i}") for i, k in enumerate(keys)
        ]
        for thread in threads:
            thread.start()
        try:
            while any(thread.is_alive() for thread in threads):
                self._said.wait(0.2)
                yield from self._said_so_far()
        finally:  # the reader gone: the series' runs are stopped, not left running
            if any(thread.is_alive() for thread in threads):
                self.stop()
            for thread in threads:
                thread.join()
        if errors:
            raise errors[0]
        return results

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
                self.store,
                self.store.begin_run(
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
                writer.unfinished(STOPPED)
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
                    writer.unfinished(err.sentence)
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

    def _after_failure(self) -> tuple[AfterFailure, int]:
        """What follows a run of the group in progress failing for good (outcomes.after)."""
        # Early stop skips a settled point's runs; a failure settles nothing.
        left = sum(not point_settled(self.plan, self._records, k) for g in self._later for k in g)
        limit = self.plan.max_consecutive_failures
        return after_failure(self._in_a_row, self._group_size, left, limit)

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
        """Stopped mid-run: a sweep keeps what it measured unfinished (None is returned)."""
        writer.unfinished(STOPPED)
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
