"""The iperf 2 engine (`iperf`, 2.0.10 and newer; Debian's 2.1.x): its version probe, the argv
of a run (-e enhanced reports, -R, --full-duplex, --bounceback for round trips, -Z for the
congestion control, --trip-times for one-way delay between synchronised clocks), a run that
fails on its stderr's words, and its driver. What it accepts is options.py, its failures
errors.py, its TCP and UDP servers server.py.

An iperf 2 server serves many clients at once: concurrent series and two studies share it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from enum import StrEnum

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Engine, Metric, Plan, RunKey, RunKind, Variable
from app.domain.results import EngineMessage, Sample
from app.domain.run_settings import RunSettings, run_settings
from app.engine.drivers.arguments import table_argv
from app.engine.drivers.driver import EngineDriver, RunHandle
from app.engine.drivers.iperf2.errors import classifier
from app.engine.drivers.iperf2.options import (
    ARGUMENTS,
    LIMITS,
    MIN_BOUNCEBACK,
    STREAMS,
    UDP,
)
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.drivers.iperf2.phrases import PHRASES
from app.engine.drivers.iperf2.server import iperf2_servers
from app.engine.drivers.limits import DURATION, INTERVAL
from app.engine.drivers.options import SingleRun
from app.engine.errors import (
    EngineMissing,
    EngineTooOld,
)
from app.engine.lan.validate import (
    check_port,
    check_range,
    is_ipv4_literal,
    is_ipv6_literal,
    validate_host,
)
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.tools import Program, Tool, parse_version, run_probe
from app.engine.readings.run import SILENT_DATA_S, EngineRun, Parser

#: Older iperf 2 releases print other reports (no -e columns) and lack what LinkLab uses.
MIN_IPERF2 = (2, 0, 10)


class Iperf2Capability(StrEnum):
    REVERSE = "reverse"  # -R, the server sends (2.1+)
    FULL_DUPLEX = "full-duplex"
    BOUNCEBACK = "bounceback"  # request/response round trips (2.1.4+)
    TRIP_TIMES = "trip-times"
    CONGESTION = "tcp-congestion"  # -Z


def iperf2_capabilities(help_text: str) -> frozenset[str]:
    flags = {
        "--reverse": Iperf2Capability.REVERSE,
        "--full-duplex": Iperf2Capability.FULL_DUPLEX,
        "--bounceback": Iperf2Capability.BOUNCEBACK,
        "--trip-times": Iperf2Capability.TRIP_TIMES,
        "--tcp-congestion": Iperf2Capability.CONGESTION,
    }
    return frozenset(cap for flag, cap in flags.items() if re.search(re.escape(flag), help_text))


def probe_iperf2(path: str) -> tuple[tuple[int, ...], str, frozenset[str]]:
    """`iperf -v` (on stderr) says "iperf version 2.1.8 (12 August 2022) pthreads"."""
    text = run_probe([path, "-v"])
    line = next((x for x in text.splitlines() if "version" in x.lower()), text.strip())
    version = parse_version(line)
    if version and version[0] != 2:
        raise EngineMissing(
            "iperf",
            f"The program LinkLab ran as iperf 2 ({path}) says it is {line.strip()[:60]!r}: "
            f"set the path of iperf 2 (the `iperf` program) in LinkLab's settings.",
        )
    if version and version < MIN_IPERF2:
        raise EngineTooOld(
            f"iperf {'.'.join(map(str, version))} at {path} is too old: LinkLab needs iperf "
            f"2.0.10 or newer (its enhanced reports): install a newer iperf 2 (Debian/Ubuntu: "
            f"sudo apt-get install iperf), or set the path of another one in LinkLab's settings."
        )
    return version, line, iperf2_capabilities(run_probe([path, "--help"]))


# -- one run -------------------------------------------------------------------------------------
def build_argv(tool: Tool, plan: Plan, key: RunKey, host: str, port: int) -> list[str]:
    """The exact iperf 2 command line of one run of the plan."""
    validate_host(host, "peer")
    check_port(port)
    setting = run_settings(plan, key)
    duration = int(setting.duration_s or plan.duration_s)
    check_range(duration, DURATION.low, DURATION.high, "run duration", "s")
    check_range(plan.interval_s, INTERVAL.low, INTERVAL.high, "report interval", "s")
    _check_family(host, key.ip_version)
    argv = [tool.path, "-c", host, "-p", str(port), "-t", str(duration)]
    argv += ["-i", f"{plan.interval_s:g}", "-e", "-f", "k"]
    if key.ip_version is IpVersion.V6:
        argv.append("-V")
    length = setting.length
    if key.kind is RunKind.RR:
        tool.require(Iperf2Capability.BOUNCEBACK, "measure round trips (--bounceback)")
        argv.append("--bounceback")
        if length is not None:
            argv += ["-l", str(length)]
        return argv + _the_rest(tool, setting, key.protocol)
    if key.protocol is Protocol.UDP:
        argv.append("-u")
        argv += table_argv(ARGUMENTS, setting.values, key.protocol, UDP)
    if length is not None:
        argv += ["-l", str(length)]
    argv += table_argv(ARGUMENTS, setting.values, key.protocol, STREAMS)
    if plan.direction is Direction.DOWN:
        tool.require(Iperf2Capability.REVERSE, "measure a download (-R, iperf 2.1 or newer)")
        argv.append("-R")
    elif plan.direction is Direction.BIDIR:
        tool.require(Iperf2Capability.FULL_DUPLEX, "measure both ways at once (--full-duplex)")
        argv.append("--full-duplex")
    if plan.clocks_synchronised:
        tool.require(Iperf2Capability.TRIP_TIMES, "measure one-way delay (--trip-times)")
        argv.append("--trip-times")
    return argv + _the_rest(tool, setting, key.protocol)


def _the_rest(tool: Tool, setting: RunSettings, protocol: Protocol) -> list[str]:
    """The options at the argv's end: the congestion control (a TCP run's only), the mark."""
    if setting.congestion is not None:
        tool.require(Iperf2Capability.CONGESTION, "choose the TCP congestion control (-Z)")
    return table_argv(ARGUMENTS, setting.values, protocol)


def _check_family(host: str, ip_version: IpVersion) -> None:
    if ip_version is IpVersion.V4 and is_ipv6_literal(host):
        raise BadOption(f"{host} is an IPv6 address but IPv4 was chosen: give its IPv4 address.")
    if ip_version is IpVersion.V6 and is_ipv4_literal(host):
        raise BadOption(f"{host} is an IPv4 address but IPv6 was chosen: give its IPv6 address.")


#: Lines iperf 2 writes to stderr when a test fails although it exits with status 0.
_STDERR_FAILED = re.compile(
    r"\[stderr\] .*(write failed|read failed|connect failed|udp fin failed|did not receive ack)",
    re.I,
)


class Iperf2Run(EngineRun):
    """An iperf 2 run: one whose stderr says the connection failed, ends failed even when
    iperf 2 exits with status 0 and printed a total (a peer that closes at once). A run
    counts as started once an interval of at least half the report interval arrived."""

    interval_s = 1.0

    def events(self) -> Iterator[Sample | EngineMessage]:
        started = False
        for event in super().events():
            if isinstance(event, Sample):
                started = started or event.end_s - event.start_s >= self.interval_s / 2
            yield event
        failed = next((x for x in self._raw if _STDERR_FAILED.search(x)), None)
        if failed is not None:
            self.result = None
            raise self._classify(failed.removeprefix("[stderr] "), started=started)


def start_iperf2(
    tool: Tool, argv: list[str], host: str, port: int, key: RunKey, plan: Plan
) -> EngineRun:
    """An EngineRun of one iperf 2 client run (not yet started: call events() or run())."""
    setting = run_settings(plan, key)
    udp = key.protocol is Protocol.UDP and key.kind is RunKind.STREAM
    duration = int(setting.duration_s or plan.duration_s)
    quiet = max(SILENT_DATA_S, 2 * plan.interval_s)
    bitrate = setting.bitrate_bps
    if udp and bitrate:
        quiet = max(quiet, 3 * 8 * (setting.length or 1470) / bitrate)
    run = Iperf2Run(
        tool,
        argv,
        parse_iperf2,
        classifier(host, port, key.ip_version, udp),
        host=host,
        port=port,
        # Its UDP client waits for the server's report after the run (ten tries).
        idle_timeout_s=3 * plan.interval_s + 10.0 + (duration if key.kind is RunKind.RR else 0),
        silence_s=None if key.kind is RunKind.RR else quiet,
    )
    run.interval_s = plan.interval_s
    return run


# -- servers -------------------------------------------------------------------------------------


# -- the driver ----------------------------------------------------------------------------------
class Iperf2Driver(EngineDriver):
    engine = Engine.IPERF2
    limits = LIMITS
    # CPU: this computer's, as LinkLab samples it (iperf 2 reports none of its own).
    metrics = frozenset(Metric)
    directions = frozenset(Direction)
    sweeps = frozenset(Variable)
    concurrent = True
    serves_many = True  # one server serves every series, study and station at once
    one_way_delay = True  # --trip-times, read from the receiver's Latency columns
    takes_bare_connections = False  # 2.1.8's server crashes on one during a test
    about = "iperf2 serves many clients at once and measures round trips with --bounceback"
    #: LinkLab's Windows installer brings iperf 2.2.1, built from its pinned source.
    programs = (
        Program(
            "iperf", probe_iperf2, "iperf 2 measurements and its server", bundled_on_windows=True
        ),
    )
    server_program = "iperf"
    server_label = "iperf 2 server"
    server_command = "iperf -s (and iperf -s -u for UDP)"
    port_key = "iperf2"
    port_label = "iperf 2"
    default_port = 5001
    port_options = ("--iperf2-port",)
    port_flags_text = "iperf -p"
    serve_name = "iperf2"
    serve_by_default = False
    reported_capabilities = tuple(Iperf2Capability)
    arguments = ARGUMENTS
    phrases = PHRASES

    @property
    def label(self) -> str:
        return "iperf2"

    def problems(self, plan: Plan) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        if (
            plan.clocks_synchronised
            and plan.direction is Direction.UP
            and Protocol.TCP in plan.protocols
        ):
            # The receiver reports one-way delay: over TCP that is the peer's server, whose
            # report never reaches the client (UDP's server report does, and carries it).
            found.append(
                (
                    "clocks_synchronised",
                    "iperf 2 reports one-way delay where the data arrives, and a TCP upload "
                    "arrives at the peer, whose report LinkLab does not see: choose Download "
                    "or Both at once, or UDP only, or turn off clocks synchronised.",
                )
            )
        if Metric.RTT not in plan.metrics:
            return found
        if Protocol.UDP in plan.protocols:
            found.append(
                (
                    "metrics",
                    "iperf 2 measures round trips over TCP only (--bounceback): choose TCP, or "
                    "leave RTT out.",
                )
            )
        swept = plan.variable is Variable.LENGTH
        lengths = plan.values if swept else (plan.length,)
        if any(isinstance(v, int) and v < MIN_BOUNCEBACK for v in lengths):
            found.append(
                (
                    "values" if swept else "length",
                    f"iperf 2's round trips (--bounceback) carry at least {MIN_BOUNCEBACK} "
                    f"bytes: measure RTT with sizes of {MIN_BOUNCEBACK} bytes or more, or "
                    f"choose netperf.",
                )
            )
        return found

    def _run(self, plan: Plan, key: RunKey) -> tuple[Tool, list[str], str, int]:
        tool = self.tool()
        host, port = plan.peer.host_for(key.ip_version), self.port(plan, key)
        return tool, build_argv(tool, plan, key, host, port), host, port

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        return self._run(plan, key)[1]

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        tool, argv, host, port = self._run(plan, key)
        return start_iperf2(tool, argv, host, port, key, plan)

    def single_run(self, run: SingleRun) -> RunHandle:
        from app.domain.plan import Peer

        if run.test is not None or run.username is not None or run.omit_s:
            raise BadOption("--test, --username and --omit are not iperf 2's: leave them out.")
        ip = run.ip_version or (IpVersion.V6 if is_ipv6_literal(run.host) else IpVersion.V4)
        plan = Plan(
            Peer(run.host, {self.port_key: run.port}),
            self.engine,
            (run.protocol,),
            (ip,),
            run.direction,
            Variable.DURATION,
            (run.duration_s,),
            repetitions=1,
            duration_s=run.duration_s,
            length=run.length,
            window=run.window,
            parallel=run.parallel,
            bitrate_bps=run.bitrate_bps or 0,
            interval_s=run.interval_s,
        )
        return self.start(plan, RunKey(run.protocol, ip, 0, 1))

    def parser_for(self, argv: Sequence[str]) -> Parser | None:
        return parse_iperf2

    def servers(
        self, options: ServerOptions, on_log: LogCallback | None = None
    ) -> list[LocalServer]:
        return iperf2_servers(self.server_tool(), options, on_log)
