"""The iperf3 engine: its version probe, options to argv, the live output mode, an EngineRun
wired up, and its driver. What it accepts is options.py, its failures errors.py, its server
server.py, its parsers parse_json.py and parse_text.py."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from app.domain.errors import BadOption
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Engine, Metric, Plan, RunKey, Variable
from app.domain.run_settings import run_settings
from app.engine.drivers.arguments import table_argv
from app.engine.drivers.driver import EngineDriver, RunHandle
from app.engine.drivers.iperf3.errors import NotIperf3, classifier
from app.engine.drivers.iperf3.options import (
    ARGUMENTS,
    CONNECT_TIMEOUT_MS,
    CONNECT_TIMEOUT_MS_DEFAULT,
    LIMITS,
    PASSWORD_ENV,
    STREAMS,
    Iperf3Options,
)
from app.engine.drivers.iperf3.parse_json import parse_document, parse_stream
from app.engine.drivers.iperf3.parse_text import parse_text
from app.engine.drivers.iperf3.phrases import PHRASES
from app.engine.drivers.iperf3.server import COMMAND as SERVER_COMMAND
from app.engine.drivers.iperf3.server import LABEL as SERVER_LABEL
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.drivers.iperf3.server import security_warning as server_security_warning
from app.engine.drivers.limits import Span
from app.engine.drivers.options import SingleRun
from app.engine.errors import (
    EngineTooOld,
)
from app.engine.lan.validate import (
    check_port,
    check_range,
    is_ipv4_literal,
    is_ipv6_literal,
    validate_host,
)
from app.engine.process.servers import (
    EXPOSED_IDLE_TIMEOUT_S,
    EXPOSED_STALL_TIMEOUT_S,
    LocalServer,
    LogCallback,
    ServerOptions,
    exposed,
)
from app.engine.process.tools import Capability, Program, Tool, parse_version, run_probe
from app.engine.readings.run import SILENT_DATA_S, EngineRun, Parser

MIN_IPERF3 = (3, 1)
_IPERF2_VERSION = re.compile(r"^iperf version 2\.", re.MULTILINE)


# -- the argv of a run ----------------------------------------------------------------------------
def _span(span: Span) -> tuple[float, float]:
    return span.low, span.high


class OutputMode(StrEnum):
    JSON_STREAM = "json-stream"  # 3.17+: one JSON event per line, live
    TEXT = "text"  # 3.1.5 to 3.16: -V --forceflush text, live
    JSON = "json"  # -J: one document at the end (no live view)


def output_mode(tool: Tool, live: bool = True) -> OutputMode:
    """How to run iperf3: live when asked and possible. Before 3.1.5 there is no --forceflush,
    and text written to a pipe arrives in lumps or only at the end, so -J serves better."""
    if live and tool.has(Capability.JSON_STREAM):
        return OutputMode.JSON_STREAM
    if live and tool.has(Capability.FORCEFLUSH):
        return OutputMode.TEXT
    return OutputMode.JSON


def no_live_notice(tool: Tool) -> str:
    return (
        f"This iperf3 ({tool.version_string}) cannot report while it runs (it has neither "
        f"--forceflush, added in 3.1.5, nor --json-stream), so live samples are not "
        f"available: the live chart stays empty while iperf3 runs, and the figures arrive "
        f"when each run ends. A newer iperf3 reports live."
    )


def validate_options(opts: Iperf3Options) -> None:
    """Raise BadOption with a sentence for any value iperf3 would refuse or misread."""
    validate_host(opts.host, "peer")
    check_port(opts.port)
    limits, setting = LIMITS, opts.settings
    check_range(setting.duration_s, *_span(limits.duration_s), "run duration", "s")
    assert limits.omit_s is not None and limits.parallel is not None
    check_range(opts.omit_s, *_span(limits.omit_s), "warm-up (omit) time", "s")
    check_range(opts.interval_s, *_span(limits.interval_s), "report interval", "s")
    check_range(setting.parallel, *_span(limits.parallel), "number of parallel streams")
    if setting.length is not None:
        if opts.protocol is Protocol.UDP:
            check_range(setting.length, *_span(limits.udp_length), "UDP packet size", "bytes")
        else:
            check_range(setting.length, *_span(limits.tcp_length), "TCP write length", "bytes")
    if setting.window is not None and limits.window is not None:
        check_range(setting.window, *_span(limits.window), "TCP window (socket buffer)", "bytes")
    if setting.bitrate_bps is not None and limits.bitrate_bps is not None:
        check_range(setting.bitrate_bps, *_span(limits.bitrate_bps), "target bitrate", "bit/s")
    if opts.connect_timeout_ms is not None:
        check_range(opts.connect_timeout_ms, *_span(CONNECT_TIMEOUT_MS), "connect timeout", "ms")
    if opts.bind_address is not None:
        validate_host(opts.bind_address, "bind address")
    if opts.ip_version is IpVersion.V4 and is_ipv6_literal(opts.host):
        raise BadOption(
            f"{opts.host} is an IPv6 address but IPv4 was chosen: pick IPv6, or give the peer's "
            f"IPv4 address."
        )
    if opts.ip_version is IpVersion.V6 and is_ipv4_literal(opts.host):
        raise BadOption(
            f"{opts.host} is an IPv4 address but IPv6 was chosen: pick IPv4, or give the peer's "
            f"IPv6 address."
        )
    if opts.username is not None:
        if not opts.username or opts.username.startswith("-") or not opts.username.isprintable():
            raise BadOption("The iperf3 user name must be printable and not start with '-'.")
        if not opts.password:
            raise BadOption(
                f"iperf3 authentication as {opts.username!r} needs a password: type it, or "
                f"clear the user name."
            )
        if not opts.rsa_public_key_path:
            raise BadOption(
                "iperf3 authentication needs the server's RSA public key file as well as the "
                "user name: choose the key file, or clear the user name."
            )


def build_argv(tool: Tool, opts: Iperf3Options, mode: OutputMode) -> list[str]:
    """The exact iperf3 command line for these options; refuses what this iperf3 lacks."""
    validate_options(opts)
    setting = opts.settings
    argv = [tool.path, "-c", opts.host, "-p", str(opts.port), "-t", str(setting.duration_s)]
    argv += ["-i", f"{opts.interval_s:g}"]
    if opts.ip_version is not None:
        argv.append(f"-{int(opts.ip_version)}")
    if opts.protocol is Protocol.UDP:
        argv.append("-u")
    if setting.length is not None:
        argv += ["-l", str(setting.length)]
    values = {**setting.values, "omit_s": opts.omit_s}  # the warm-up: iperf3's own option
    argv += table_argv(ARGUMENTS, values, opts.protocol, STREAMS)
    if opts.direction is Direction.DOWN:
        argv.append("-R")
    elif opts.direction is Direction.BIDIR:
        tool.require(Capability.BIDIR, "measure both directions at once (--bidir)")
        argv.append("--bidir")
    argv += table_argv(ARGUMENTS, values, opts.protocol)
    if opts.connect_timeout_ms is not None and tool.has(Capability.CONNECT_TIMEOUT):
        # Before 3.2 there is no such option; the silence watchdog stands in for it.
        argv += ["--connect-timeout", str(opts.connect_timeout_ms)]
    if opts.bind_address is not None:
        argv += ["-B", opts.bind_address]
    if opts.username is not None:
        tool.require(Capability.AUTHENTICATION, "authenticate to the server (--username)")
        argv += ["--username", opts.username]
        argv += ["--rsa-public-key-path", str(opts.rsa_public_key_path)]
    # The server's interval reports at the end: what the receiver got in each interval of
    # an upload (the client sees only what it sent), what was sent in each of a download.
    argv.append("--get-server-output")
    if mode is OutputMode.JSON_STREAM:
        tool.require(Capability.JSON_STREAM, "report live as JSON (--json-stream)")
        argv.append("--json-stream")
    elif mode is OutputMode.TEXT:
        # -f k: rates in whole kbit/s, not rounded to three digits; -V adds the CPU line.
        argv += ["-f", "k", "-V"]
        if tool.has(Capability.FORCEFLUSH):
            argv.append("--forceflush")
    else:
        argv.append("-J")
    return argv


def parser_for(mode: OutputMode) -> Parser:
    return {
        OutputMode.JSON_STREAM: parse_stream,
        OutputMode.TEXT: parse_text,
        OutputMode.JSON: parse_document,
    }[mode]


def start_iperf3(tool: Tool, opts: Iperf3Options, *, live: bool = True) -> EngineRun:
    """Prepare one iperf3 client run; call .events() or .run() on the result to execute it."""
    mode = output_mode(tool, live)
    argv = build_argv(tool, opts, mode)
    env = {PASSWORD_ENV: opts.password} if opts.password is not None else None
    # A silent engine is a vanished peer: 3 report intervals plus 10 s of slack. Without live
    # output the whole run is silent, so the watchdog allows for its full length.
    idle = 3 * opts.interval_s + 10.0
    if mode is OutputMode.JSON:
        idle += opts.settings.duration_s + opts.omit_s
    notices = (no_live_notice(tool),) if live and mode is OutputMode.JSON else ()
    return EngineRun(
        tool,
        argv,
        parser_for(mode),
        classifier(opts),
        host=opts.host,
        port=opts.port,
        idle_timeout_s=idle,
        env=env,
        notices=notices,
        silence_s=silence_s(opts),
    )


def silence_s(opts: Iperf3Options) -> float:
    """How long intervals may carry no bytes before the data counts as stopped: SILENT_DATA_S,
    at least two intervals, and at least three datagrams' time at a slow UDP target rate."""
    quiet = max(SILENT_DATA_S, 2 * opts.interval_s)
    setting = opts.settings
    if opts.protocol is Protocol.UDP and setting.bitrate_bps:
        datagram_bits = 8 * (setting.length or LIMITS.udp_length.high)
        quiet = max(quiet, 3 * datagram_bits / setting.bitrate_bps)
    return quiet


# -- the version probe ---------------------------------------------------------------------------
def iperf3_capabilities(help_text: str, version_text: str) -> frozenset[str]:
    caps: set[str] = set()
    flags = {
        "--json-stream": Capability.JSON_STREAM,
        "--bidir": Capability.BIDIR,
        "--connect-timeout": Capability.CONNECT_TIMEOUT,
        "--rcv-timeout": Capability.RCV_TIMEOUT,
        "--snd-timeout": Capability.SND_TIMEOUT,
        "--idle-timeout": Capability.IDLE_TIMEOUT,
        "--one-off": Capability.ONE_OFF,
        "--forceflush": Capability.FORCEFLUSH,
        "--server-max-duration": Capability.SERVER_MAX_DURATION,
    }
    for flag, cap in flags.items():
        if re.search(re.escape(flag) + r"\b", help_text):
            caps.add(cap)
    if "--username" in help_text and "authentication" in (version_text + help_text).lower():
        caps.add(Capability.AUTHENTICATION)
    return frozenset(caps)


def probe_iperf3(path: str) -> tuple[tuple[int, ...], str, frozenset[str]]:
    version_text = run_probe([path, "--version"])
    if _IPERF2_VERSION.search(version_text):
        raise NotIperf3(version_text.strip().splitlines()[0])
    version = parse_version(version_text.replace("cJSON", ""))
    caps = iperf3_capabilities(run_probe([path, "--help"]), version_text)
    if version and version < MIN_IPERF3:
        raise EngineTooOld(
            f"iperf3 {'.'.join(map(str, version))} at {path} is too old (LinkLab needs "
            f"{'.'.join(map(str, MIN_IPERF3))} or newer): install a newer iperf3."
        )
    return version, version_text, caps


# -- the driver ------------------------------------------------------------------------------------
class Iperf3Driver(EngineDriver):
    engine = Engine.IPERF3
    limits = LIMITS
    metrics = frozenset({Metric.THROUGHPUT, Metric.CPU, Metric.LATENCY})
    directions = frozenset(Direction)
    sweeps = frozenset(Variable)
    concurrent = True
    about = "iperf3 measures throughput (and jitter and loss for UDP) in both directions"
    programs = (
        Program("iperf3", probe_iperf3, "the iperf3 client and server", bundled_on_windows=True),
    )
    server_program = "iperf3"
    server_label = SERVER_LABEL
    server_command = SERVER_COMMAND
    port_key = "iperf3"
    serve_name = "iperf3"
    port_label = "iperf3"
    default_port = 5201
    port_options = ("--port",)
    port_flags_text = "iperf3 -p"
    serve_optional = False
    loads_responsiveness = True
    connect_timeout_ms = CONNECT_TIMEOUT_MS_DEFAULT
    password_variable = PASSWORD_ENV
    arguments = ARGUMENTS
    phrases = PHRASES
    reported_capabilities = (
        Capability.JSON_STREAM,
        Capability.BIDIR,
        Capability.AUTHENTICATION,
        Capability.CONNECT_TIMEOUT,
        Capability.RCV_TIMEOUT,
        Capability.SND_TIMEOUT,
        Capability.IDLE_TIMEOUT,
        Capability.ONE_OFF,
    )

    def options(self, plan: Plan, key: RunKey) -> Iperf3Options:
        """The iperf3 client options of one run of the plan."""
        setting = run_settings(plan, key)
        duration_s = int(setting.duration_s or plan.duration_s)
        return Iperf3Options(
            host=plan.peer.host_for(key.ip_version),
            port=self.port(plan, key),
            protocol=key.protocol,
            ip_version=key.ip_version,
            omit_s=plan.omit_s,
            interval_s=plan.interval_s,
            direction=plan.direction,
            connect_timeout_ms=CONNECT_TIMEOUT_MS_DEFAULT,
            settings=setting.replaced(duration_s=duration_s, parallel=int(setting.parallel or 1)),
        )

    def argv(self, plan: Plan, key: RunKey) -> list[str]:
        tool = self.tool()
        return build_argv(tool, self.options(plan, key), output_mode(tool))

    def start(self, plan: Plan, key: RunKey) -> RunHandle:
        return start_iperf3(self.tool(), self.options(plan, key))

    def live_note(self) -> str | None:
        tool = self.tool()
        return no_live_notice(tool) if output_mode(tool) is OutputMode.JSON else None

    def single_run(self, run: SingleRun) -> RunHandle:
        if run.test is not None:
            raise BadOption("--test chooses a netperf test: leave it out for iperf3.")
        opts = Iperf3Options(
            host=run.host,
            port=run.port,
            protocol=run.protocol,
            ip_version=run.ip_version,
            duration_s=run.duration_s,
            omit_s=run.omit_s,
            interval_s=run.interval_s,
            length=run.length,
            window=run.window,
            parallel=run.parallel,
            direction=run.direction,
            bitrate_bps=run.bitrate_bps,
            connect_timeout_ms=run.connect_timeout_ms,
            bind_address=run.bind_address,
            username=run.username,
            password=run.password,
            rsa_public_key_path=run.rsa_public_key_path,
        )
        return start_iperf3(self.tool(), opts, live=run.live)

    def parser_for(self, argv: Sequence[str]) -> Parser | None:
        if "--json-stream" in argv:
            return parser_for(OutputMode.JSON_STREAM)
        if "-J" in argv or "--json" in argv:
            return parser_for(OutputMode.JSON)
        return parser_for(OutputMode.TEXT)

    def servers(
        self, options: ServerOptions, on_log: LogCallback | None = None
    ) -> list[LocalServer]:
        return [iperf3_server(self.server_tool(), options, on_log)]

    def exposed(self, port: int, bind: str | None = None) -> ServerOptions:
        return exposed(port, bind)

    def loopback(self, port: int, bind: str, interval_s: float | None = None) -> ServerOptions:
        # The idle and stall restarts `linklab serve` has (a stuck client, or one that holds
        # the server without progress, does not hold it until the window closes), and the
        # study's interval, so that the server's reports joined in at the end are as fine as
        # the client's.
        idle = EXPOSED_IDLE_TIMEOUT_S if self.server_tool().has(Capability.IDLE_TIMEOUT) else None
        return ServerOptions(
            port, bind, idle, interval_s=interval_s, stall_timeout_s=EXPOSED_STALL_TIMEOUT_S
        )

    def server_note(self, tool: Tool) -> str | None:
        return server_security_warning(tool)
