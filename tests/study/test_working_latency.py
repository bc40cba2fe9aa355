"""Working latency in the runner, with the fake engine driver and a prober that answers
itself: idle figures before each run and loaded ones during it, stored with the method; the
method said once; a peer that no method reaches still measures throughput; Stop during the
idle probes; plans with latency and their checks."""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import LATENCY_IDLE_S, Metric, Peer, Plan, RunKind
from app.domain.plan_codec import plan_from_dict, plan_from_json
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.engine.errors import NoLatencyMethod
from app.engine.latency.latency import MethodChoice
from app.engine.latency.probe import Prober
from app.engine.latency.probe_results import LatencyMethod
from app.store.sessions import SessionStore
from app.study.sweep.describe import reason_shown
from app.study.sweep.events import LatencyNote, LatencyProbed, RunStarted, StudyEvent
from app.study.sweep.outcomes import Outcome
from app.study.sweep.plan_checks import plan_problems
from app.study.sweep.runner import StudyRunner
from app.study.sweep.working_latency import WorkingLatency

IDLE_MS, LOADED_MS = 1.0, 20.0


class SelfAnsweringProber(Prober):
    """Answers every probe itself: IDLE_MS before a run (a prober with a duration), LOADED_MS
    during it."""

    def _send(self, seq: int) -> None:
        at = time.perf_counter_ns()
        rtt = IDLE_MS if self.duration_s is not None else LOADED_MS
        self._sent(seq, at)
        self._answered(seq, at + int(rtt * 1e6))


def make(choice: MethodChoice, **kw: Any) -> Prober:
    kw.pop("ip_version", None)
    return SelfAnsweringProber(choice.host, choice.port, interval_s=0.01, **kw)


def echo_choice(plan: Plan, ip_version: IpVersion) -> MethodChoice:
    host = plan.peer.host_for(ip_version)
    sentence = f"Latency measured with LinkLab's UDP echo on {host} port 5200."
    return MethodChoice(LatencyMethod.UDP_ECHO, host, 5200, "echo", sentence)


def latency_plan(**changes: object) -> Plan:
    base: dict[str, Any] = {
        "peer": Peer("lab-peer", host6="fd00::2"),
        "protocols": (Protocol.TCP,),
        "ip_versions": (IpVersion.V4, IpVersion.V6),
        "values": (1408,),
        "repetitions": 2,
        "duration_s": 3,
        "metrics": (Metric.THROUGHPUT, Metric.LATENCY),
    }
    return Plan(**{**base, **changes})


def runner(
    store: SessionStore,
    plan: Plan,
    events: list[StudyEvent],
    detect: Any = echo_choice,
    idle_s: float = 0.2,
    observer: Any = None,
) -> Runner:
    return Runner(
        StudyRunner(
            store,
            plan,
            drivers={plan.engine: FakeDriver(interval_s=0.1)},
            latency=lambda plan, said: WorkingLatency(
                plan, said, detect=detect, make=make, idle_s=idle_s
            ),
        ),
        observer or events.append,
    )


class Runner:
    """A study runner and what reads its events (the test's list, or its own observer)."""

    def __init__(self, runner: StudyRunner, each: Any) -> None:
        self.runner, self.each = runner, each

    def run(self) -> Outcome:
        return drive(self.runner.events(), self.each)

    def stop(self) -> None:
        self.runner.stop()


def test_every_run_has_idle_and_loaded_latency_and_its_method(store: SessionStore) -> None:
    events: list[StudyEvent] = []
    outcome = runner(store, latency_plan(), events).run()
    assert outcome.status is SessionStatus.COMPLETED
    runs = store.runs(outcome.session_id)
    assert len(runs) == 4
    for run in runs:
        m = run.metrics
        assert m.latency_method == "udp-echo"
        assert m.latency_idle_ms == pytest.approx(IDLE_MS, abs=0.5)
        assert m.latency_ms == pytest.approx(LOADED_MS, abs=0.5)
        assert m.latency_p90_ms == pytest.approx(LOADED_MS, abs=0.5)
        assert m.latency_loss_pct == 0.0
        assert m.throughput_bps  # the load itself is measured as ever
    # The method is said once per IP version, and kept with the session's outcome.
    notes = [e for e in events if isinstance(e, LatencyNote)]
    assert [n.method for n in notes] == ["udp-echo", "udp-echo"]
    assert "lab-peer" in notes[0].sentence and "fd00::2" in notes[1].sentence
    reason = store.get(outcome.session_id).status_reason
    assert notes[0].sentence in reason
    # The header shows the status without them (its details name the method).
    assert reason_shown(reason) == ""
    failed = "1 of 4 runs failed. The first failure: the peer did not answer."
    assert reason_shown(f"{failed} {reason}") == failed
    # Probes arrive live: idle ones before the engine starts, loaded ones after.
    probed = [e for e in events if isinstance(e, LatencyProbed)]
    idle = [t for e in probed if e.phase == "idle" for t in e.times_s]
    loaded = [t for e in probed if e.phase == "loaded" for t in e.times_s]
    assert idle and all(t < 0 for t in idle) and loaded and all(t > 0 for t in loaded)
    first_run = events.index(next(e for e in events if isinstance(e, RunStarted)))
    assert events.index(probed[0]) > first_run


def test_points_and_the_json_have_the_latency_statistics(store: SessionStore) -> None:
    from app.analysis.points import point_summaries

    outcome = runner(store, latency_plan(ip_versions=(IpVersion.V4,)), []).run()
    session = store.get(outcome.session_id)
    (point,) = point_summaries(session.plan, store.runs(outcome.session_id))
    data = point.as_dict()
    assert data["latency_ms"]["mean"] == pytest.approx(LOADED_MS, abs=0.5)  # type: ignore[index]
    assert data["latency_idle_ms"]["mean"] == pytest.approx(IDLE_MS, abs=0.5)  # type: ignore[index]
    assert data["latency_p90_ms"] is not None and data["latency_loss_pct"] is not None


def test_a_peer_no_method_reaches_still_measures_throughput(store: SessionStore) -> None:
    def nothing(plan: Plan, ip_version: IpVersion) -> MethodChoice:
        raise NoLatencyMethod(plan.peer.host, "no LinkLab responder answered on UDP port 5200")

    events: list[StudyEvent] = []
    outcome = runner(store, latency_plan(ip_versions=(IpVersion.V4,)), events, nothing).run()
    assert outcome.status is SessionStatus.COMPLETED
    runs = store.runs(outcome.session_id)
    assert all(r.ok and r.metrics.throughput_bps for r in runs)
    assert all(r.metrics.latency_ms is None and r.metrics.latency_method is None for r in runs)
    (note,) = [e for e in events if isinstance(e, LatencyNote)]
    assert note.method == ""
    assert note.sentence.startswith("Working latency is not measured over IPv4: ")


def test_stop_during_the_idle_probes_keeps_nothing_of_that_run(store: SessionStore) -> None:
    events: list[StudyEvent] = []

    def stop_at_idle(event: StudyEvent) -> None:
        events.append(event)
        if isinstance(event, LatencyProbed):
            the_runner.stop()

    plan = latency_plan(ip_versions=(IpVersion.V4,))
    the_runner = runner(store, plan, events, idle_s=30.0, observer=stop_at_idle)
    started = time.monotonic()
    outcome = the_runner.run()
    assert time.monotonic() - started < 15  # not the 30 s of idle probes
    assert outcome.status is SessionStatus.STOPPED
    assert store.runs(outcome.session_id, partial=True) == []


def test_plans_with_latency_run_stream_tests_and_old_plans_load() -> None:
    only = latency_plan(metrics=(Metric.LATENCY,))
    assert only.kinds == [RunKind.STREAM] and only.total_runs == 4
    # The idle probes are in the estimate.
    plain = latency_plan(metrics=(Metric.THROUGHPUT,))
    extra = only.estimated_seconds() - plain.estimated_seconds()
    assert extra == pytest.approx(LATENCY_IDLE_S * 4)
    # A plan stored before working latency (no echo port, no latency metric) still loads.
    old = {"peer": {"host": "10.0.0.5", "iperf3_port": 5201}, "metrics": ["throughput"]}
    assert plan_from_dict(old).peer.echo_port == 5200
    assert plan_from_json(latency_plan().to_json()) == latency_plan()


def test_latency_is_refused_with_concurrent_series_and_a_bad_echo_port() -> None:
    plan = latency_plan(protocols=(Protocol.TCP, Protocol.UDP), concurrent=True)
    problems = dict(plan_problems(plan))
    assert problems["concurrent"].startswith("Working latency is measured one run at a time")
    bad = latency_plan(peer=Peer("lab-peer", echo_port=0))
    assert "echo_port" in dict(plan_problems(bad))
