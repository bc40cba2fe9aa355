"""Finding LinkLab's servers on the local network: a request sent by IPv4 broadcast and IPv6
link-local multicast (ff02::1) to the latency responder's UDP port, never routed beyond the
link; each `linklab serve` there answers with its name, addresses and engines' ports, in a reply
no larger than the request, at a limited rate (like the echo it rides on)."""

from __future__ import annotations

import ipaddress
import json
import selectors
import socket
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace

import psutil

from app import __version__
from app.engine.drivers.registry import by_port_key, port_key_of
from app.engine.lan import netinfo
from app.engine.latency.echo import (
    HEADER,
    HEADER_SIZE,
    MAGIC,
    MAX_READ_BYTES,
    VERSION,
    EchoResponder,
    RateLimiter,
)

KIND_DISCOVER = 3
KIND_ANNOUNCE = 4
#: A discovery request is padded to this size, so that an announcement (at most as large)
#: never turns a small datagram into a larger one.
DISCOVER_SIZE = MAX_READ_BYTES
ANNOUNCE_FORMAT = 1
# An answer per address a second after a burst of a few (a search sends two requests), and
# a few dozen a second in all: enough for a lab, useless for flooding.
PER_SOURCE_RATE, PER_SOURCE_BURST = 2.0, 5
GLOBAL_RATE, GLOBAL_BURST = 20.0, 20
SEARCH_S = 1.5  # how long a search listens for answers
_REPEAT_AFTER_S = 0.4  # the request is sent twice: one may be lost on Wi-Fi


def discover_request(seq: int = 0) -> bytes:
    head = HEADER.pack(MAGIC, VERSION, KIND_DISCOVER, 0, seq, time.time_ns(), 0)
    return head + bytes(DISCOVER_SIZE - HEADER_SIZE)


def is_discover_request(data: bytes) -> bool:
    if len(data) != DISCOVER_SIZE:
        return False
    magic, version, kind, *_ = HEADER.unpack_from(data)
    return bool(magic == MAGIC and version == VERSION and kind == KIND_DISCOVER)


def announcement(facts: Mapping[str, object], size: int = DISCOVER_SIZE) -> bytes:
    """The answer: the header, then the facts as JSON, addresses left out from the end
    until it fits in size bytes."""
    data = dict(facts)
    addresses = list(data.get("addresses", []))  # type: ignore[call-overload]
    head = HEADER.pack(MAGIC, VERSION, KIND_ANNOUNCE, 0, 0, 0, time.time_ns())
    while True:
        data["addresses"] = addresses
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        if len(head) + len(body) <= size or not addresses:
            return (head + body)[:size]
        addresses.pop()


class Announcer:
    """What a responder says to a discovery request: facts() at the time of asking (the
    servers' ports), each address answered at a limited rate."""

    def __init__(self, facts: Callable[[], Mapping[str, object]]) -> None:
        self._facts = facts
        self._limiter = RateLimiter(PER_SOURCE_RATE, PER_SOURCE_BURST, GLOBAL_RATE, GLOBAL_BURST)

    def wants(self, data: bytes) -> bool:
        return is_discover_request(data)

    def reply(self, data: bytes, source: str, now_ns: int) -> bytes | None:
        """The announcement, or None when this address (or everyone) asks too often."""
        if self._limiter.allow(source, now_ns):
            return None
        return announcement(self._facts(), len(data))


def announcing_responder(
    port: int, bind: str | None, engines: Callable[[], Mapping[str, int]]
) -> EchoResponder:
    """A latency responder that answers searches too: this computer's name and addresses,
    and the engines' servers running at the time of asking (engine -> its port)."""
    host = socket.gethostname()
    announcer = Announcer(lambda: serve_facts(host, engines(), port, __version__))
    return EchoResponder(port, [bind] if bind else None, announce=announcer)


def serve_facts(
    name: str, engines: Mapping[str, int], echo_port: int, version: str
) -> dict[str, object]:
    """What `linklab serve` announces: this computer's name, the addresses another computer
    can use (no loopback), and the ports its engines' servers listen on (by engine, keyed as
    a peer's ports are)."""
    return {
        "format": ANNOUNCE_FORMAT,
        "name": name,
        # Link-local addresses are left out: their zone is the asking computer's to name
        # (the answer's own source address carries it there).
        "addresses": [a.address for a in netinfo.local_addresses() if a.scope != "link-local"],
        "engines": dict(engines),
        "echo_port": echo_port,
        "linklab": version,
    }


@dataclass(frozen=True)
class FoundPeer:
    """A computer whose LinkLab servers answered a search."""

    name: str
    address: str  # the address its answer came from: the one to measure against
    addresses: tuple[str, ...]  # every address it announced
    #: Its engines' servers: their ports by engine, keyed as a peer's ports are (Peer.ports).
    engines: dict[str, int] = field(default_factory=dict)
    echo_port: int = 0
    version: str = ""

    @property
    def engine_words(self) -> str:
        """ "iperf3 port 5201, netserver port 12865"."""
        return ", ".join(f"{engine_label(key)} port {port}" for key, port in self.engines.items())

    @property
    def engine_labels(self) -> list[str]:
        """ "iperf3", "netserver": its servers as the window's Ports row names them."""
        return [engine_label(key) for key in self.engines]

    @property
    def ipv4(self) -> str:
        """Its IPv4 address: the answer's source when it came by IPv4, else the first it
        announced (those on this computer's networks first); "" when it has none."""
        return next((a for a in (self.address, *self.addresses) if _is_ipv4(a)), "")

    @property
    def ipv6(self) -> str:
        """Its IPv6 address another computer reaches without a zone, else the link-local
        address its answer came from (with this computer's zone); "" when it has none."""
        routable = next((a for a in (self.address, *self.addresses) if _routable6(a)), "")
        return routable or (self.address if ":" in self.address else "")

    @property
    def host(self) -> str:
        """The address to measure against: its IPv4 address, which serves an IPv4 series and
        names the peer, else its IPv6 one. An answer that came by IPv6 link-local multicast
        (an IPv4 broadcast that did not reach it) still gives the IPv4 address it announced."""
        return self.ipv4 or self.ipv6 or self.address

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "address": self.address,
            "ipv4": self.ipv4,
            "ipv6": self.ipv6,
            "addresses": list(self.addresses),
            "engines": dict(self.engines),
            "echo_port": self.echo_port,
            "linklab": self.version,
        }


def parse_announcement(data: bytes, source: str) -> FoundPeer | None:
    """The peer an answer describes, or None when it is no LinkLab announcement."""
    if len(data) < HEADER_SIZE or len(data) > DISCOVER_SIZE:
        return None
    magic, version, kind, *_ = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or kind != KIND_ANNOUNCE:
        return None
    try:
        facts = json.loads(data[HEADER_SIZE:].decode())
    except ValueError:
        return None
    if not isinstance(facts, dict):
        return None
    engines = facts.get("engines")
    ports: dict[str, int] = {}
    for name, port in engines.items() if isinstance(engines, dict) else ():
        # An engine this LinkLab knows (by its key, its name or its server's program name,
        # as an earlier LinkLab announced it), on a port a server can have.
        key = port_key_of(str(name))
        if key is not None and isinstance(port, int) and 0 < port < 65536:
            ports.setdefault(key, port)
    addresses = facts.get("addresses")
    echo = facts.get("echo_port")
    return FoundPeer(
        name=str(facts.get("name") or source)[:64],
        address=source,
        addresses=tuple(str(a)[:64] for a in addresses if isinstance(a, str))
        if isinstance(addresses, list)
        else (),
        engines=ports,
        echo_port=echo if isinstance(echo, int) and 0 < echo < 65536 else 0,
        version=str(facts.get("linklab") or "")[:32],
    )


def _is_ipv4(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).version == 4
    except ValueError:
        return False


def _routable6(address: str) -> bool:
    """An IPv6 address reached without a zone: not link-local, not loopback."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # a zone (link-local), or no address at all
    return ip.version == 6 and not ip.is_link_local and not ip.is_loopback


def nearest_first(addresses: Collection[str], networks: Collection[str]) -> tuple[str, ...]:
    """The addresses on one of networks ("10.0.0.0/24") first, the rest in their order: a
    computer announces every address it has (a container bridge too), and one on a network
    this computer is on is the one it reaches."""
    nets = [ipaddress.ip_network(n, strict=False) for n in networks]

    def near(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip.version == net.version and ip in net for net in nets)

    return tuple(sorted(addresses, key=lambda a: not near(a)))


def _own_networks() -> list[str]:
    """The networks this computer's interfaces are on (loopback and link-local left out)."""
    networks = []
    for addrs in netinfo.interface_addresses().values():
        for addr in addrs:
            if addr.family not in (socket.AF_INET, socket.AF_INET6) or not addr.netmask:
                continue
            text = addr.address.split("%", 1)[0]
            try:
                # An IPv6 netmask is a prefix as an address ("ffff:ffff::"): its bits counted.
                bits = bin(int(ipaddress.ip_address(addr.netmask))).count("1")
                network = ipaddress.ip_network(f"{text}/{bits}", strict=False)
            except ValueError:
                continue
            if not network.is_loopback and not network.is_link_local:
                networks.append(str(network))
    return networks


def engine_label(key: str) -> str:
    """How an engine's server is named beside its port ("netserver" for netperf's)."""
    driver = by_port_key().get(key)
    return driver.port_label if driver is not None else key


def _own_addresses() -> list[str]:
    """This computer's addresses (loopback left out), without zones."""
    return [a.address.split("%", 1)[0] for a in netinfo.local_addresses()]


def search_targets(
    port: int, interfaces: Collection[str] | None = None
) -> list[tuple[int, tuple[object, ...]]]:
    """(family, address) to send a request to: each IPv4 network's broadcast address, and
    the IPv6 all-nodes group ff02::1 on each interface with IPv6 (of interfaces only, when
    given). Both stay on the link."""
    targets: list[tuple[int, tuple[object, ...]]] = []
    stats = psutil.net_if_stats()
    seen: set[object] = set()
    for name, addrs in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        if interfaces is not None and name not in interfaces:
            continue
        for addr in addrs:
            if addr.family == socket.AF_INET and addr.netmask:
                ip = ipaddress.ip_address(addr.address)
                if ip.is_loopback:
                    continue
                network = ipaddress.ip_network(f"{addr.address}/{addr.netmask}", strict=False)
                if network.prefixlen >= 31:  # a point-to-point link: no broadcast address
                    continue
                broadcast = addr.broadcast or str(network.broadcast_address)
                key = (socket.AF_INET, broadcast)
                if key not in seen:
                    seen.add(key)
                    targets.append((socket.AF_INET, (broadcast, port)))
            elif addr.family == socket.AF_INET6:
                if ipaddress.ip_address(addr.address.split("%", 1)[0]).is_loopback:
                    continue
                try:
                    index = socket.if_nametoindex(name)
                except OSError:
                    continue
                zone = (socket.AF_INET6, index)
                if zone not in seen:
                    seen.add(zone)
                    targets.append((socket.AF_INET6, ("ff02::1", port, 0, index)))
    return targets


def _open(family: int) -> socket.socket | None:
    try:
        sock = socket.socket(family, socket.SOCK_DGRAM)
    except OSError:
        return None
    if family == socket.AF_INET:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    else:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 1)
    sock.setblocking(False)
    return sock


def discover(
    port: int, timeout_s: float = SEARCH_S, interfaces: Collection[str] | None = None
) -> list[FoundPeer]:
    """The computers on this computer's links (on interfaces only, when given) whose
    LinkLab servers answer a search on port, within timeout_s; each once (by name and
    addresses), this computer's own left out."""
    targets = search_targets(port, interfaces)
    sockets = {f: s for f in {f for f, _ in targets} if (s := _open(f)) is not None}
    own = set(_own_addresses())
    networks = _own_networks()
    found: dict[tuple[str, tuple[str, ...]], FoundPeer] = {}
    selector = selectors.DefaultSelector()
    try:
        for sock in sockets.values():
            selector.register(sock, selectors.EVENT_READ)
        request = discover_request()
        sends = [0.0, _REPEAT_AFTER_S]
        started = time.monotonic()
        while True:
            elapsed = time.monotonic() - started
            while sends and elapsed >= sends[0]:
                sends.pop(0)
                for family, address in targets:
                    try:
                        sockets[family].sendto(request, address)
                    except (KeyError, OSError):
                        continue  # that link cannot send now: the others still ask
            if elapsed >= timeout_s:
                break
            wait = min(timeout_s, sends[0] if sends else timeout_s) - elapsed
            for ready, _ in selector.select(max(wait, 0.01)):
                assert isinstance(ready.fileobj, socket.socket)
                _receive(ready.fileobj, own, networks, found)
    finally:
        selector.close()
        for sock in sockets.values():
            sock.close()
    return sorted(found.values(), key=lambda p: (p.name.lower(), p.address))


def _receive(
    sock: socket.socket,
    own: set[str],
    networks: list[str],
    found: dict[tuple[str, tuple[str, ...]], FoundPeer],
) -> None:
    while True:
        try:
            data, source = sock.recvfrom(DISCOVER_SIZE + 1)
        except (BlockingIOError, ConnectionResetError):
            return
        except OSError:
            return
        address = str(source[0])
        if address.split("%", 1)[0] in own:
            continue  # this computer's own servers: "This computer" already
        if sock.family == socket.AF_INET6 and "%" not in address and len(source) > 3:
            if address.lower().startswith("fe80:") and source[3]:
                address = f"{address}%{socket.if_indextoname(int(source[3]))}"
        peer = parse_announcement(data, address)
        if peer is None:
            continue
        peer = replace(peer, addresses=nearest_first(peer.addresses, networks))
        key = (peer.name, tuple(sorted(peer.addresses)))
        best = found.get(key)
        if best is None or _rank(peer.address) < _rank(best.address):
            found[key] = peer


def _rank(address: str) -> int:
    """IPv4 first, then a routable IPv6 address, then a link-local one."""
    if ":" not in address:
        return 0
    return 2 if address.lower().startswith("fe80:") else 1
