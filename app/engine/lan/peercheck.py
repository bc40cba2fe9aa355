"""Check a peer before measuring: does the name resolve, do the engines' servers answer (the
ones asked about: iperf3, netserver, …), and how long does a TCP handshake take there and back;
when none of them answers at all, whether anything at that address answers."""

from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.errors import BadOption
from app.engine.lan.validate import validate_host


@dataclass(frozen=True)
class PortAnswer:
    port: int
    open: bool
    rtt_ms: float | None
    problem: str  # why not, in words ("refused", "no answer")


@dataclass(frozen=True)
class Server:
    """A server to look for on the peer: its name in sentences, how a person starts it there,
    its port, and how many handshakes (one for a server that treats each as a test)."""

    name: str  # "iperf3", "netserver"
    what: str  # "iperf3 server", "netserver"
    command: str  # "iperf3 -s", "netserver"
    port: int
    tries: int = 3
    #: How often latency probes may knock (a server that takes each for a test: rarely).
    probe_interval_s: float = 0.2

    @property
    def how_to_start(self) -> str:
        """ "an iperf3 server (iperf3 -s, or LinkLab's Server tab)", "netserver (or …)"."""
        if self.command == self.what:
            return f"{self.what} (or LinkLab's Server tab)"
        article = "an" if self.what[:1] in "aeiou" else "a"
        return f"{article} {self.what} ({self.command}, or LinkLab's Server tab)"

    @property
    def possessive(self) -> str:
        """ "netserver's", "the iperf3 server's"."""
        return f"{self.what}'s" if self.what == self.name else f"the {self.what}'s"


@dataclass(frozen=True)
class PeerCheck:
    host: str
    addresses: tuple[str, ...]
    problem: str  # set when the name does not resolve or is invalid
    answers: tuple[tuple[Server, PortAnswer], ...] = ()
    #: Set when nothing at the address answered on any engine port: the ports tried, and
    #: why none answered ("no answer", "No route to host").
    silent: tuple[tuple[int, ...], str] | None = None

    @property
    def summary(self) -> str:
        """One line for the user."""
        if self.problem:
            return self.problem
        if self.silent is not None:
            return self.silent_sentence()
        parts = [f"{self.host} is {', '.join(self.addresses[:2])}"]
        for server, answer in self.answers:
            if answer.open:
                parts.append(f"{server.name} answers on port {answer.port}")
            else:
                parts.append(f"no {server.name} on port {answer.port} ({answer.problem})")
        rtts = [a.rtt_ms for _, a in self.answers if a.rtt_ms is not None]
        if rtts:
            parts.append(f"round trip {min(rtts):.2f} ms")
        return "; ".join(parts) + "."

    def blocking_problem(self) -> str:
        """Why a study cannot start against this peer, as a sentence; empty when it can.
        Only the servers that were checked count (the ones the chosen engine needs)."""
        if self.problem:
            return self.problem
        if self.silent is not None:
            return self.silent_sentence()
        for server, answer in self.answers:
            if not answer.open:
                return (
                    f"No {server.what} answers at {self.host} port {answer.port} "
                    f"({answer.problem}): start one there ({server.command}, or LinkLab's "
                    f"Server tab), or check the port and any firewall between."
                )
        return ""

    def silent_sentence(self) -> str:
        """Nothing answered at the address at all: said before any hint about a server."""
        assert self.silent is not None
        tried, why = self.silent
        ports = " or ".join(str(port) for port in tried)
        plural = "s" if len(tried) > 1 else ""
        why = why[:1].lower() + why[1:]
        server = self.answers[0][0].how_to_start if self.answers else "its server"
        return (
            f"Nothing answered at {self.host} ({why} on TCP port{plural} {ports}): no "
            f"computer there replied at all. Check the address, that the computer is on and on "
            f"this network, and any firewall between; then start {server} there."
        )


def silent(answer: PortAnswer | None) -> bool:
    """No reply at all: neither a connection nor a refusal (a refusal comes from a host)."""
    return answer is not None and not answer.open and answer.problem not in FORGIVEN


#: What a server re-opening its listening socket answers for a moment.
RESET = "connection reset by the peer"
FORGIVEN = frozenset({"refused", RESET})


def handshake(address: tuple[object, ...], family: int, timeout: float) -> tuple[bool, float, str]:
    """One TCP handshake, closed at once with a FIN: (answered, milliseconds, why not)."""
    started = time.perf_counter()
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(address)
            return True, (time.perf_counter() - started) * 1000, ""
    except ConnectionRefusedError:
        return False, (time.perf_counter() - started) * 1000, "refused"
    except ConnectionResetError:
        return False, 0.0, RESET
    except TimeoutError:
        return False, 0.0, "no answer"
    except OSError as err:
        return False, 0.0, err.strerror or "unreachable"


def patient_handshake(
    address: tuple[object, ...], family: int, timeout: float, patience_s: float = 1.0
) -> tuple[bool, float, str]:
    """A handshake that forgives refusals and resets for patience_s: an iperf3 server
    re-opens its listening socket after each client (a check's connect-and-close is one), so
    a port can refuse for a moment while its server is there, or reset a connection queued on
    the socket it closed, longer on a busy computer."""
    give_up = time.monotonic() + patience_s
    while True:
        answered, ms, problem = handshake(address, family, timeout)
        if answered or problem not in FORGIVEN or time.monotonic() >= give_up:
            return answered, ms, problem
        time.sleep(0.25)


def check_port(host: str, port: int, timeout: float = 2.0, tries: int = 3) -> PortAnswer:
    """TCP handshakes to host:port; the median handshake time is the round trip."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return PortAnswer(port, False, None, "name not resolved")
    family, _, _, _, address = infos[0]
    times = []
    for _ in range(tries):
        ok, rtt, problem = patient_handshake(address, family, timeout)
        if not ok:
            # A refusal still went there and back: it measures the round trip too.
            return PortAnswer(port, False, rtt if problem == "refused" else None, problem)
        times.append(rtt)
    return PortAnswer(port, True, statistics.median(times), "")


def check_peer(
    host: str,
    servers: Sequence[Server] = (),
    timeout: float = 2.0,
    spare_ports: Sequence[int] = (),
) -> PeerCheck:
    """The name, then the servers given; when none of them gets any reply, the first of
    spare_ports not asked yet too, to tell an address where nothing answers from a computer
    without the server."""
    try:
        validate_host(host, "peer")
    except BadOption as err:
        return PeerCheck(host, (), err.sentence)
    try:
        infos = socket.getaddrinfo(
            host.partition("%")[0] if "%" not in host else host, None, type=socket.SOCK_STREAM
        )
    except OSError:
        return PeerCheck(
            host,
            (),
            f"The name {host!r} could not be resolved: check the "
            f"spelling, or use the peer's IP address.",
        )
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    # A server that must not be knocked on (tries 0) is not checked: its engine's run says.
    answers = tuple(
        (server, check_port(host, server.port, timeout, tries=server.tries))
        for server in servers
        if server.tries > 0
    )
    quiet = None
    checked = [answer for _, answer in answers]
    if checked and all(silent(a) for a in checked):
        # Before telling the user to start a server: does anything at that address answer?
        asked = {a.port for a in checked}
        spare = [p for p in dict.fromkeys(spare_ports) if p not in asked][:1]
        extra = [check_port(host, port, timeout, tries=1) for port in spare]
        if all(silent(a) for a in extra):
            tried = tuple(a.port for a in (*checked, *extra))
            quiet = (tried, checked[0].problem)
    return PeerCheck(host, addresses, "", answers, quiet)


def ipv6_reachable(host: str, port: int, timeout: float = 3.0, *, listens: str = "") -> str:
    """Why the peer cannot be measured over IPv6 on this port, as a sentence; empty when a
    TCP handshake over IPv6 reaches its server there. `listens` says how a server listens on
    both (the drivers' phrase, for a refusal)."""
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET6, socket.SOCK_STREAM)
    except OSError:
        return (
            f"The peer {host} has no IPv6 address (its name has no AAAA record): give its "
            f"IPv6 address, or measure over IPv4."
        )
    family, _, _, _, address = infos[0]
    # Straight after the IPv4 check's handshakes with the same server: patient, since a
    # refusal here leaves the IPv6 series out.
    answered, _, problem = patient_handshake(address, family, timeout, patience_s=3.0)
    if answered:
        return ""
    where = address[0]
    if problem == "refused":
        return (
            f"The peer {host} refuses IPv6 connections on port {port} ({where}): its server "
            f"listens on IPv4 only; start it for IPv6 too{f' ({listens})' if listens else ''}, "
            f"or measure over IPv4."
        )
    return (
        f"IPv6 to {host} ({where}) does not work from this computer ({problem}): check that "
        f"IPv6 is enabled on both ends and routed between them, or measure over IPv4."
    )
