"""Engines as drivers: one object per engine says what it can do (metrics, protocols,
directions, what can be swept, its settings' limits), builds the argv of a run of a plan, and
starts it. Plan checks, the window's form and the command line read these, so they agree."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Protocol as TypingProtocol

from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Metric, Plan, RunKey, RunKind, Variable
from app.domain.results import EngineMessage, RunResult, Sample
from app.engine import limits
from app.engine.iperf3 import OutputMode, no_live_notice, output_mode, start_iperf3
from app.engine.iperf3 import build_argv as iperf3_argv
from app.engine.limits import Limits
from app.engine.netperf import build_argv as netperf_argv
from app.engine.netperf import no_demo_notice, start_netperf
from app.engine.options import Iperf3Options, NetperfOptions, NetperfTest
from app.engine.tools import Capability, Tool, find_tool

#: How long iperf3 waits for the server before giving up (ms); older iperf3 lack the option
#: and the silence watchdog stands in.
CONNECT_TIMEOUT_MS = 8000


class RunHandle(TypingProtocol):
    """One engine run in progress (app.engine.run.EngineRun, or a fake's)."""

    argv: tuple[str, ...]
    result: RunResult | None

    def events(self) -> Iterator[Sample | EngineMessage]: ...

    def cancel(self) -> None: ...


class EngineDriver(ABC):
    engine: Engine
    limits: Limits
    metrics: frozenset[Metric]
    protocols: frozenset[Protocol] = frozenset(Protocol)
    directions: frozenset[Direction]
    sweeps: frozenset[Variable]
    concurrent: bool = False  # several series at once, each against its own server

    @property
    def name(self) -> str:
        return self.engine.value

    def settings(self) -> frozenset[str]:
        """The plan's fixed settings this engine honours (the others it would ignore)."""
        honoured = {"length", "duration", "interval"}
        for name in ("window", "parallel", "bitrate", "omit"):
            field = "bitrate_bps" if name == "bitrate" else ("omit_s" if name == "omit" else name)
            if getattr(self.limits, field) is not None:
                honoured.add(name)
        return frozenset(honoured)

    def tool(self) -> Tool:
        """The engine program in use (settings, bundled copy, or PATH); EngineMissing else."""
        return find_tool(self.name)

    def version(self) -> str:
        return self.tool().version_string

    def live_note(self) -> str | None:
        """A sentence when this engine reports nothing while it runs (the live chart stays
        empty until each run ends); None when it reports live."""
        return None

    @abstractmethod
    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        """The exact command line of one run of the plan."""

    @abstractmethod
    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        """One run of the plan, ready to iterate."""


class Iperf3Driver(EngineDriver):
    engine = Engine.IPERF3
    limits = limits.IPERF3
    metrics = frozenset({Metric.THROUGHPUT, Metric.CPU, Metric.LATENCY})
    directions = frozenset(Direction)
    sweeps = frozenset(Variable)
    concurrent = True

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        tool = self.tool()
        return iperf3_argv(tool, iperf3_options(plan, key), output_mode(tool))

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        return start_iperf3(self.tool(), iperf3_options(plan, key))

    def live_note(self) -> str | None:
        tool = self.tool()
        return no_live_notice(tool) if output_mode(tool) is OutputMode.JSON else None


class NetperfDriver(EngineDriver):
    engine = Engine.NETPERF
    limits = limits.NETPERF
    metrics = frozenset(Metric)
    directions = frozenset({Direction.UP})  # TCP_STREAM / UDP_STREAM: this computer sends
    sweeps = frozenset({Variable.LENGTH, Variable.DURATION, Variable.LOSS})

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        return netperf_argv(self.tool(), netperf_options(plan, key))

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        return start_netperf(self.tool(), netperf_options(plan, key))

    def live_note(self) -> str | None:
        tool = self.tool()
        return None if tool.has(Capability.INTERIM) else no_demo_notice(tool)


def iperf3_options(plan: Plan, key: RunKey) -> Iperf3Options:
    """The iperf3 client options of one run of the plan."""
    setting = plan.setting(key)
    return Iperf3Options(
        host=plan.peer.host_for(key.ip_version),
        port=plan.iperf3_port(key),
        protocol=key.protocol,
        ip_version=key.ip_version,
        duration_s=int(setting["duration"] or plan.duration_s),
        omit_s=plan.omit_s,
        interval_s=plan.interval_s,
        length=setting["length"],
        window=setting["window"],
        parallel=int(setting["parallel"] or 1),
        direction=plan.direction,
        bitrate_bps=setting["bitrate"],
        connect_timeout_ms=CONNECT_TIMEOUT_MS,
    )


def netperf_test(key: RunKey) -> NetperfTest:
    """The netperf test of one run: request/response for RTT, else the stream test."""
    if key.kind is RunKind.RR:
        return NetperfTest.UDP_RR if key.protocol is Protocol.UDP else NetperfTest.TCP_RR
    return NetperfTest.UDP_STREAM if key.protocol is Protocol.UDP else NetperfTest.TCP_STREAM


def netperf_options(plan: Plan, key: RunKey) -> NetperfOptions:
    """The netperf client options of one run of the plan."""
    setting = plan.setting(key)
    return NetperfOptions(
        host=plan.peer.host_for(key.ip_version),
        port=plan.peer.netperf_port,
        test=netperf_test(key),
        ip_version=key.ip_version,
        duration_s=int(setting["duration"] or plan.duration_s),
        message_size=setting["length"],
        interval_s=plan.interval_s,
    )


DRIVERS: Mapping[Engine, EngineDriver] = {
    Engine.IPERF3: Iperf3Driver(),
    Engine.NETPERF: NetperfDriver(),
}


def driver(engine: Engine) -> EngineDriver:
    return DRIVERS[engine]


def widest(span: str) -> limits.Span:
    """The union of one limit over every engine (what a command line option accepts before
    the chosen engine's own check)."""
    spans = [getattr(d.limits, span) for d in DRIVERS.values()]
    present = [s for s in spans if s is not None]
    return limits.Span(min(s.low for s in present), max(s.high for s in present), present[0].unit)
