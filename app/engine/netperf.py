"""netperf client runs: build the argv, classify netperf's failures, wire up an EngineRun."""

from __future__ import annotations

import re

from app.domain.errors import BadOption, LinkLabError
from app.domain.net import IpVersion, Protocol
from app.engine.errors import (
    ConnectTimeout,
    DataConnectionFailed,
    EngineFailed,
    HostUnresolved,
    Ipv6Unavailable,
    NoNetserver,
    OptionRefused,
    PeerVanished,
)
from app.engine.limits import NETPERF as LIMITS
from app.engine.netperf_parse import parse_keyval
from app.engine.options import NetperfOptions, NetperfTest
from app.engine.run import Classifier, EngineRun
from app.engine.tools import Capability, Tool
from app.engine.validate import (
    check_port,
    check_range,
    is_ipv4_literal,
    is_ipv6_literal,
    validate_host,
)

__all__ = [
    "RR_SELECTORS",
    "STREAM_SELECTORS",
    "build_argv",
    "classify",
    "parse_keyval",
    "selectors",
    "start_netperf",
]

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
    check_port(opts.port, "netserver port")
    if not isinstance(opts.duration_s, int) or isinstance(opts.duration_s, bool):
        raise BadOption("The test duration must be a whole number of seconds.")
    span = LIMITS.duration_s
    check_range(opts.duration_s, span.low, span.high, "test duration", "s")
    span = LIMITS.interval_s
    check_range(opts.interval_s, span.low, span.high, "interim interval", "s")
    test = NetperfTest(opts.test)
    _check_family(host, opts.ip_version)
    argv = [tool.path, "-H", host, "-p", str(opts.port), "-l", str(opts.duration_s)]
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
    argv.append("--")
    if opts.message_size is not None:
        size = opts.message_size
        if not isinstance(size, int) or isinstance(size, bool):
            raise BadOption("The message size must be a whole number of bytes.")
        _check_message_size(size, test)
        argv += ["-r", f"{size},{size}"] if test.is_rr else ["-m", str(size)]
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


_FAMILY_UNSUPPORTED = re.compile(
    r"getaddrinfo returned -(?:5|9)\b|address family for hostname not supported|"
    r"no address associated with hostname|address family not supported by protocol",
    re.IGNORECASE,
)
_PEER_GONE = (
    "send_data",
    "recv_data",
    "data send error",
    "data recv error",
    "partial response",
    "connection reset",
    "broken pipe",
)


def classify(host: str, port: int, ip_version: IpVersion | None) -> Classifier:
    """A function that turns netperf's failure text into the typed error for this run."""

    def to_error(message: str, *, started: bool = True) -> LinkLabError:
        text = message.lower()
        v6 = ip_version == IpVersion.V6
        if v6 and _FAMILY_UNSUPPORTED.search(message):
            return Ipv6Unavailable(host, detail=message)
        if "could not resolve" in text or "resolve_host" in text or "getaddrinfo" in text:
            return HostUnresolved(host, detail=message)
        if "timed out" in text or "no response received" in text:
            return ConnectTimeout(host, port, detail=message)
        if "establish control" in text or "establish_control" in text:
            # netperf prints no errno here: refused, unreachable and (after the kernel's
            # ~2 min of SYN retries) a silent drop all read the same.
            return NoNetserver(host, port, detail=message)
        if "connect_data_socket" in text:
            # The control connection worked; the data connection, on a port netperf picks
            # itself, did not: a firewall there, or a netserver of another release (it then
            # never opens that port).
            return DataConnectionFailed(host, port, detail=message)
        if "message too long" in text:
            return OptionRefused(
                "The network stack refused to send a message this large: use a smaller "
                "message size.",
                detail=message,
            )
        if any(word in text for word in _PEER_GONE):
            return PeerVanished(host, detail=message)
        return EngineFailed("netperf", message)

    return to_error


def idle_timeout_s(opts: NetperfOptions, live: bool = True) -> float:
    """netperf prints an interim block every interval, the first one after up to ~interval
    more (stdout is block-buffered, so even the banner waits for it). Without demo mode it
    prints nothing at all until it exits."""
    slack = 3 * opts.interval_s + 10
    return slack if live else opts.duration_s + slack


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
