"""Working latency of a study's runs: how latency to the peer is measured (chosen once per IP
version: LinkLab's echo, else a fallback, said in a sentence), idle probes before each run and
loaded probes during it on a flow of their own, and the run metrics they give."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.analysis.latency_seconds import SecondBins
from app.domain.errors import LinkLabError
from app.domain.net import IpVersion
from app.domain.plan import LATENCY_IDLE_S, Engine, Metric, Plan, RunKey, RunKind
from app.domain.results import LatencySecond
from app.engine.drivers.registry import DRIVERS, peer_servers
from app.engine.latency.latency import MethodChoice, detect_method, make_prober
from app.engine.latency.probe import Prober
from app.engine.latency.probe_results import LatencyMethod, ProbeRecord, ProbeSummary

#: When the engine reports no live intervals (netperf without demo mode, iperf3 before
#: 3.1.5), the loaded probes start this long after the engine, unless they would knock on the
#: engine's own server port (then a test starting might be disturbed: they wait for a sample).
LOADED_START_S = 1.5
FLUSH_S = 0.2  # live probes are handed on in batches, about five a second


class Phase(StrEnum):
    IDLE = "idle"  # before the run, nothing else on the link
    LOADED = "loaded"  # while the engine runs


@dataclass(frozen=True)
class LatencyFigures:
    """What one run's probes found, as run metrics."""

    method: LatencyMethod
    idle: ProbeSummary | None
    loaded: ProbeSummary | None

    def metric_fields(self) -> dict[str, Any]:
        """The RunMetrics fields: median idle and loaded round trips, loaded p90 and loss."""
        loaded = self.loaded
        return {
            "latency_idle_ms": self.idle.median_ms if self.idle is not None else None,
            "latency_ms": loaded.median_ms if loaded is not None else None,
            "latency_p90_ms": loaded.p90_ms if loaded is not None else None,
            "latency_loss_pct": loaded.loss_pct if loaded is not None else None,
            "latency_method": self.method.value,
        }


#: (phase, [(seconds since the engine started (idle probes: before it, negative), RTT ms or
#: None when lost)]) from whichever thread the probes came in.
ProbesCallback = Callable[[Phase, list[tuple[float, float | None]]], None]
#: Told the seconds of loaded probes as each completes (from whichever thread).
SecondsCallback = Callable[[list[LatencySecond]], None]
Detect = Callable[[Plan, IpVersion], MethodChoice]
#: Told the method chosen (None: none answers) and the sentence that says so.
ChoiceCallback = Callable[[MethodChoice | None, str], None]
MakeProber = Callable[..., Prober]


def detect_for_plan(plan: Plan, ip_version: IpVersion) -> MethodChoice:
    """LinkLab's echo on the peer's echo port, else a TCP handshake with an engine's server:
    netserver, else the iperf3 server, … (app.engine.latency.latency.detect_method)."""
    peer = plan.peer
    return detect_method(
        peer.host_for(ip_version), peer.echo_port, peer_servers(peer), ip_version=ip_version
    )


def engine_server(engine: Engine) -> str:
    """The name of the engine's server, as a latency method names the server it probes."""
    return DRIVERS[engine].port_label


class LoadedSeconds:
    """A run's loaded probes per second (SecondBins) from whichever thread they come in:
    each second, once complete, is handed on and kept until the run's writer takes it."""

    def __init__(self, on_seconds: SecondsCallback | None = None) -> None:
        self._on_seconds = on_seconds
        self._lock = threading.Lock()
        self._bins = SecondBins()
        self._pending: list[LatencySecond] = []

    def add(self, probes: list[tuple[float, float | None]]) -> None:
        with self._lock:
            done = self._bins.add([t for t, _ in probes], [rtt for _, rtt in probes])
            self._pending += done
        self._hand_on(done)

    def close(self) -> None:
        """The run's probes are over: the second being gathered is complete."""
        with self._lock:
            done = self._bins.close()
            self._pending += done
        self._hand_on(done)

    def take(self) -> list[LatencySecond]:
        """The seconds completed since the last take."""
        with self._lock:
            taken, self._pending = self._pending, []
        return taken

    def _hand_on(self, done: list[LatencySecond]) -> None:
        if done and self._on_seconds is not None:
            self._on_seconds(done)


class RunProbes:
    """One run's probes: idle() before the engine starts, then started() as it starts, and
    loaded() at its first interval (or a little after it started); figures() ends them.
    cancel() may be called from any thread."""

    def __init__(
        self,
        choice: MethodChoice,
        ip_version: IpVersion,
        engine: Engine,
        on_probes: ProbesCallback,
        *,
        idle_s: float = LATENCY_IDLE_S,
        make: MakeProber = make_prober,
        on_seconds: SecondsCallback | None = None,
    ) -> None:
        self.choice = choice
        #: The loaded probes per second of the run, complete when figures() ends them.
        self.seconds = LoadedSeconds(on_seconds)
        self.ip_version = ip_version
        self._idle_s = idle_s
        self._make = make
        self._on_probes = on_probes
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._idle: ProbeSummary | None = None
        self._loaded: Prober | None = None
        self._loaded_at = 0.0  # perf_counter when the loaded prober started
        self._engine_at: float | None = None
        self._timer: threading.Timer | None = None
        # Probes not yet handed on, each with its phase: a late idle probe (its prober's last
        # answer) is never handed on as a loaded one.
        self._pending: list[tuple[Phase, float, float | None]] = []
        self._flushed_at = 0.0
        self._flushing = threading.Lock()
        # Probes that knock on the engine's own server wait for the engine's first interval.
        self._early_ok = not (
            choice.method is LatencyMethod.TCP_CONNECT and choice.server == engine_server(engine)
        )
        self.problem = ""  # a sentence when the probes failed (the run itself goes on)

    # -- idle ----------------------------------------------------------------------------------
    def idle(self) -> Generator[None, None, bool]:
        """Probe for the idle seconds, yielding every twentieth of a second meanwhile (the
        runner passes on the probes said so far); False when cancelled meanwhile (the run is
        stopping)."""
        prober = self._prober(Phase.IDLE, offset=-self._idle_s, duration_s=self._idle_s)
        try:
            prober.start()
        except LinkLabError as err:
            self.problem = err.sentence
            return not self._cancelled.is_set()
        while not prober.wait(0.05):
            if self._cancelled.is_set():
                prober.stop()
                return False
            yield
        self._flush(force=True)
        if prober.error is not None:
            self.problem = prober.error.sentence
        else:
            self._idle = prober.summary()
        return not self._cancelled.is_set()

    # -- loaded --------------------------------------------------------------------------------
    def started(self) -> None:
        """The engine starts now; without live intervals the loaded probes start a little
        later, where they cannot disturb the engine's start."""
        with self._lock:
            self._engine_at = time.perf_counter()
            if self._early_ok:
                self._timer = threading.Timer(LOADED_START_S, self.loaded)
                self._timer.daemon = True
                self._timer.start()

    def loaded(self) -> None:
        """Start the loaded probes (once; later calls do nothing)."""
        with self._lock:
            if self._loaded is not None or self._cancelled.is_set() or self._engine_at is None:
                return
            now = time.perf_counter()
            prober = self._prober(Phase.LOADED, offset=now - self._engine_at)
            self._loaded, self._loaded_at = prober, now
        try:
            prober.start()
        except LinkLabError as err:
            self.problem = err.sentence

    def figures(self) -> LatencyFigures:
        """End the probes and say what they found."""
        self._end()
        loaded = self._loaded
        summary = None
        if loaded is not None:
            if loaded.error is not None:
                self.problem = loaded.error.sentence
            else:
                found = loaded.summary()
                summary = found if found.received + found.lost else None
        self._flush(force=True)
        self.seconds.close()
        return LatencyFigures(self.choice.method, self._idle, summary)

    def cancel(self) -> None:
        """Stop probing now (the run is being stopped)."""
        self._cancelled.set()
        with self._lock:
            timer, loaded = self._timer, self._loaded
        if timer is not None:
            timer.cancel()
        if loaded is not None:
            loaded.request_stop()

    def close(self) -> None:
        """End the probes (idempotent), whatever became of the run."""
        self._end()

    def _end(self) -> None:
        with self._lock:
            timer, loaded = self._timer, self._loaded
        if timer is not None:
            timer.cancel()
        if loaded is not None:
            loaded.stop()

    # -- probes as they come -------------------------------------------------------------------
    def _prober(self, phase: Phase, offset: float, duration_s: float | None = None) -> Prober:
        def on_record(record: ProbeRecord) -> None:
            with self._lock:
                self._pending.append((phase, offset + record.sent_s, record.rtt_ms))
            self._flush()

        return self._make(
            self.choice, duration_s=duration_s, on_record=on_record, ip_version=self.ip_version
        )

    def _flush(self, force: bool = False) -> None:
        # One flush at a time: two probers' threads never hand their batches on out of order.
        with self._flushing:
            now = time.monotonic()
            with self._lock:
                if not self._pending or (not force and now - self._flushed_at < FLUSH_S):
                    return
                batch, self._pending = self._pending, []
                self._flushed_at = now
            for phase in Phase:
                times = sorted((t, rtt) for p, t, rtt in batch if p is phase)
                if times:
                    self._on_probes(phase, times)
                    if phase is Phase.LOADED:
                        self.seconds.add(times)


class WorkingLatency:
    """A study's working latency: the method chosen once per IP version (said once), and the
    probes of each stream run."""

    def __init__(
        self,
        plan: Plan,
        on_choice: ChoiceCallback,
        *,
        detect: Detect = detect_for_plan,
        make: MakeProber = make_prober,
        idle_s: float = LATENCY_IDLE_S,
    ) -> None:
        self.plan = plan
        self._on_choice = on_choice
        self._detect = detect
        self._make = make
        self._idle_s = idle_s
        self._choices: dict[IpVersion, MethodChoice | None] = {}

    @staticmethod
    def wanted(plan: Plan) -> bool:
        return Metric.LATENCY in plan.metrics

    def choice(self, ip_version: IpVersion) -> MethodChoice | None:
        """How latency is measured over this IP version (None when no method answers; the
        sentence why is said once, and the runs go on without latency)."""
        if ip_version not in self._choices:
            try:
                choice: MethodChoice | None = self._detect(self.plan, ip_version)
            except LinkLabError as err:
                choice = None
                sentence = f"Working latency is not measured over IPv{int(ip_version)}: "
                sentence += err.sentence
            else:
                assert choice is not None
                sentence = choice.sentence
            self._choices[ip_version] = choice
            self._on_choice(choice, sentence)
        return self._choices[ip_version]

    def probes(
        self,
        key: RunKey,
        on_probes: ProbesCallback,
        on_seconds: SecondsCallback | None = None,
    ) -> RunProbes | None:
        """The probes of one run (stream runs only: request/response runs are no load);
        on_seconds is told each second of its loaded probes as it completes."""
        if key.kind is not RunKind.STREAM:
            return None
        choice = self.choice(key.ip_version)
        if choice is None:
            return None
        return RunProbes(
            choice,
            key.ip_version,
            self.plan.engine,
            on_probes,
            idle_s=self._idle_s,
            make=self._make,
            on_seconds=on_seconds,
        )
