"""The responsiveness test against a peer: idle latency, then download, upload and both at
once, each loaded by a ramp of parallel TCP flows (real iperf3) while the prober measures the
working latency; the result per direction is its RPM and rating (draft-ietf-ippm-
responsiveness).

The load is one iperf3 client whose -P grows: an iperf3 server serves one client at a time,
so a peer running one server (`linklab serve`, `iperf3 -s`) can be loaded with up to 16 flows.
Each step of the ramp runs that client for a few seconds with one more stream than the last.
A fresh prober measures each step once the step's first interval has arrived (a connection
probe that lands while an iperf3 test is connecting can spoil that test), and stops before the
next step starts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace

from app.analysis.responsiveness import Rating, rating, rpm
from app.analysis.saturation import STABLE_STEPS, confidence, next_flows, stability
from app.domain.errors import LinkLabError
from app.domain.net import Direction, Flow, Protocol
from app.domain.plan import Peer
from app.domain.results import Sample
from app.domain.stream import drive
from app.engine.drivers.options import SingleRun
from app.engine.drivers.registry import EngineDriver, RunHandle, peer_servers, responsiveness_driver
from app.engine.errors import ClosedBeforeStart, EngineError, StoppedByUser
from app.engine.lan.peercheck import check_peer
from app.engine.latency.echo import DEFAULT_ECHO_PORT, EchoResponder
from app.engine.latency.latency import MethodChoice, detect_method, make_prober
from app.engine.latency.probe import Prober
from app.engine.latency.probe_results import LatencyMethod, ProbeRecord, trimmed_mean
from app.engine.process.tools import Capability
from app.engine.serving.loopback import LoopbackServers
from app.study.responsiveness.results import (
    IdleMeasured,
    LoadResult,
    Phase,
    PhaseFinished,
    PhaseStarted,
    ResponsivenessEvent,
    ResponsivenessResult,
    ResponsivenessSettings,
    Step,
    StepMeasured,
    TestStarted,
    idle_above_loaded,
)

#: A test's progress as it measures, and its result once read to the end.
Events = Generator[ResponsivenessEvent, None, ResponsivenessResult]
DIRECTION = {
    Phase.DOWNLOAD: Direction.DOWN,
    Phase.UPLOAD: Direction.UP,
    Phase.BOTH: Direction.BIDIR,
}
#: An iperf3 server closes its listening socket after each test and opens a new one: a step
#: starting meanwhile is refused, or answered "busy", and retries. One whose connection the
#: kernel took into the old socket's queue is reset, and reads as closed before the test (more
#: often on a busy computer, where the server takes longer over it): once a step of this test
#: has run against that server, it is an iperf3 server, and such a close is tried again too.
BUSY_TRIES = 8
BUSY_PAUSE_S = 0.4


def knocked_closed(err: LinkLabError, choice: MethodChoice, port: int) -> bool:
    """Whether a step's test may have been closed by the latency probes themselves: probes by
    TCP connection time knock on the very server the steps test against, and one that lands
    as the server reopens its port after the last step can close the next test's connection
    before it starts (app.engine.latency.latency.TcpConnectProber). Such a step is tried again."""
    return (
        isinstance(err, ClosedBeforeStart)
        and choice.method is LatencyMethod.TCP_CONNECT
        and choice.port == port
    )


def busy_closed(err: LinkLabError, answered: bool) -> bool:
    """Whether a step's test closed before it started met a server that ran an earlier step
    of this test reopening its port (BUSY_TRIES). Such a step is tried again."""
    return isinstance(err, ClosedBeforeStart) and answered


@dataclass
class _StepRun:
    """What one step collected: interval samples after the warm-up, and its probes."""

    samples: list[Sample] = field(default_factory=list)
    records: tuple[ProbeRecord, ...] = ()
    received_bps: float | None = None  # the receivers' own totals, every flow added up

    def goodput_bps(self) -> float | None:
        """What the receivers counted, every flow added up; else the interval reports (an
        upload's come from the sender, which counts what is still queued as sent)."""
        if self.received_bps is not None:
            return self.received_bps
        if not self.samples:
            return None
        bits = sum(
            (s.goodput_bps(Protocol.TCP) or 0.0) * (s.end_s - s.start_s) for s in self.samples
        )
        spans = {(s.start_s, s.end_s) for s in self.samples}
        seconds = sum(end - start for start, end in spans)
        return bits / seconds if seconds > 0 else None


def step_figures(flows: int, run: _StepRun, start_s: float = 0.0, end_s: float = 0.0) -> Step:
    rtts = [r.rtt_ms for r in run.records if r.rtt_ms is not None]
    lost = sum(1 for r in run.records if r.rtt_ms is None)
    return Step(
        flows, run.goodput_bps(), trimmed_mean(rtts), len(rtts), lost, start_s, end_s, tuple(rtts)
    )


def load_result(phase: Phase, steps: Sequence[Step], runs: Sequence[_StepRun]) -> LoadResult:
    """The phase's result from its last STABLE_STEPS steps (all of them when fewer)."""
    verdict = stability([s.goodput_bps for s in steps], [s.latency_ms for s in steps])
    window = list(runs[-STABLE_STEPS:])
    rtts = [r.rtt_ms for run in window for r in run.records if r.rtt_ms is not None]
    lost = sum(1 for run in window for r in run.records if r.rtt_ms is None)
    working = trimmed_mean(rtts)
    goodputs = [g for s in steps[-STABLE_STEPS:] if (g := s.goodput_bps) is not None]
    value = rpm(working) if working else None
    return LoadResult(
        phase=phase,
        loaded_latency_ms=working,
        rpm=value,
        rating=rating(value) if value is not None else Rating.POOR,
        confidence=confidence(verdict, len(rtts)),
        goodput_bps=sum(goodputs) / len(goodputs) if goodputs else None,
        flows=steps[-1].flows,
        answered=len(rtts),
        lost=lost,
        stable=verdict.stable,
        steps=tuple(steps),
    )


class ResponsivenessTest:
    """One test: events() measures as it is read (in one thread), yields its progress and
    returns the result; stop() (from any thread) ends it within about a second, events() then
    raising StoppedByUser.

    For this computer (peer.is_this_computer) it uses `loopback`'s iperf3 server and starts
    a latency responder of its own on the loopback for the test's length."""

    def __init__(
        self,
        peer: Peer,
        settings: ResponsivenessSettings | None = None,
        *,
        echo_port: int = DEFAULT_ECHO_PORT,
        loopback: LoopbackServers | None = None,
        driver: EngineDriver | None = None,
    ) -> None:
        # The load is iperf3's (its parallel streams and both directions at once).
        self._driver = driver or responsiveness_driver()
        self.peer = peer
        self.settings = settings or ResponsivenessSettings()
        self._echo_port = echo_port
        self._loopback = loopback
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._engine_run: RunHandle | None = None
        self._prober: Prober | None = None
        self._started = 0.0
        self._answered = False  # a step of this test has run against the server
        self._settings = self.settings  # as run: less a phase the installed iperf3 cannot do

    # -- control ---------------------------------------------------------------------------
    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            engine_run, prober = self._engine_run, self._prober
        if engine_run is not None:
            engine_run.cancel()
        if prober is not None:
            prober.stop()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def _check_stop(self) -> None:
        if self._stopping.is_set():
            raise StoppedByUser()

    # -- the test --------------------------------------------------------------------------
    def run(self) -> ResponsivenessResult:
        """The whole test for a caller that wants only its result (its progress unread)."""
        return drive(self.events())

    def events(self) -> Events:
        self._started = time.monotonic()
        tool = self._driver.tool()
        notes: list[str] = []
        settings = self.settings
        if settings.both and not tool.has(Capability.BIDIR):
            notes.append(
                f"{self._driver.label} {tool.version_string} cannot load both directions at "
                f"once (that needs {self._driver.phrases['bidir']}): that phase was left out."
            )
            settings = replace(settings, both=False)
        self._settings = settings
        echo: EchoResponder | None = None
        try:
            host, port, echo, choice = self._prepare()
            yield TestStarted(host, choice.method, choice.sentence, settings.phases)
            idle_ms, idle_answered = yield from self._idle(choice)
            loads = []
            for phase in settings.phases[1:]:
                loads.append((yield from self._load(host, port, choice, phase)))
        finally:
            self._set(None, None)
            if echo is not None:
                echo.stop()
        return ResponsivenessResult(
            host=self.peer.name or host,
            method=choice.method,
            method_sentence=choice.sentence,
            idle_latency_ms=idle_ms,
            idle_answered=idle_answered,
            loads=tuple(loads),
            elapsed_s=time.monotonic() - self._started,
            notes=tuple(notes) + tuple(filter(None, [idle_above_loaded(idle_ms, loads)])),
        )

    def _prepare(self) -> tuple[str, int, EchoResponder | None, MethodChoice]:
        """The host and iperf3 port to load, a responder of our own for this computer, and
        how latency is measured."""
        peer = self.peer
        if peer.is_this_computer:
            loopback = self._loopback if self._loopback is not None else LoopbackServers()
            self._loopback = loopback
            port = loopback.ensure(self._driver.engine, self._driver.peer_port(peer))
            echo = EchoResponder(0, [peer.host])
            echo.start()
            try:
                choice = detect_method(peer.host, echo.port)
            except BaseException:
                echo.stop()
                raise
            return peer.host, port, echo, choice
        servers = peer_servers(peer)
        check = check_peer(
            peer.host,
            [self._driver.peer_server(peer)],
            timeout=3.0,
            spare_ports=[server.port for server in servers],
        )
        if problem := check.blocking_problem():
            raise EngineError(problem)
        self._check_stop()
        choice = detect_method(peer.host, self._echo_port, servers)
        return peer.host, self._driver.peer_port(peer), None, choice

    def _fraction(self, index: int, phase_elapsed: float, phase_length: float) -> float:
        count = len(self._settings.phases)
        within = min(1.0, phase_elapsed / phase_length) if phase_length > 0 else 1.0
        return min(1.0, (index + within) / count)

    def _set(self, engine_run: RunHandle | None, prober: Prober | None) -> None:
        with self._lock:
            self._engine_run, self._prober = engine_run, prober
        if self._stopping.is_set():
            if engine_run is not None:
                engine_run.cancel()
            if prober is not None:
                prober.stop()

    def _idle(
        self, choice: MethodChoice
    ) -> Generator[ResponsivenessEvent, None, tuple[float, int]]:
        settings = self._settings
        yield PhaseStarted(Phase.IDLE, 0, len(settings.phases), 0.0)
        prober = make_prober(choice, duration_s=settings.idle_s)
        self._set(None, prober)
        prober.start()
        try:
            while not prober.wait(0.1):
                self._check_stop()
        finally:
            prober.stop()
            self._set(None, None)
        self._check_stop()
        if prober.error is not None:
            raise prober.error
        rtts = [r.rtt_ms for r in prober.records() if r.rtt_ms is not None]
        idle = trimmed_mean(rtts)
        if idle is None:
            raise EngineError(
                f"No latency probe to {choice.host} came back while the link was idle: check "
                f"that nothing between blocks port {choice.port}, then test again."
            )
        yield IdleMeasured(idle, len(rtts), self._fraction(1, 0, 1))
        return idle, len(rtts)

    def _load(
        self, host: str, port: int, choice: MethodChoice, phase: Phase
    ) -> Generator[ResponsivenessEvent, None, LoadResult]:
        settings = self._settings
        index = settings.phases.index(phase)
        yield PhaseStarted(phase, index, len(settings.phases), self._fraction(index, 0, 1))
        began = time.monotonic()
        steps: list[Step] = []
        runs: list[_StepRun] = []
        flows = 1
        while True:
            start_s = time.monotonic() - self._started
            run = self._step(host, port, choice, phase, flows)
            runs.append(run)
            steps.append(step_figures(flows, run, start_s, time.monotonic() - self._started))
            verdict = stability([s.goodput_bps for s in steps], [s.latency_ms for s in steps])
            elapsed = time.monotonic() - began
            yield StepMeasured(
                phase,
                steps[-1],
                verdict.goodput,
                verdict.latency,
                self._fraction(index, elapsed, settings.phase_s),
            )
            if verdict.stable or len(steps) >= settings.most_steps:
                break
            flows = next_flows(flows, settings.max_flows)
        result = load_result(phase, steps, runs)
        yield PhaseFinished(result, self._fraction(index + 1, 0, 1))
        return result

    def _step(
        self, host: str, port: int, choice: MethodChoice, phase: Phase, flows: int
    ) -> _StepRun:
        """One client run with `flows` streams for step_s seconds, probed after warm-up."""
        settings = self._settings
        options = SingleRun(
            host=host,
            port=port,
            duration_s=settings.step_s,
            interval_s=settings.interval_s,
            parallel=flows,
            direction=DIRECTION[phase],
            connect_timeout_ms=self._driver.connect_timeout_ms,
        )
        for attempt in range(1, BUSY_TRIES + 1):
            self._check_stop()
            collected = _StepRun()
            try:
                self._measure_step(options, choice, collected)
            except LinkLabError as err:
                again = (
                    err.transient
                    or knocked_closed(err, choice, port)
                    or busy_closed(err, self._answered)
                )
                retry = again and not collected.samples and attempt < BUSY_TRIES
                if isinstance(err, StoppedByUser) or self.stopping or not retry:
                    if self.stopping:
                        raise StoppedByUser() from err
                    raise
                time.sleep(BUSY_PAUSE_S)  # the server is still closing the previous step
                continue
            self._answered = True
            return collected
        raise AssertionError("unreachable")

    def _measure_step(self, options: SingleRun, choice: MethodChoice, collected: _StepRun) -> None:
        settings = self._settings
        engine_run = self._driver.single_run(options)
        self._set(engine_run, None)
        prober: Prober | None = None
        try:
            for event in engine_run.events():
                if not isinstance(event, Sample) or event.omitted:
                    continue
                if prober is None and event.end_s >= settings.warmup_s - 1e-6:
                    prober = make_prober(choice)
                    self._set(engine_run, prober)
                    prober.start()
                if event.start_s >= settings.warmup_s - 1e-6 and event.flow in (Flow.UP, Flow.DOWN):
                    collected.samples.append(event)
        finally:
            if prober is not None:
                prober.stop()
                collected.records = prober.records()
            self._set(None, None)
        if engine_run.result is not None:
            received = [f.receiver_bps for f in engine_run.result.summary.flows]
            if received and all(bps is not None for bps in received):
                collected.received_bps = sum(bps for bps in received if bps is not None)
        if prober is not None and prober.error is not None:
            raise prober.error
