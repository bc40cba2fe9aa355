"""The responsiveness test: its result arithmetic on made-up steps, and real runs against this
computer's own iperf3 server and latency responder (short phases)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from app.analysis.responsiveness import Rating
from app.analysis.saturation import Confidence
from app.domain.errors import BadOption
from app.domain.net import Flow
from app.domain.plan import Peer
from app.domain.results import Sample
from app.domain.stream import drive
from app.engine.drivers.registry import find_tool
from app.engine.errors import ClosedBeforeStart, ServerBusy, StoppedByUser
from app.engine.latency.latency import MethodChoice
from app.engine.latency.probe_results import LatencyMethod, ProbeRecord
from app.engine.serving.loopback import LoopbackServers
from app.study.responsiveness.results import (
    IdleMeasured,
    Phase,
    PhaseFinished,
    PhaseStarted,
    ResponsivenessEvent,
    ResponsivenessSettings,
    StepMeasured,
    TestStarted,
)
from app.study.responsiveness.run import (
    ResponsivenessTest,
    _StepRun,
    busy_closed,
    knocked_closed,
    load_result,
    step_figures,
)
from tests.conftest import engine_children, require_engine


def _run(rtts: list[float | None], bps: float, both: bool = False) -> _StepRun:
    records = tuple(ProbeRecord(i, i * 0.01, rtt) for i, rtt in enumerate(rtts))
    samples = [Sample(t * 0.5, t * 0.5 + 0.5, Flow.UP, bps) for t in range(1, 4)]
    if both:
        samples += [Sample(t * 0.5, t * 0.5 + 0.5, Flow.DOWN, bps) for t in range(1, 4)]
    return _StepRun(samples, records)


def test_a_step_adds_up_its_flows_and_trims_its_probes() -> None:
    step = step_figures(2, _run([10.0] * 19 + [1000.0, None], 40e6, both=True))
    assert step.goodput_bps == pytest.approx(80e6)  # up and down at once
    assert step.latency_ms == pytest.approx(10.0)  # the slowest 5 % trimmed
    assert (step.answered, step.lost) == (20, 1)


def test_a_full_deep_queue_rates_poor_with_high_confidence() -> None:
    runs = [_run([50.0] * 100, 5e6)] + [_run([480.0 + i % 7 for i in range(100)], 9.5e6)] * 3
    steps = [step_figures(n, run) for n, run in enumerate(runs, 1)]
    result = load_result(Phase.UPLOAD, steps, runs)
    assert result.loaded_latency_ms == pytest.approx(482.9, abs=0.5)
    assert result.rpm == pytest.approx(60_000 / result.loaded_latency_ms)
    assert result.rating is Rating.POOR
    assert result.confidence is Confidence.HIGH and result.stable
    assert result.goodput_bps == pytest.approx(9.5e6)
    assert result.flows == 4 and result.answered == 300


def test_a_ramp_cut_short_is_low_confidence_and_no_reply_is_poor() -> None:
    runs = [_run([None] * 20, 1e6 * n) for n in (1, 2, 3)]
    steps = [step_figures(n, run) for n, run in enumerate(runs, 1)]
    result = load_result(Phase.DOWNLOAD, steps, runs)
    assert result.loaded_latency_ms is None and result.rpm is None
    assert result.rating is Rating.POOR and result.confidence is Confidence.LOW
    assert result.lost == 60


def test_a_step_closed_by_the_connection_probes_own_knock_is_tried_again() -> None:
    """Only a test closed before it started, on the very port the connection-time probes
    knock on, is put down to them; a real closed port elsewhere still ends the test."""
    closed = ClosedBeforeStart("127.0.0.1", 5201, "iperf3 server", "iperf3")
    knocking = MethodChoice(LatencyMethod.TCP_CONNECT, "127.0.0.1", 5201, "iperf3", "by TCP")
    echo = MethodChoice(LatencyMethod.UDP_ECHO, "127.0.0.1", 5200, "echo", "by the echo")
    assert knocked_closed(closed, knocking, 5201)
    assert not knocked_closed(closed, knocking, 5202)  # the probes knock elsewhere
    assert not knocked_closed(closed, echo, 5201)  # UDP probes never reach the iperf3 port
    busy = ServerBusy("127.0.0.1", 5201, "iperf3 server", "iperf3 -s")
    assert not knocked_closed(busy, knocking, 5201)  # retried as transient anyway


def test_a_step_closed_by_a_server_that_ran_a_step_before_is_tried_again() -> None:
    """A server that ran a step closes a test before it starts as it reopens its port
    (tests/engine/test_failures.py); one that never ran a step may be no iperf3 server."""
    closed = ClosedBeforeStart("127.0.0.1", 5201, "iperf3 server", "iperf3")
    assert busy_closed(closed, answered=True)
    assert not busy_closed(closed, answered=False)
    busy = ServerBusy("127.0.0.1", 5201, "iperf3 server", "iperf3 -s")
    assert not busy_closed(busy, answered=True)  # retried as transient anyway


def test_settings_refuse_what_cannot_run() -> None:
    assert ResponsivenessSettings(phase_s=6, step_s=2).most_steps == 3
    assert ResponsivenessSettings(both=False).phases == (Phase.IDLE, Phase.DOWNLOAD, Phase.UPLOAD)
    for bad in ({"max_flows": 0}, {"phase_s": 1, "step_s": 2}, {"idle_s": 0.1}):
        with pytest.raises(BadOption):
            ResponsivenessSettings(**bad)  # type: ignore[arg-type]


@pytest.fixture
def loopback() -> Iterator[LoopbackServers]:
    require_engine("iperf3")  # the test measures with real iperf3 on the loopback
    servers = LoopbackServers()
    yield servers
    servers.stop()
    assert not engine_children(), "an engine outlived the test"


SHORT = ResponsivenessSettings(max_flows=4, phase_s=4, step_s=2, idle_s=1.0)
#: Download and upload only (the window's test and the CLI's cover both at once).
TWO_WAYS = ResponsivenessSettings(max_flows=4, phase_s=4, step_s=2, idle_s=1.0, both=False)


@pytest.mark.slow
def test_against_this_computer(loopback: LoopbackServers) -> None:
    events: list[ResponsivenessEvent] = []
    test = ResponsivenessTest(Peer.this_computer(), TWO_WAYS, loopback=loopback)
    result = drive(test.events(), events.append)
    data = result.to_dict()
    assert data["both"] is None
    for key in ("download", "upload"):
        load = result.load(Phase(key))
        assert load is not None and load.loaded_latency_ms is not None
        assert load.goodput_bps is not None and load.goodput_bps > 100e6
        assert data["rpm"][key] == round(60_000 / load.loaded_latency_ms)
        assert data["rating"][key] in [r.value for r in Rating]
        assert load.flows == 2 and len(load.steps) == 2  # 4 s of 2-s steps
    # A loopback round trip, in milliseconds: tens of microseconds of wire, the rest what the
    # computer's scheduler adds (a few ms beside a busy core, more under heavier load). Read in
    # the wrong unit (seconds as ms, or µs) it would be 1000 times off either way.
    assert 0 < data["idle_latency_ms"] < 100
    assert data["method"] == "udp-echo"
    kinds = [type(e) for e in events]
    assert kinds[0] is TestStarted and kinds.count(PhaseStarted) == 3
    assert kinds.count(IdleMeasured) == 1 and kinds.count(PhaseFinished) == 2
    assert kinds.count(StepMeasured) == 4
    fractions = [e.fraction for e in events if hasattr(e, "fraction")]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


@pytest.mark.slow
def test_stop_ends_the_test_within_a_second(loopback: LoopbackServers) -> None:
    started = threading.Event()

    def observe(event: ResponsivenessEvent) -> None:
        if isinstance(event, PhaseStarted) and event.phase is Phase.DOWNLOAD:
            started.set()

    test = ResponsivenessTest(Peer.this_computer(), SHORT, loopback=loopback)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            drive(test.events(), observe)
        except StoppedByUser as err:
            outcome.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    assert started.wait(20)
    deadline = time.monotonic() + 20
    while not engine_children(clients_only=True):  # the first step's iperf3 client runs
        assert time.monotonic() < deadline, "no iperf3 client started"
        time.sleep(0.02)
    asked = time.monotonic()
    test.stop()
    thread.join(10)
    # Ended mid-step: the rest of the test (ramp, three phases) would take tens of seconds.
    assert not thread.is_alive() and time.monotonic() - asked < 8
    assert len(outcome) == 1


@pytest.mark.slow
def test_an_iperf3_without_bidir_leaves_out_both_at_once_saying_why(
    loopback: LoopbackServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from app.engine.drivers.iperf3.driver import Iperf3Driver
    from app.engine.process.tools import Capability, Tool

    real = find_tool("iperf3")
    old = dataclasses.replace(real, capabilities=real.capabilities - {Capability.BIDIR})

    class Older(Iperf3Driver):
        def tool(self) -> Tool:
            return old

    brief = ResponsivenessSettings(max_flows=1, phase_s=1, step_s=1, idle_s=0.5)
    result = ResponsivenessTest(
        Peer.this_computer(), brief, loopback=loopback, driver=Older()
    ).run()
    assert [load.phase for load in result.loads] == [Phase.DOWNLOAD, Phase.UPLOAD]
    assert "cannot load both directions at once (that needs iperf3 3.7 or newer)" in result.notes[0]
    assert result.to_dict()["both"] is None
