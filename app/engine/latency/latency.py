"""How to measure latency to a peer: LinkLab's UDP echo where it answers, else TCP connection
time to netserver's or iperf3's port, or netperf's request/response test; which one was used
is said in a sentence."""

from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.net import IpVersion
from app.engine.errors import NoLatencyMethod
from app.engine.lan.peercheck import Server, handshake
from app.engine.latency.echo import DEFAULT_ECHO_PORT
from app.engine.latency.probe import (
    DEFAULT_INTERVAL_S,
    IDLE_SECONDS,
    Prober,
    RecordCallback,
    UdpProber,
    resolve,
)
from app.engine.latency.probe_results import (
    DEFAULT_KEEP,
    DEFAULT_TIMEOUT_S,
    LatencyMethod,
    ProbeSummary,
)

#: Connection probes to a server that only starts a child per connection (netserver).
CONNECT_INTERVAL_S = 0.1
DETECT_PROBES = 5
#: How the sentence naming the method chosen begins (a session's status reason ends with
#: them; its view says the method in its Details instead).
METHOD_SENTENCE = "Latency measured "
DETECT_INTERVAL_S = 0.05


@dataclass(frozen=True)
class MethodChoice:
    """How latency to a peer will be measured, and the sentence that says so."""

    method: LatencyMethod
    host: str
    port: int
    server: str  # "echo", or the name of the engine server probed ("netserver", "iperf3")
    sentence: str
    rtt_ms: float | None = None  # what the detection itself measured
    interval_s: float = CONNECT_INTERVAL_S  # between connection probes to that server


class TcpConnectProber(Prober):
    """Times a TCP handshake to a listening port once per interval, closing each connection
    at once (with a FIN, never a reset: an iperf3 server running a test answers a stray
    connection with one byte, and a reset there would end its test).

    Against an iperf3 server, probe while its test runs or while no test starts: a probe
    that lands in the few milliseconds in which a test connects can make that test fail
    (refused, or its streams cut). So stop the idle prober before starting the test, and
    start the loaded one once the test reports its first interval."""

    method = LatencyMethod.TCP_CONNECT

    def __init__(
        self,
        host: str,
        port: int,
        *,
        interval_s: float = CONNECT_INTERVAL_S,
        duration_s: float | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        keep: int = DEFAULT_KEEP,
        on_record: RecordCallback | None = None,
        ip_version: IpVersion | None = None,
    ) -> None:
        super().__init__(
            host,
            port,
            interval_s=interval_s,
            duration_s=duration_s,
            timeout_s=timeout_s,
            keep=keep,
            on_record=on_record,
        )
        self.ip_version = ip_version
        self._family: int = socket.AF_UNSPEC
        self._address: tuple[object, ...] = ()
        self.refused = 0  # handshakes answered by a reset: a round trip, but no server there

    def _open(self) -> None:
        self._family, self._address = resolve(
            self.host, self.port, socket.SOCK_STREAM, self.ip_version
        )

    def _send(self, seq: int) -> None:
        timeout_s = self._matcher.timeout_ns / 1e9
        started = time.perf_counter_ns()
        if self._too_late(started):
            return
        self._sent(seq, started)
        ok, rtt_ms, problem = handshake(self._address, self._family, timeout_s)
        if ok or problem == "refused":
            self.refused += not ok
            self._answered(seq, started + int(rtt_ms * 1e6))
        # No answer: the probe stays outstanding and the loop counts it lost at its timeout.


def make_prober(
    choice: MethodChoice,
    *,
    duration_s: float | None = None,
    interval_s: float | None = None,
    on_record: RecordCallback | None = None,
    ip_version: IpVersion | None = None,
) -> Prober:
    """The prober for a detected method (netperf's test runs as a netperf run instead)."""
    if choice.method is LatencyMethod.UDP_ECHO:
        return UdpProber(
            choice.host,
            choice.port,
            duration_s=duration_s,
            interval_s=interval_s or DEFAULT_INTERVAL_S,
            on_record=on_record,
            ip_version=ip_version,
        )
    if choice.method is LatencyMethod.TCP_CONNECT:
        return TcpConnectProber(
            choice.host,
            choice.port,
            duration_s=duration_s,
            interval_s=interval_s or choice.interval_s,
            on_record=on_record,
            ip_version=ip_version,
        )
    # A caller's mistake, not the user's: a method without a prober is its engine's own run.
    raise ValueError(f"the {choice.method} method runs as its engine's test, not a prober")


def measure_idle(
    choice: MethodChoice, seconds: float = IDLE_SECONDS, ip_version: IpVersion | None = None
) -> ProbeSummary:
    """Latency over a few seconds with nothing else running: the baseline for loaded runs."""
    return make_prober(choice, duration_s=seconds, ip_version=ip_version).run()


def _echo_answers(
    host: str, port: int, timeout_s: float, ip_version: IpVersion | None
) -> float | None:
    """The median round trip of a few echo probes, or None when no responder answers."""
    prober = UdpProber(
        host,
        port,
        interval_s=DETECT_INTERVAL_S,
        duration_s=DETECT_PROBES * DETECT_INTERVAL_S,
        timeout_s=timeout_s,
        ip_version=ip_version,
    )
    prober.start()
    try:
        while prober.running:
            # A "port unreachable" from the peer settles it at once; so does one reply.
            if prober.refused or prober.received:
                break
            time.sleep(0.01)
    finally:
        prober.stop()
    rtts = [r.rtt_ms for r in prober.records() if r.rtt_ms is not None]
    return statistics.median(rtts) if rtts else None


def _connect_answers(
    host: str, port: int, timeout_s: float, ip_version: IpVersion | None
) -> float | None:
    family, address = resolve(host, port, socket.SOCK_STREAM, ip_version)
    ok, rtt_ms, _ = handshake(address, family, timeout_s)
    return rtt_ms if ok else None


def detect_method(
    host: str,
    echo_port: int | None = DEFAULT_ECHO_PORT,
    servers: Sequence[Server] = (),
    *,
    timeout_s: float = 1.0,
    ip_version: IpVersion | None = None,
) -> MethodChoice:
    """Try LinkLab's echo (unless echo_port is None), then a handshake with each server in
    turn; raise NoLatencyMethod when none answers."""
    tried = []
    missing = []
    if echo_port is not None:
        rtt = _echo_answers(host, echo_port, timeout_s, ip_version)
        if rtt is not None:
            return MethodChoice(
                LatencyMethod.UDP_ECHO,
                host,
                echo_port,
                "echo",
                f"{METHOD_SENTENCE}with LinkLab's UDP echo on {host} port {echo_port}.",
                rtt,
            )
        tried.append(f"no LinkLab responder answered on UDP port {echo_port}")
        missing.append("LinkLab responder")
    for server in servers:
        port = server.port
        rtt = _connect_answers(host, port, timeout_s, ip_version)
        if rtt is not None:
            why = f", since the peer has no {' and no '.join(missing)}" if missing else ""
            return MethodChoice(
                LatencyMethod.TCP_CONNECT,
                host,
                port,
                server.name,
                f"{METHOD_SENTENCE}by TCP connection time to {server.possessive} port {port}{why}.",
                rtt,
                server.probe_interval_s,
            )
        tried.append(f"no {server.name} accepted a connection on port {port}")
        missing.append(server.name)
    raise NoLatencyMethod(host, ", ".join(tried) if tried else "no method was allowed")
