"""The monitor's runner with the fake engine driver: runs chained until stop, every interval
stored; a peer that stops answering said in a sentence and tried again with growing waits,
said back with the first interval after the gap. The window drives a real iperf3 monitor in
tests/ui/test_monitor.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from app.analysis.monitor_trace import (
    MonitorTraces,
    figures,
    gaps,
    placed,
    stored_traces,
)
from app.analysis.trace import Ring
from app.domain.errors import LinkLabError
from app.domain.net import Flow, Protocol
from app.domain.plan import Peer, RunKey
from app.domain.records import SessionStatus
from app.domain.results import Sample
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.engine.errors import ConnectionRefused, PeerVanished
from app.store.sessions import SessionStore
from app.study.sweep.describe import describe_plan
from app.study.sweep.events import (
    MonitorResumed,
    MonitorWaiting,
    RunStarted,
    SampleArrived,
    StudyEvent,
)
from app.study.sweep.monitor import MonitorRunner, monitor_plan
from app.study.sweep.outcomes import Outcome, RetryPolicy

PLAN = monitor_plan(Peer("lab-peer"), run_s=5)


class QuickMonitor(MonitorRunner):
    backoff = RetryPolicy(first_wait_s=0.01, max_wait_s=0.04)


class Observed:
    """A monitor and what reads its events (the test's observer)."""

    def __init__(self, runner: MonitorRunner, each: Callable[[StudyEvent], None]) -> None:
        self.runner, self.each = runner, each

    def run(self) -> Outcome:
        return drive(self.runner.events(), self.each)

    def stop(self) -> None:
        self.runner.stop()


def monitor(
    store: SessionStore, driver: FakeDriver, samples: int
) -> tuple[Observed, list[StudyEvent]]:
    """A monitor stopped by its observer at the given count of intervals."""
    events: list[StudyEvent] = []

    def observe(event: StudyEvent) -> None:
        events.append(event)
        if sum(isinstance(e, SampleArrived) for e in events) >= samples:
            runner.stop()

    runner = Observed(
        QuickMonitor(store, PLAN, drivers={PLAN.engine: driver}, retry=RetryPolicy(0, 0.0, 0.0)),
        observe,
    )
    return runner, events


def test_runs_are_chained_until_stop_and_every_interval_is_kept(store: SessionStore) -> None:
    runner, _events = monitor(store, FakeDriver(interval_s=0.001), samples=12)
    outcome = runner.run()
    assert outcome.status is SessionStatus.COMPLETED
    # Two runs of 5 s, and the third, stopped after 2 intervals, finished as a run of those.
    assert outcome.runs_done == 3 and outcome.runs_failed == 0
    runs = store.runs(outcome.session_id, partial=True)
    assert [run.key.repetition for run in runs] == [1, 2, 3]
    assert [run.status for run in runs] == ["ok", "ok", "ok"]
    assert sum(len(store.samples(run.id)) for run in runs) == 12
    (session,) = store.list_sessions()
    assert (session.runs_done, session.runs_partial, session.total_runs) == (3, 0, 3)
    assert session.plan.is_monitor and session.plan.repetitions == 3
    assert "monitor: 3 runs of up to 5 s, back to back" in describe_plan(session.plan)
    assert "Monitored for about" in session.status_reason
    assert "in 3 runs" in session.status_reason
    assert session.status_reason.endswith("Stopped by the user.")


def test_the_run_stop_cuts_short_has_the_figures_of_its_intervals(store: SessionStore) -> None:
    rates = {1: 40e6, 2: 60e6}  # each run at its own rate
    driver = FakeDriver(interval_s=0.001, throughput=lambda key, _v: rates[key.repetition])
    runner, _events = monitor(store, driver, samples=8)  # 5 intervals, then 3 of the second
    outcome = runner.run()
    first, cut = store.runs(outcome.session_id)
    assert cut.ok and not cut.partial and cut.error == ""
    measured = store.samples(cut.id)
    assert len(measured) == 3
    mean = np.mean([s.goodput_bps(Protocol.TCP) for s in measured])
    assert cut.metrics.throughput_bps == pytest.approx(mean) == pytest.approx(60e6)
    assert cut.metrics.bytes_received == sum(s.bytes or 0 for s in measured)
    assert cut.metrics.retransmits == 0
    assert cut.elapsed_s == pytest.approx(measured[-1].end_s)
    assert first.metrics.throughput_bps == pytest.approx(40e6)


def test_a_run_stopped_before_its_first_interval_is_dropped(store: SessionStore) -> None:
    def observe(event: StudyEvent) -> None:
        if isinstance(event, RunStarted) and event.key.repetition == 2:
            runner.stop()  # as the second run starts

    driver = FakeDriver(interval_s=0.001)
    runner = Observed(QuickMonitor(store, PLAN, drivers={PLAN.engine: driver}), observe)
    outcome = runner.run()
    assert [run.status for run in store.runs(outcome.session_id, partial=True)] == ["ok"]
    (session,) = store.list_sessions()
    assert (session.runs_done, session.total_runs, session.plan.repetitions) == (1, 1, 1)
    assert "in 1 run of" in session.status_reason


def test_a_peer_that_stops_answering_is_tried_again_with_growing_waits(
    store: SessionStore,
) -> None:
    def fail(key: RunKey, _attempt: int) -> LinkLabError | None:
        gone = 2 <= key.repetition <= 4  # runs 2 to 4 find nobody
        return ConnectionRefused("lab-peer", 5201, "iperf3 server", "iperf3 -s") if gone else None

    runner, events = monitor(store, FakeDriver(fail=fail, interval_s=0.001), samples=8)
    outcome = runner.run()
    waiting = [e for e in events if isinstance(e, MonitorWaiting)]
    assert [e.attempt for e in waiting] == [1, 2, 3]
    assert [e.retry_in_s for e in waiting] == [0.01, 0.02, 0.04]  # doubling, up to the cap
    assert waiting[0].sentence.startswith("Lab-peer stopped answering. The monitor tries again")
    assert waiting[2].sentence.startswith("Lab-peer stopped answering (3 tries).")
    assert "keeps everything it measured" in waiting[0].sentence
    (back,) = [e for e in events if isinstance(e, MonitorResumed)]
    assert back.sentence.startswith("Lab-peer answers again after about")
    after = events[events.index(back) + 1]
    assert isinstance(after, SampleArrived) and after.key.repetition == 5
    runs = store.runs(outcome.session_id, partial=True)
    assert [run.status for run in runs] == ["ok", "failed", "failed", "failed", "ok"]
    assert outcome.status is SessionStatus.COMPLETED and outcome.runs_failed == 3


def test_a_run_the_peers_absence_cut_after_measuring_is_kept_finished(
    store: SessionStore,
) -> None:
    """The peer's server stops in the middle of run 1 (3 intervals measured): run 1 is stored
    as a finished run of those intervals, not failed; run 2 meets the absence and fails; the
    session reads "completed with failures" in every view (one wording)."""

    def cut(key: RunKey) -> tuple[int, LinkLabError] | None:
        return (
            (3, PeerVanished("lab-peer", 5, detail="server gone")) if key.repetition == 1 else None
        )

    def fail(key: RunKey, _attempt: int) -> LinkLabError | None:
        return (
            ConnectionRefused("lab-peer", 5201, "iperf3 server", "iperf3 -s")
            if key.repetition == 2
            else None
        )

    driver = FakeDriver(fail=fail, cut=cut, interval_s=0.001)
    runner, _events = monitor(store, driver, samples=6)
    outcome = runner.run()
    first, gone, back = store.runs(outcome.session_id, partial=True)
    assert first.ok and first.error == "" and len(store.samples(first.id)) == 3
    assert first.metrics.throughput_bps is not None
    assert "server gone" in store.run(outcome.session_id, first.id).raw_output
    assert not gone.ok and back.ok
    (session,) = store.list_sessions()
    assert (session.runs_done, session.runs_failed) == (3, 1)
    assert session.status_text == "completed with failures"


def sample(end: float, bps: float) -> Sample:
    return Sample(end - 1, end, Flow.UP, sent_bps=bps, received_bps=bps, retransmits=0)


def test_the_curves_stay_bounded_and_the_figures_cover_the_whole_monitor() -> None:
    traces = MonitorTraces(Protocol.TCP, recent_points=600, buckets=64)
    for second in range(1, 10 * 3600 + 1):  # ten hours of one-second intervals
        traces.add_sample(0.0, sample(float(second), 50e6 + (second % 100) * 1e5))
    trace = traces.throughput["upload (received)"]
    assert trace.recent.count == 600 and trace.count == 36_000
    t, v, low, high = trace.whole()
    assert len(t) <= 64 and t[0] < 3600 and t[-1] > 9 * 3600  # the whole span, bucketed
    assert np.all(low <= v) and np.all(v <= high)
    t, v = trace.window(36_000 - 300)  # the last five minutes at full resolution
    assert len(t) == 301
    (row, retransmits) = figures(traces)
    assert row.what == "upload (received)" and row.now == 50e6 + 0 * 1e5
    assert row.low == 50e6 and row.high == 50e6 + 99 * 1e5
    assert row.mean == pytest.approx(50e6 + 49.5 * 1e5)
    assert retransmits.what == "retransmits" and retransmits.high == 0


def test_a_window_of_the_ring_is_its_points_from_then_on_wrapped_or_not() -> None:
    ring = Ring(5)
    for second in range(1, 4):
        ring.add(float(second), second * 10.0)
    assert [list(a) for a in ring.since(2.0)] == [[2.0, 3.0], [20.0, 30.0]]
    for second in range(4, 9):  # wraps: 4 … 8 held, 6 to 8 at the start of the arrays
        ring.add(float(second), second * 10.0)
    assert [list(a) for a in ring.since(5.5)] == [[6.0, 7.0, 8.0], [60.0, 70.0, 80.0]]
    assert list(ring.arrays()[0]) == [4.0, 5.0, 6.0, 7.0, 8.0]
    assert list(ring.since(9.0)[0]) == []


def test_stored_runs_are_placed_on_the_monitors_time_axis_with_their_gap() -> None:
    """Two runs 20 s apart (the peer gone between): their intervals placed from the first
    run's start, the gap said before the first interval after it, the short interval cut by
    Stop drawn but kept out of the figures."""
    first = [sample(float(s), 40e6) for s in (1, 2, 3)]
    second = [sample(float(s), 60e6) for s in (1, 2)]
    cut = Sample(2.0, 2.3, Flow.UP, sent_bps=1e6, received_bps=1e6, retransmits=0)
    runs = [
        ("2026-01-01T10:00:00.000Z", first),
        ("2026-01-01T10:00:23.000Z", [*second, cut]),
    ]
    times = [t for t, _ in placed(runs)]
    assert times == [1.0, 2.0, 3.0, 24.0, 25.0, 25.3]
    assert gaps(times, 1.0) == [0.0, 0.0, 0.0, 20.0, 0.0, 0.0]
    traces = stored_traces(Protocol.TCP, 1.0, runs)
    (row, _retransmits) = figures(traces)
    assert row.what == "upload (received)"
    assert row.low == 40e6 and row.now == 60e6  # the 0.3 s interval is not the Min
    assert traces.throughput["upload (received)"].recent.count == 6  # but it is drawn


def test_the_run_stop_cuts_short_keeps_the_engines_output(store: SessionStore) -> None:
    runner, _events = monitor(store, FakeDriver(interval_s=0.001), samples=7)  # 5, then 2
    outcome = runner.run()
    first, cut = store.runs(outcome.session_id, with_raw=True)
    assert first.raw_output and cut.raw_output.startswith("fake run of")
