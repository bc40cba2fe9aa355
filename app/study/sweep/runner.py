"""The sweep: every run of a plan (or the missing and failed runs of a resumed session), each
stored before the next starts; the series of a concurrent plan at the same time, each in a
thread of its own; a point settled by early stop skipped, the loss emulated per point, too
many failures in a row ending it, and its status from its runs (Qt-free). How each run is
measured to its end is app.study.sweep.run_to_end's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Sequence

from app.domain.plan import RunKey, Variable
from app.domain.records import RunRecord, SessionStatus
from app.domain.stream import drive
from app.store.db import StoreError
from app.study.host.shaping import LossEmulationFailed, loss_emulator
from app.study.sweep.events import AfterFailure, SessionFinished, SessionStarted, StudyEvent
from app.study.sweep.outcomes import Outcome, after_failure, gave_up, measured_again, verdict
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.progress import point_settled, point_updated, points_so_far, progress
from app.study.sweep.run_to_end import STOPPED, Events, Runner


class StudyRunner(Runner):
    """A study's sweep over its plan's points, in the plan's order."""

    # Where the sweep stands while a group of runs goes on: what a failure there leads to.
    _in_a_row = 0  # failures in a row before the group
    _group_size = 1
    _later: Sequence[Sequence[RunKey]] = ()  # the groups after it
    _records: Sequence[RunRecord] = ()

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
        for point in points_so_far(self.plan, records):  # a resume: what it measured before
            self._emit(point)
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
        cut = tuple(self._cut)
        ended = self._engines_ended_at()
        self._emit(SessionFinished(session_id, status, reason, finished_runs, failed, cut, ended))
        return Outcome(session_id, status, reason, finished_runs, failed)

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

    def _after_failure(self) -> tuple[AfterFailure, int]:
        """What follows a run of the group in progress failing for good (outcomes.after)."""
        # Early stop skips a settled point's runs; a failure settles nothing.
        left = sum(not point_settled(self.plan, self._records, k) for g in self._later for k in g)
        limit = self.plan.max_consecutive_failures
        return after_failure(self._in_a_row, self._group_size, left, limit)
