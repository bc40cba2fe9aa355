"""The sweep runner's decisions with the fake engine driver: order, storage before the next
run, retries, failures, early stop, resume and stop — in milliseconds. The real engines drive
the runner in tests/study/test_runner.py."""

from __future__ import annotations

import threading
from dataclasses import replace

from app.analysis.stats import precise_enough, summarize
from app.domain.errors import LinkLabError
from app.domain.net import IpVersion, Protocol
from app.domain.plan import EarlyStop, Engine, Metric, Order, Peer, Plan, RunKey, RunKind
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.engine.errors import ClosedBeforeStart, ConnectionRefused, PeerVanished, ServerBusy
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.studies import resume_problem
from app.study.sweep.events import (
    PointUpdated,
    Progress,
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SessionFinished,
    SessionStarted,
    StudyEvent,
)
from app.study.sweep.outcomes import RetryPolicy
from app.study.sweep.runner import StudyRunner

NO_WAIT = RetryPolicy(first_wait_s=0.0, max_wait_s=0.0)


def plan(**changes: object) -> Plan:
    base = {
        "peer": Peer("lab-peer", host6="fd00::2"),
        "protocols": (Protocol.TCP, Protocol.UDP),
        "ip_versions": (IpVersion.V4, IpVersion.V6),
        "values": (128, 1408),
        "repetitions": 2,
        "duration_s": 3,
    }
    return Plan(**{**base, **changes})  # type: ignore[arg-type]


def run(store: SessionStore, the_plan: Plan, driver: FakeDriver, **kw: object) -> tuple:  # type: ignore[type-arg]
    events: list[StudyEvent] = []
    runner = StudyRunner(
        store,
        the_plan,
        drivers={the_plan.engine: driver},
        retry=kw.pop("retry", NO_WAIT),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )
    return drive(runner.events(), events.append), events


def test_every_run_is_stored_before_the_next_and_events_agree(store: SessionStore) -> None:
    the_plan = plan()
    stored_at_start: list[int] = []

    def observe(event: StudyEvent) -> None:
        if isinstance(event, RunStarted):
            with Database(store.db.path, readonly=True) as reader:
                stored_at_start.append(reader.query("SELECT count(*) AS n FROM runs")[0]["n"])

    events: list[StudyEvent] = []
    outcome = drive(
        StudyRunner(store, the_plan, drivers={Engine.IPERF3: FakeDriver()}).events(),
        lambda e: (events.append(e), observe(e)),
    )
    assert outcome.status is SessionStatus.COMPLETED
    assert stored_at_start == list(range(the_plan.total_runs)) and the_plan.total_runs == 16
    assert isinstance(events[0], SessionStarted) and isinstance(events[-1], SessionFinished)
    assert {RunStarted, SampleArrived, RunFinished, PointUpdated, Progress} <= {
        type(e) for e in events
    }
    runs = store.runs(outcome.session_id)
    assert [r.key for r in runs] == the_plan.run_keys()  # sequential: series by series
    assert all(len(store.samples(r.id)) == 3 for r in runs)  # one per second of the run
    last: dict[tuple[object, float], PointUpdated] = {}
    for event in events:
        if isinstance(event, PointUpdated):
            last[(event.series, event.value)] = event
    for (series, value), event in last.items():
        mine = [
            r.metrics.throughput_bps for r in runs if r.key.series == series and r.value == value
        ]
        assert event.throughput_bps == summarize(mine)


def test_interleaved_order_alternates_the_series(store: SessionStore) -> None:
    driver = FakeDriver()
    outcome, _ = run(store, plan(order=Order.INTERLEAVED), driver)
    series = [(k.protocol, k.ip_version) for k in driver.started]
    assert len(set(series[:4])) == 4  # every series once before any repeats
    assert outcome.status is SessionStatus.COMPLETED


def test_a_busy_server_is_retried_and_a_refusal_once(store: SessionStore) -> None:
    def fail(key: RunKey, attempt: int) -> LinkLabError | None:
        if key.value_index == 0 and key.repetition == 1 and attempt <= 2:
            return ServerBusy("lab-peer", 5201, "iperf3 server", "iperf3 -s")
        if key.value_index == 1 and key.repetition == 1:
            return ConnectionRefused("lab-peer", 5201, "iperf3 server", "iperf3 -s")
        return None

    outcome, events = run(
        store, plan(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,)), FakeDriver(fail=fail)
    )
    runs = {(r.key.value_index, r.key.repetition): r for r in store.runs(outcome.session_id)}
    assert runs[(0, 1)].ok and runs[(0, 1)].attempts == 3
    assert not runs[(1, 1)].ok and runs[(1, 1)].attempts == 2  # a refusal is tried twice
    # The server answered run 1: its refusal is named as the server having stopped.
    assert runs[(1, 1)].error_kind == "ServerStopped"
    assert runs[(1, 2)].ok
    retried = [e for e in events if isinstance(e, RunFailed) and e.will_retry]
    assert [e.error_kind for e in retried] == ["ServerBusy", "ServerBusy", "ServerStopped"]
    # Each note says why as its error's class does (a stopped server is a refusal).
    busy, refused = "the server was busy with another test", "the server refused the connection"
    assert [e.retry_note for e in retried] == [
        f"Run 1 did not start at once ({busy}); trying again.",
        f"Run 1 did not start at once ({busy}); trying again.",
        f"Run 1 did not start at once ({refused} for a moment); trying again.",
    ]


def test_a_connection_closed_before_the_test_is_tried_once_more(store: SessionStore) -> None:
    """A server still ending the test before can close the next one's connection: one more
    try; a peer that always does so fails the run after two, with the sentence."""

    def fail(key: RunKey, attempt: int) -> LinkLabError | None:
        if key.value_index == 0 and key.repetition == 1 and attempt == 1:
            return ClosedBeforeStart("lab-peer", 5201, "iperf3 server", "iperf3")
        if key.value_index == 1 and key.repetition == 1:
            return ClosedBeforeStart("lab-peer", 5201, "iperf3 server", "iperf3")
        return None

    outcome, events = run(
        store, plan(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,)), FakeDriver(fail=fail)
    )
    runs = {(r.key.value_index, r.key.repetition): r for r in store.runs(outcome.session_id)}
    assert runs[(0, 1)].ok and runs[(0, 1)].attempts == 2
    retried = [e for e in events if isinstance(e, RunFailed) and e.will_retry]
    assert "(the server closed the connection before the test)" in retried[0].retry_note
    assert not runs[(1, 1)].ok and runs[(1, 1)].attempts == 2
    assert runs[(1, 1)].error and "closed it before the test started" in runs[(1, 1)].error


def test_a_failed_run_is_kept_and_the_sweep_goes_on(store: SessionStore) -> None:
    def fail(key: RunKey, attempt: int) -> LinkLabError | None:
        return (
            PeerVanished("lab-peer", 13) if key.repetition == 2 and key.value_index == 0 else None
        )

    outcome, _ = run(
        store, plan(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,)), FakeDriver(fail=fail)
    )
    assert [r.ok for r in store.runs(outcome.session_id)] == [True, False, True, True]
    assert outcome.status is SessionStatus.COMPLETED


def test_consecutive_failures_end_the_session(store: SessionStore) -> None:
    refuse = FakeDriver(
        fail=lambda _key, _attempt: ConnectionRefused(
            "lab-peer", 5201, "iperf3 server", "iperf3 -s"
        )
    )
    outcome, _ = run(store, plan(max_consecutive_failures=2), refuse)
    assert outcome.status is SessionStatus.FAILED
    assert "Stopped after 2 failures in a row" in outcome.reason and "refused" in outcome.reason
    runs = store.runs(outcome.session_id)
    assert len(runs) == 2 and not any(r.ok for r in runs)


def test_failures_in_a_row_after_good_runs_end_completed_with_the_good_ones_counted(
    store: SessionStore,
) -> None:
    """A server that answered the first runs and then went away: the session keeps its good
    runs and reads completed with failures, and each refusal names the server as stopped."""

    def fail(key: RunKey, attempt: int) -> LinkLabError | None:
        late = key.value_index > 0 or key.repetition > 1
        return ConnectionRefused("lab-peer", 5201, "iperf3 server", "iperf3 -s") if late else None

    the_plan = plan(
        protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,), max_consecutive_failures=2
    )
    outcome, _ = run(store, the_plan, FakeDriver(fail=fail))
    assert outcome.status is SessionStatus.COMPLETED
    assert outcome.reason.startswith("Stopped after 2 failures in a row, 1 of 3 runs good.")
    # It ends on what to do, and that is true: the session can be resumed.
    assert outcome.reason.endswith(
        "Once that is fixed, Resume (in Sessions, or linklab resume) measures the failed and "
        "missing runs; the good ones are kept."
    ), outcome.reason
    session = store.get(outcome.session_id)
    assert resume_problem(session) == ""
    assert session.status_text == "completed with failures"
    failed = [r for r in store.runs(outcome.session_id) if not r.ok]
    assert failed and all("stopped during run" in r.error for r in failed)
    assert "it answered run 1" in failed[0].error and "LinkLab's own server" in failed[0].error


def test_failures_up_to_the_last_run_end_in_the_verdict_not_a_stop(store: SessionStore) -> None:
    """Every run tried, the last ones failed: the sweep ran to its end, so its status says how
    many failed, never that it stopped after failures in a row."""

    def fail(key: RunKey, attempt: int) -> LinkLabError | None:
        return None if key.repetition == 1 else PeerVanished("lab-peer", 13)

    the_plan = plan(
        protocols=(Protocol.TCP,),
        ip_versions=(IpVersion.V4,),
        values=(1408,),
        repetitions=6,
        max_consecutive_failures=5,
    )
    outcome, events = run(store, the_plan, FakeDriver(fail=fail))
    assert outcome.status is SessionStatus.COMPLETED
    assert len(store.runs(outcome.session_id)) == 6
    assert outcome.reason.startswith("5 of 6 runs failed. The first failure: ")
    assert "Stopped" not in outcome.reason
    failures = [e for e in events if isinstance(e, RunFailed) and not e.will_retry]
    assert [e.then_words for e in failures] == ["The sweep goes on."] * 4 + [
        "It was the sweep's last run."
    ]


def test_the_failure_that_ends_the_sweep_says_so_not_that_it_goes_on(store: SessionStore) -> None:
    refuse = FakeDriver(fail=lambda _key, _attempt: PeerVanished("lab-peer", 13))
    the_plan = plan(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,), repetitions=3)
    outcome, events = run(store, replace(the_plan, max_consecutive_failures=2), refuse)
    failures = [e for e in events if isinstance(e, RunFailed) and not e.will_retry]
    assert [e.then_words for e in failures] == [
        "The sweep goes on.",
        "That is 2 failures in a row: the sweep stops here.",
    ]
    assert outcome.reason.startswith("Stopped after 2 failures in a row.")
    assert outcome.reason.endswith("linklab resume) measures the runs again."), outcome.reason
    assert "then run again" not in outcome.reason  # the error's own advice, for one run
    assert resume_problem(store.get(outcome.session_id)) == ""
    assert len(store.runs(outcome.session_id)) == 2 < the_plan.total_runs
    # One failure allowed (a class's stations): said in the singular.
    outcome, events = run(store, replace(the_plan, max_consecutive_failures=1), refuse)
    (failure,) = [e for e in events if isinstance(e, RunFailed) and not e.will_retry]
    assert failure.then_words == "That is 1 failure in a row: the sweep stops here."
    assert outcome.reason.startswith("Stopped after 1 failure in a row. The last error: ")


def test_early_stop_settles_points_and_resume_adds_nothing(store: SessionStore) -> None:
    # The fake's spread is 0.4 %: a 1 % target is met after the minimum of 3 runs.
    the_plan = plan(repetitions=6, early_stop=EarlyStop(relative_ci=0.01, min_runs=3))
    outcome, _ = run(store, the_plan, FakeDriver())
    runs = store.runs(outcome.session_id)
    assert outcome.status is SessionStatus.COMPLETED
    per_point: dict[tuple[object, float], list[float | None]] = {}
    for r in runs:
        per_point.setdefault((r.key.series, r.value), []).append(r.metrics.throughput_bps)
    assert all(len(v) == 3 for v in per_point.values()), {k: len(v) for k, v in per_point.items()}
    assert all(precise_enough(summarize(v), 0.01, 3) for v in per_point.values())
    again, _ = run(store, the_plan, FakeDriver(), resume_session=outcome.session_id)
    assert len(store.runs(again.session_id)) == len(runs)


def test_resume_does_only_the_missing_runs(store: SessionStore) -> None:
    the_plan = plan()
    runner: StudyRunner

    def stop_after_five(event: StudyEvent) -> None:
        if isinstance(event, Progress) and event.done == 5:
            runner.stop()

    runner = StudyRunner(store, the_plan, drivers={Engine.IPERF3: FakeDriver()})
    first = drive(runner.events(), stop_after_five)
    assert first.status is SessionStatus.STOPPED
    before = {r.id: r.key for r in store.runs(first.session_id)}
    assert len(before) == 5
    driver = FakeDriver()
    second, events = run(store, the_plan, driver, resume_session=first.session_id)
    assert second.status is SessionStatus.COMPLETED and second.session_id == first.session_id
    runs = store.runs(first.session_id)
    assert len(runs) == 16 and len({r.key for r in runs}) == 16
    assert {r.id: r.key for r in runs if r.id in before} == before
    assert len(driver.started) == 11
    assert isinstance(events[0], SessionStarted) and events[0].already_done == 5


def test_resume_measures_the_failed_runs_again_and_keeps_them_as_attempts(
    store: SessionStore,
) -> None:
    """A completed session with failed runs (a link gone for a while) is resumed: only its
    failed runs are measured again; each failed one is kept as an attempt tried again, so
    the session ends with every planned run, none failed, and nothing it measured lost."""
    the_plan = plan(protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,), repetitions=3)
    down = {RunKey(Protocol.TCP, IpVersion.V4, 0, 2), RunKey(Protocol.TCP, IpVersion.V4, 0, 3)}

    def link_down(key: RunKey, attempt: int) -> LinkLabError | None:
        return PeerVanished("lab-peer", 5201) if key in down else None

    first, _ = run(store, the_plan, FakeDriver(fail=link_down))
    session = store.get(first.session_id)
    assert (session.status_text, session.runs_done, session.runs_failed) == (
        "completed with failures",
        6,
        2,
    )
    failed_ids = {r.id for r in store.runs(first.session_id) if not r.ok}
    driver = FakeDriver()
    again, events = run(store, the_plan, driver, resume_session=first.session_id)
    assert set(driver.started) == down  # the failed runs, and nothing else
    assert isinstance(events[0], SessionStarted) and events[0].already_done == 4
    assert again.status is SessionStatus.COMPLETED and again.reason == ""
    assert (again.runs_done, again.runs_failed) == (6, 0)
    runs = store.runs(first.session_id)
    assert (
        len(runs) == 6
        and all(r.ok for r in runs)
        and {r.key for r in runs} == set(the_plan.run_keys())
    )
    session = store.get(first.session_id)
    assert (session.status_text, session.runs_done, session.runs_failed) == ("completed", 6, 0)
    assert session.runs_partial == 2  # the failed attempts, kept with their sentences
    kept = {r.id: r for r in store.runs(first.session_id, partial=True) if r.partial}
    assert set(kept) == failed_ids and all(r.error for r in kept.values())
    assert store.done_keys(first.session_id) == set(the_plan.run_keys())


def test_stop_ends_the_run_in_progress_and_keeps_the_finished(store: SessionStore) -> None:
    driver = FakeDriver(interval_s=0.05)  # 3 samples: a run lasts 0.15 s
    the_plan = plan(
        protocols=(Protocol.TCP,), ip_versions=(IpVersion.V4,), values=(1408,), repetitions=3
    )
    second_run = threading.Event()
    finished = 0

    def observe(event: StudyEvent) -> None:
        nonlocal finished
        finished += isinstance(event, RunFinished)
        if isinstance(event, SampleArrived) and finished == 1:
            second_run.set()

    runner = StudyRunner(store, the_plan, drivers={Engine.IPERF3: driver})
    outcome: list[object] = []
    said: list[StudyEvent] = []

    def read(event: StudyEvent) -> None:
        said.append(event)
        observe(event)

    thread = threading.Thread(target=lambda: outcome.append(drive(runner.events(), read)))
    thread.start()
    assert second_run.wait(5)
    runner.stop()
    thread.join(5)
    session = store.get(outcome[0].session_id)  # type: ignore[attr-defined]
    assert session.status is SessionStatus.STOPPED and session.runs_done == 1
    # The end says what Stop kept: the finished run, and the one it cut short with the
    # intervals the store keeps of it.
    (end,) = [e for e in said if isinstance(e, SessionFinished)]
    (cut,) = [r for r in store.runs(session.id, partial=True) if r.partial]
    assert end.runs_done == 1 and end.cut_short == (len(list(store.samples(cut.id))),)
    assert end.cut_short[0] >= 1


def test_rtt_runs_come_from_request_response(store: SessionStore) -> None:
    the_plan = plan(
        engine=Engine.NETPERF,
        protocols=(Protocol.TCP,),
        ip_versions=(IpVersion.V4,),
        metrics=(Metric.THROUGHPUT, Metric.RTT),
    )
    outcome, _ = run(store, the_plan, FakeDriver(Engine.NETPERF))
    runs = store.runs(outcome.session_id)
    assert {r.key.kind for r in runs} == {RunKind.STREAM, RunKind.RR}
    assert all(r.metrics.rtt_mean_ms for r in runs if r.key.kind is RunKind.RR)
