"""The netperf engine: its version probes, the argv of a run, an EngineRun wired up, and its
driver. What it accepts is options.py, its failures errors.py, netserver server.py."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Engine, Metric, Plan, RunKey, RunKind, Variable
from app.domain.run_settings import run_settings
from app.engine.drivers.arguments import swept_by, table_argv
from app.engine.drivers.driver import EngineDriver, RunHandle
from app.engine.drivers.netperf.errors import classify
from app.engine.drivers.netperf.options import ARGUMENTS, LIMITS, TEST, NetperfOptions, NetperfTest
from app.engine.drivers.netperf.parse import parse_keyval
from app.engine.drivers.netperf.phrases import PHRASES
from app.engine.drivers.netperf.server import COMMAND as SERVER_COMMAND
from app.engine.drivers.netperf.server import LABEL as SERVER_LABEL
from app.engine.drivers.netperf.server import netserver
from app.engine.drivers.options import SingleRun
from app.engine.lan.validate import (
    check_port,
    check_range,
    is_ipv4_literal,
    is_ipv6_literal,
    validate_host,
)
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.tools import Capability, Program, Tool, parse_version, run_probe
from app.engine.readings.run import EngineRun, Parser

__all__ = [
    "RR_SELECTORS",
    "STREAM_SELECTORS",
    "build_argv",
    "selectors",
    "start_netperf",
]

#: What a netperf built without demo mode prints for -D (netsh.c), then goes on without it.
NO_DEMO = "Demo Mode not configured"


# -- the argv of a run ----------------------------------------------------------------------------
#: Stream tests: the sender's and the receiver's rates (they differ for UDP, where the
#: receiver's count is what got through), and send/receive calls, which for UDP are
#: datagrams, so that their difference is the loss.
STREAM_SELECTORS = (
    "PROTOCOL",
    "DIRECTION",
    "ELAPSED_TIME",
    "THROUGHPUT",
    "THROUGHPUT_UNITS",
    "LOCAL_SEND_SIZE",
    "LOCAL_SEND_THROUGHPUT",
    "REMOTE_RECV_THROUGHPUT",
    "LOCAL_SEND_CALLS",
    "REMOTE_RECV_CALLS",
    "LOCAL_BYTES_SENT",
    "REMOTE_BYTES_RECVD",
    "LOCAL_CPU_UTIL",
    "REMOTE_CPU_UTIL",
)
#: Request/response tests: THROUGHPUT is the transaction rate; the latency selectors (in
#: microseconds) make netperf keep its histogram without -j.
RR_SELECTORS = (
    "PROTOCOL",
    "DIRECTION",
    "ELAPSED_TIME",
    "THROUGHPUT",
    "THROUGHPUT_UNITS",
    "TRANSACTION_RATE",
    "REQUEST_SIZE",
    "RESPONSE_SIZE",
    "MEAN_LATENCY",
    "MIN_LATENCY",
    "MAX_LATENCY",
    "P50_LATENCY",
    "P99_LATENCY",
    "STDDEV_LATENCY",
    "RT_LATENCY",
    "LOCAL_CPU_UTIL",
    "REMOTE_CPU_UTIL",
)


def selectors(test: NetperfTest) -> str:
    return ",".join(RR_SELECTORS if test.is_rr else STREAM_SELECTORS)


def build_argv(tool: Tool, opts: NetperfOptions) -> list[str]:
    """netperf's argv: global options, then `--`, then the omni test options."""
    host = validate_host(opts.host)
    setting = opts.settings
    check_port(opts.port, "netserver port")
    if not isinstance(setting.duration_s, int) or isinstance(setting.duration_s, bool):
        raise BadOption("The test duration must be a whole number of seconds.")
    span = LIMITS.duration_s
    check_range(setting.duration_s, span.low, span.high, "test duration", "s")
    span = LIMITS.interval_s
    check_range(opts.interval_s, span.low, span.high, "interim interval", "s")
    test = NetperfTest(opts.test)
    _check_family(host, opts.ip_version)
    argv = [tool.path, "-H", host, "-p", str(opts.port), "-l", str(setting.duration_s)]
    argv += ["-t", test.value]
    if opts.ip_version is not None:
        # Global -4/-6 set the family of the control and (by default) the data connection.
        argv.append("-6" if opts.ip_version == IpVersion.V6 else "-4")
    if opts.cpu:
        argv += ["-c", "-C"]
    if tool.has(Capability.INTERIM):
        # A negative interval makes netperf read the clock at every send or transaction. With
        # a count to wait for instead (`-D 1,65536`), a slow link (20 Mbit/s, 1408 B) gave one
        # interim report in 6 s and a slower one none before the silence watchdog's limit.
        argv += ["-D", f"-{opts.interval_s:g}"]
    argv += table_argv(ARGUMENTS, setting.values, test.protocol)
    argv.append("--")
    if setting.length is not None:
        size = setting.length
        if not isinstance(size, int) or isinstance(size, bool):
            raise BadOption("The message size must be a whole number of bytes.")
        _check_message_size(size, test)
        argv += ["-r", f"{size},{size}"] if test.is_rr else ["-m", str(size)]
    argv += table_argv(ARGUMENTS, setting.values, test.protocol, TEST)
    argv += ["-k", selectors(test)]
    return argv


def _check_message_size(size: int, test: NetperfTest) -> None:
    udp = test.protocol is Protocol.UDP
    span = LIMITS.udp_length if udp else LIMITS.tcp_length
    if not span.holds(size):
        what = "UDP" if udp else "TCP"
        raise BadOption(f"The {what} message size must be {span.text()}; it is {size}.")


def _check_family(host: str, ip_version: IpVersion | None) -> None:
    if ip_version == IpVersion.V6 and is_ipv4_literal(host):
        raise BadOption(
            f"{host} is an IPv4 address, but the run asks for IPv6: give the peer's IPv6 "
            f"address, or measure over IPv4."
        )
    if ip_version == IpVersion.V4 and is_ipv6_literal(host):
        raise BadOption(
            f"{host} is an IPv6 address, but the run asks for IPv4: give the peer's IPv4 "
            f"address, or measure over IPv6."
        )


def idle_timeout_s(opts: NetperfOptions, live: bool = True) -> float:
    """netperf prints an interim block every interval, the first one after up to ~interval
    more (stdout is block-buffered, so even the banner waits for it). Without demo mode it
    prints nothing at all until it exits."""
    slack = 3 * opts.interval_s + 10
    return slack if live else opts.settings.duration_s + slack


def start_netperf(tool: Tool, opts: NetperfOptions) -> EngineRun:
    """An EngineRun for one netperf client run (not yet started: call events() or run())."""
    argv = build_argv(tool, opts)
    live = tool.has(Capability.INTERIM)
    notices = () if live else (no_demo_notice(tool),)
    return EngineRun(
        tool,
        argv,
        parse_keyval,
        classify(opts.host, opts.port, opts.ip_version),
        host=opts.host,
        port=opts.port,  # silent before its first interim result: it never started
        idle_timeout_s=idle_timeout_s(opts, live),
        notices=notices,
    )


def no_demo_notice(tool: Tool) -> str:
    return (
        f"This netperf ({tool.version_string}, {tool.path}) was built without demo mode, so "
        f"live samples are not available: the live chart stays empty while netperf runs, and "
        f"the figures arrive when each run ends (LinkLab waits for the run's own length, not "
        f"for interim results). A netperf configured with --enable-demo reports while it runs."
    )


# -- the version probes ----------------------------------------------------------------------------
def netperf_capabilities(probe_text: str) -> frozenset[str]:
    """From the output of `netperf -D 1 -V`: demo mode (live interim results) unless refused."""
    return frozenset() if NO_DEMO in probe_text else frozenset({Capability.INTERIM})


def probe_netperf(path: str) -> tuple[tuple[int, ...], str, frozenset[str]]:
    # -V prints the version and exits; a -D before it shows whether demo mode is built in.
    probe_text = run_probe([path, "-D", "1", "-V"])
    lines = probe_text.strip().splitlines()
    version_text = next((line for line in lines if "version" in line.lower()), probe_text)
    return parse_version(version_text), version_text, netperf_capabilities(probe_text)


def probe_netserver(path: str) -> tuple[tuple[int, ...], str, frozenset[str]]:
    version_text = run_probe([path, "-V"])
    return parse_version(version_text), version_text, frozenset()


# -- the driver ------------------------------------------------------------------------------------
def netperf_test(key: RunKey) -> NetperfTest:
    """The netperf test of one run: request/response for RTT, else the stream test."""
    if key.kind is RunKind.RR:
        return NetperfTest.UDP_RR if key.protocol is Protocol.UDP else NetperfTest.TCP_RR
    return NetperfTest.UDP_STREAM if key.protocol is Protocol.UDP else NetperfTest.TCP_STREAM


class NetperfDriver(EngineDriver):
    engine = Engine.NETPERF
    limits = LIMITS
    metrics = frozenset(Metric)
    directions = frozenset({Direction.UP})  # TCP_STREAM / UDP_STREAM: this computer sends
    #: Besides the settings it has an option for: the message size, the run's length, and
    #: the loss the traffic shaper emulates.
    sweeps = frozenset({Variable.LENGTH, Variable.DURATION, Variable.LOSS}) | swept_by(ARGUMENTS)
    about = "netperf also measures round-trip time"
    programs = (
        Program("netperf", probe_netperf, "netperf measurements (throughput, round-trip time)"),
        Program(
            "netserver",
            probe_netserver,
            "the netserver LinkLab starts on this computer",
            package="netperf",  # netserver comes with netperf
            formula="netperf",
        ),
    )
    port_flags_text = "netperf -p / netserver -p"
    server_program = "netserver"
    server_label = SERVER_LABEL
    server_command = SERVER_COMMAND
    port_key = "netperf"
    serve_name = "netserver"
    port_label = "netserver"
    default_port = 12865
    port_options = ("--netserver-port", "--netperf-port")  # the second: earlier versions' name
    reported_capabilities = (Capability.INTERIM,)
    run_tests = tuple(test.value for test in NetperfTest)
    arguments = ARGUMENTS
    phrases = PHRASES
    server_flags = ("-p", "-L")
    cpu_of_all_cores = True
    check_tries = 3
    probe_interval_s = 0.1  # netserver only starts a child per connection

    def options(self, plan: Plan, key: RunKey) -> NetperfOptions:
        """The netperf client options of one run of the plan."""
        setting = run_settings(plan, key)
        return NetperfOptions(
            host=plan.peer.host_for(key.ip_version),
            port=self.port(plan, key),
            test=netperf_test(key),
            ip_version=key.ip_version,
            interval_s=plan.interval_s,
            settings=setting.replaced(duration_s=int(setting.duration_s or plan.duration_s)),
        )

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        return build_argv(self.tool(), self.options(plan, key))

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        return start_netperf(self.tool(), self.options(plan, key))

    def live_note(self) -> str | None:
        tool = self.tool()
        return None if tool.has(Capability.INTERIM) else no_demo_notice(tool)

    def single_run(self, run: SingleRun) -> RunHandle:
        if run.test is not None:
            test = NetperfTest(run.test)
        else:
            udp = run.protocol is Protocol.UDP
            test = NetperfTest.UDP_STREAM if udp else NetperfTest.TCP_STREAM
        opts = NetperfOptions(
            host=run.host,
            port=run.port,
            test=test,
            ip_version=run.ip_version,
            duration_s=run.duration_s,
            message_size=run.length,
            interval_s=run.interval_s,
        )
        return start_netperf(self.tool(), opts)

    def parser_for(self, argv: Sequence[str]) -> Parser | None:
        return parse_keyval

    def servers(
        self, options: ServerOptions, on_log: LogCallback | None = None
    ) -> list[LocalServer]:
        return [netserver(self.server_tool(), options, on_log)]
