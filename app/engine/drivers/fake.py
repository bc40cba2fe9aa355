"""A deterministic stand-in for an engine: synthetic samples and results, failures on demand,
no process. It lets the runner, the store, the window and the comparison be tested in
milliseconds; the real engines are tested by their own tests."""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterator

from app.domain.errors import LinkLabError
from app.domain.net import Flow, Protocol
from app.domain.plan import DEFAULT_ENGINE, Engine, Plan, RunKey, RunKind
from app.domain.results import EngineMessage, FlowSummary, RunResult, RunSummary, Sample
from app.domain.run_settings import run_settings
from app.engine.drivers.options import SingleRun
from app.engine.drivers.registry import DRIVERS, EngineDriver, RunHandle
from app.engine.errors import StoppedByUser
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions

#: (run key, swept value) -> delivered bit/s.
Throughput = Callable[[RunKey, float], float]
#: (run key, attempt) -> the error this attempt meets, or None.
Failure = Callable[[RunKey, int], LinkLabError | None]


def default_throughput(key: RunKey, value: float) -> float:
    """About 100 Mbit/s, a little more for larger packets and less for UDP and IPv6, with a
    run-to-run spread of a few tenths of a percent that the same key always repeats."""
    base = 100e6 * (0.6 + 0.4 * min(value, 1408) / 1408)
    base *= 0.97 if key.protocol is Protocol.UDP else 1.0
    base *= 0.99 if int(key.ip_version) == 6 else 1.0
    spread = (zlib.crc32(repr(key).encode()) % 1000) / 1000 - 0.5  # -0.5 .. 0.5
    return base * (1 + 0.004 * spread)


class FakeDriver(EngineDriver):
    """Stands in for one engine, with its capabilities and limits."""

    def __init__(
        self,
        engine: Engine = DEFAULT_ENGINE,
        *,
        throughput: Throughput = default_throughput,
        fail: Failure | None = None,
        interval_s: float = 0.0,  # real time between samples (0: as fast as possible)
        sample_every_s: float = 1.0,  # measured time each sample covers (the engine's -i)
        cut: Callable[[RunKey], tuple[int, LinkLabError] | None] | None = None,
    ) -> None:
        super().__init__()
        self.real = real = DRIVERS[engine]
        self.engine = engine
        self.limits = real.limits
        self.metrics = real.metrics
        self.directions = real.directions
        self.sweeps = real.sweeps
        self.concurrent = real.concurrent
        for name in (
            "about",
            "programs",
            "server_program",
            "server_label",
            "server_command",
            "port_key",
            "port_label",
            "default_port",
            "port_options",
            "serve_name",
            "serve_optional",
            "serve_by_default",
            "reported_capabilities",
            "server_flags",
            "port_flags_text",
            "check_tries",
            "probe_interval_s",
            "cpu_of_all_cores",
            "one_way_delay",
            "serves_many",
            "takes_bare_connections",
            "arguments",
            "phrases",
        ):
            setattr(self, name, getattr(real, name))
        self.throughput = throughput
        self.fail = fail
        self.cut = cut  # (samples, error): a run that fails after measuring that many
        self.interval_s = interval_s
        self.sample_every_s = sample_every_s
        self.started: list[RunKey] = []  # every attempt, in order
        self._attempts: dict[RunKey, int] = {}
        self._lock = threading.Lock()

    def version(self) -> str:
        return "fake"

    def port(self, plan: Plan, key: RunKey) -> int:
        return self.real.port(plan, key)

    def server_count(self, plan: Plan) -> int:
        return self.real.server_count(plan)

    def problems(self, plan: Plan) -> list[tuple[str, str]]:
        return self.real.problems(plan)

    def exposed(self, port: int, bind: str | None = None) -> ServerOptions:
        return self.real.exposed(port, bind)

    def servers(
        self, options: ServerOptions, on_log: LogCallback | None = None
    ) -> list[LocalServer]:
        return self.real.servers(options, on_log)

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        value = plan.values[key.value_index]
        return [f"fake-{self.name}", key.protocol.value, f"-{int(key.ip_version)}", f"{value:g}"]

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        with self._lock:
            attempt = self._attempts.get(key, 0) + 1
            self._attempts[key] = attempt
            self.started.append(key)
        return FakeRun(self, plan, key, attempt)

    def single_run(self, run: SingleRun) -> RunHandle:
        return self.real.single_run(run)


class FakeRun:
    def __init__(self, driver: FakeDriver, plan: Plan, key: RunKey, attempt: int) -> None:
        self.driver = driver
        self.plan = plan
        self.key = key
        self.attempt = attempt
        self.argv = tuple(driver.argv(plan, key))
        self.result: RunResult | None = None
        self._cancelled = threading.Event()
        self.started = False
        self.ended_at: float | None = None  # time.monotonic() when its measuring ended

    def cancel(self) -> None:
        self._cancelled.set()

    def output(self) -> str:
        return f"fake run of {' '.join(self.argv)}"

    def events(self) -> Iterator[Sample | EngineMessage]:
        self.started = True
        try:
            yield from self._events()
        finally:
            self.ended_at = time.monotonic()

    def _events(self) -> Iterator[Sample | EngineMessage]:
        driver, plan, key = self.driver, self.plan, self.key
        started, steady = time.time(), time.monotonic()
        failure = driver.fail(key, self.attempt) if driver.fail is not None else None
        if failure is not None:
            raise failure
        value = float(plan.values[key.value_index])
        duration = float(run_settings(plan, key).duration_s)
        bps = driver.throughput(key, value)
        udp = key.protocol is Protocol.UDP
        samples = []
        cut = driver.cut(key) if driver.cut is not None else None
        step = driver.sample_every_s
        for index in range(max(1, round(duration / step))):
            if self._cancelled.is_set():
                raise StoppedByUser()
            sample = Sample(
                round(index * step, 6),
                round((index + 1) * step, 6),
                Flow.UP,
                sent_bps=bps,
                received_bps=bps,  # a fake link loses nothing
                bytes=int(bps * step / 8),
                retransmits=None if udp else 0,
                jitter_ms=0.01 if udp else None,
                lost_packets=0 if udp else None,
            )
            samples.append(sample)
            yield sample
            if cut is not None and len(samples) >= cut[0]:
                raise cut[1]
            if driver.interval_s and self._cancelled.wait(driver.interval_s):
                raise StoppedByUser()
        rtt = 0.05 + 0.0001 * value if key.kind is RunKind.RR else None
        flow = FlowSummary(
            Flow.UP,
            sender_bps=bps,
            receiver_bps=bps,
            sender_bytes=int(bps * duration / 8),
            receiver_bytes=int(bps * duration / 8),
            retransmits=None if udp else 0,
            jitter_ms=0.01 if udp else None,
            lost_packets=0 if udp else None,
            packets=int(bps * duration / 8 / max(value, 1)) if udp else None,
        )
        summary = RunSummary(
            flows=() if rtt is not None else (flow,),
            rtt_mean_ms=rtt,
            transactions_per_s=1000 / rtt if rtt else None,
            cpu_local_pct=5.0,
            cpu_remote_pct=4.0,
        )
        self.result = RunResult(
            engine=driver.name,
            engine_version="fake",
            argv=self.argv,
            summary=summary,
            samples=tuple(samples),
            raw_output=self.output(),
            started_at=started,
            elapsed_s=time.monotonic() - steady,
            started_steady=steady,
        )
