"""LinkLab's latency responder: a UDP echo that answers only small, well-formed probes, at a
limited rate, so that it cannot be used to amplify or reflect traffic."""

from __future__ import annotations

import errno
import selectors
import socket
import struct
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from app.domain.plan import DEFAULT_ECHO_PORT as DEFAULT_ECHO_PORT  # defined with the peer
from app.engine.errors import EchoPortBusy, EchoStartFailed
from app.engine.lan.validate import check_port
from app.engine.process.servers import port_holder

MAGIC = b"LLpr"
VERSION = 1
KIND_REQUEST = 1
KIND_REPLY = 2
# magic, version, kind, flags (zero), sequence, client's send stamp (ns, opaque to the
# responder), responder's receive stamp (ns since the epoch; zero in a request).
HEADER = struct.Struct("!4sBBHIQQ")
HEADER_SIZE = HEADER.size
MAX_PROBE_BYTES = 256  # larger datagrams are dropped unread
#: The largest datagram read at all: a discovery request (app/engine/serving/discovery.py) is padded
#: to this size so that its answer is never larger.
MAX_READ_BYTES = 512


class Announce(Protocol):
    """What answers discovery requests beside the echo (app/engine/serving/discovery.py)."""

    def wants(self, data: bytes) -> bool:
        """True when data is a discovery request."""
        ...

    def reply(self, data: bytes, source: str, now_ns: int) -> bytes | None:
        """The answer to source, or None when it asks too often."""
        ...


SEQ_MODULO = 1 << 32

PER_SOURCE_RATE = 200.0  # probes per second from one address...
PER_SOURCE_BURST = 50  # ...after a burst of this many
GLOBAL_RATE = 2000.0  # probes per second from all addresses together
GLOBAL_BURST = 200
MAX_SOURCES = 4096  # addresses whose buckets are remembered at once
_DRAIN_PER_WAKE = 64  # datagrams read from one socket before looking at the others
STOP_TIMEOUT_S = 2.0

LOOPBACK = ("127.0.0.1", "::1")
_ALL = ("0.0.0.0", "::")  # noqa: S104 - the responder serves every address unless told


def request(seq: int, client_ns: int, size: int = HEADER_SIZE) -> bytes:
    """A probe as the prober sends it: the header, zero-padded to size bytes."""
    if not HEADER_SIZE <= size <= MAX_PROBE_BYTES:
        raise ValueError(f"probe size {size} outside {HEADER_SIZE}..{MAX_PROBE_BYTES}")
    head = HEADER.pack(MAGIC, VERSION, KIND_REQUEST, 0, seq % SEQ_MODULO, client_ns, 0)
    return head + bytes(size - HEADER_SIZE)


@dataclass(frozen=True)
class Reply:
    seq: int
    client_ns: int
    server_ns: int


def parse_reply(data: bytes) -> Reply | None:
    """The reply's fields, or None when the datagram is not a LinkLab reply."""
    if not HEADER_SIZE <= len(data) <= MAX_PROBE_BYTES:
        return None
    magic, version, kind, _flags, seq, client_ns, server_ns = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or kind != KIND_REPLY:
        return None
    return Reply(seq, client_ns, server_ns)


def answer(data: bytes, server_ns: int) -> bytes | None:
    """The reply to a datagram, the same size as the request, or None when it is no request.

    Replies are never answered, so two responders cannot be set to bounce packets between
    them."""
    if not HEADER_SIZE <= len(data) <= MAX_PROBE_BYTES:
        return None
    magic, version, kind, _flags, seq, client_ns, _ = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or kind != KIND_REQUEST:
        return None
    head = HEADER.pack(MAGIC, VERSION, KIND_REPLY, 0, seq, client_ns, server_ns)
    return head + data[HEADER_SIZE:]


class RateLimiter:
    """Token buckets per source address plus one for everyone; time comes from the caller."""

    def __init__(
        self,
        per_source_rate: float = PER_SOURCE_RATE,
        per_source_burst: int = PER_SOURCE_BURST,
        global_rate: float = GLOBAL_RATE,
        global_burst: int = GLOBAL_BURST,
        max_sources: int = MAX_SOURCES,
    ) -> None:
        self.rate = per_source_rate / 1e9  # tokens per nanosecond
        self.burst = float(per_source_burst)
        self.global_rate = global_rate / 1e9
        self.global_burst = float(global_burst)
        self.max_sources = max_sources
        self._sources: dict[str, tuple[float, int]] = {}  # address -> (tokens, at_ns)
        self._global: tuple[float, int] | None = None

    @property
    def sources(self) -> int:
        return len(self._sources)

    def allow(self, source: str, now_ns: int) -> str:
        """'' when the probe may be answered, else why not: 'source' or 'global'."""
        tokens, at = self._sources.get(source, (self.burst, now_ns))
        if source not in self._sources and len(self._sources) >= self.max_sources:
            self._forget_idle(now_ns)
            if len(self._sources) >= self.max_sources:
                return "source"
        tokens = min(self.burst, tokens + (now_ns - at) * self.rate)
        if tokens < 1.0:
            self._sources[source] = (tokens, now_ns)
            return "source"
        shared, shared_at = self._global or (self.global_burst, now_ns)
        shared = min(self.global_burst, shared + (now_ns - shared_at) * self.global_rate)
        if shared < 1.0:
            self._sources[source] = (tokens, now_ns)
            self._global = (shared, now_ns)
            return "global"
        self._sources[source] = (tokens - 1.0, now_ns)
        self._global = (shared - 1.0, now_ns)
        return ""

    def _forget_idle(self, now_ns: int) -> None:
        """Drop the buckets that have refilled: those addresses start afresh anyway."""
        full_after = self.burst / self.rate
        for source, (_, at) in list(self._sources.items()):
            if now_ns - at >= full_after:
                del self._sources[source]


@dataclass(frozen=True)
class EchoStats:
    """What the responder has seen since it started."""

    received: int = 0
    answered: int = 0
    announced: int = 0  # discovery requests answered
    oversized: int = 0  # larger than MAX_PROBE_BYTES: dropped
    malformed: int = 0  # not a LinkLab probe: dropped
    over_rate: int = 0  # one address sent faster than its bucket allows: dropped
    over_global: int = 0  # all addresses together too fast: dropped
    sources: int = 0  # addresses with a rate bucket right now

    @property
    def dropped(self) -> int:
        return self.oversized + self.malformed + self.over_rate + self.over_global


class EchoResponder:
    """The UDP echo, served by one thread over one socket per address it binds.

    With no addresses it serves every IPv4 and IPv6 address; LOOPBACK serves only this
    computer. Port 0 picks a free port (the same on every address)."""

    def __init__(
        self,
        port: int = DEFAULT_ECHO_PORT,
        addresses: Sequence[str] | None = None,
        limiter: RateLimiter | None = None,
        announce: Announce | None = None,
    ) -> None:
        """announce answers discovery requests (app/engine/serving/discovery.py); without it they
        are dropped as malformed."""
        if port != 0:
            check_port(port, "echo port")
        self._requested_port = port
        self._addresses = tuple(addresses) if addresses else _ALL
        self._explicit = addresses is not None
        self._limiter = limiter or RateLimiter()
        self._announce = announce
        self._sockets: list[socket.socket] = []
        self._thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(
            (
                "received",
                "answered",
                "announced",
                "oversized",
                "malformed",
                "over_rate",
                "over_global",
            ),
            0,
        )
        self.port = port

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def bound(self) -> list[tuple[str, int]]:
        """(address, port) of every socket the responder listens on."""
        return [(str(s.getsockname()[0]), int(s.getsockname()[1])) for s in self._sockets]

    @property
    def stats(self) -> EchoStats:
        with self._lock:
            return EchoStats(**self._counts, sources=self._limiter.sources)

    def start(self) -> None:
        if self.running:
            return
        self._sockets = self._bind()
        self.port = int(self._sockets[0].getsockname()[1])
        self._wake = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="linklab-echo", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and free the port; returns once the thread has ended."""
        thread, wake = self._thread, self._wake
        if thread is not None and wake is not None:
            try:
                wake[1].send(b"x")
            except OSError:
                pass
            thread.join(timeout=STOP_TIMEOUT_S)
        self._thread = None
        for sock in self._sockets:
            sock.close()
        self._sockets = []
        if wake is not None:
            for end in wake:
                end.close()
        self._wake = None

    # -- binding --------------------------------------------------------------------------------
    def _bind(self) -> list[socket.socket]:
        # Port 0: the first socket picks a port, the others must take the same one; another
        # program may hold it on the other family, so a few tries.
        for _ in range(1 if self._requested_port else 20):
            port = self._requested_port
            sockets: list[socket.socket] = []
            try:
                for address in self._addresses:
                    sock = self._open(address, port)
                    if sock is None:
                        continue
                    sockets.append(sock)
                    port = int(sock.getsockname()[1])
            except EchoPortBusy:
                for sock in sockets:
                    sock.close()
                if self._requested_port:
                    raise
                continue
            except BaseException:
                for sock in sockets:
                    sock.close()
                raise
            if sockets:
                return sockets
            raise EchoStartFailed(
                "LinkLab's latency responder found no address to listen on (is the network "
                "up?), so it is off: check the bind address."
            )
        raise EchoStartFailed(
            "LinkLab's latency responder found no free UDP port, so it is off: choose a port."
        )

    def _open(self, address: str, port: int) -> socket.socket | None:
        try:
            infos = socket.getaddrinfo(
                address, port, type=socket.SOCK_DGRAM, flags=socket.AI_PASSIVE
            )
        except OSError as err:
            if not self._explicit:
                return None  # no IPv6 (or IPv4) on this computer: serve the other family
            raise EchoStartFailed(
                f"LinkLab's latency responder cannot listen on {address}, so it is off: "
                f"check the bind address.",
                detail=str(err),
            ) from err
        family, kind, proto, _, sockaddr = infos[0]
        try:
            sock = socket.socket(family, kind, proto)
        except OSError as err:
            if not self._explicit:
                return None
            raise EchoStartFailed(
                f"LinkLab's latency responder cannot open a socket for {address}, so it is "
                f"off: check that this address family is enabled.",
                detail=str(err),
            ) from err
        try:
            if family == socket.AF_INET6:
                # One socket per family, so that IPv4 sources keep their own addresses.
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(sockaddr)
            sock.setblocking(False)
        except OSError as err:
            sock.close()
            if err.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
                raise EchoPortBusy(port, str(err), port_holder(port, "udp")) from err
            if err.errno in (errno.EACCES, getattr(errno, "WSAEACCES", -1)):
                # Below 1024 without privileges; on Windows also a reserved or exclusive port.
                raise EchoStartFailed(
                    f"LinkLab's latency responder may not listen on port {port}, so it is "
                    f"off: choose a port above 1023 that no other program holds.",
                    detail=str(err),
                ) from err
            if not self._explicit and err.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                return None
            raise EchoStartFailed(
                f"LinkLab's latency responder cannot listen on {address} port {port}, so it "
                f"is off: check the bind address ({err.strerror}).",
                detail=str(err),
            ) from err
        return sock

    # -- serving --------------------------------------------------------------------------------
    def _serve(self) -> None:
        assert self._wake is not None
        selector = selectors.DefaultSelector()
        try:
            selector.register(self._wake[0], selectors.EVENT_READ)
            for sock in self._sockets:
                selector.register(sock, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fileobj is self._wake[0]:
                        return
                    assert isinstance(key.fileobj, socket.socket)
                    self._drain(key.fileobj)
        finally:
            selector.close()

    def _drain(self, sock: socket.socket) -> None:
        for _ in range(_DRAIN_PER_WAKE):
            try:
                # One byte more than allowed tells an oversized datagram from a full one.
                data, source = sock.recvfrom(MAX_READ_BYTES + 1)
            except BlockingIOError:
                return
            except ConnectionResetError:
                continue  # Windows reports an earlier reply's ICMP "port unreachable" here
            except OSError as err:
                if getattr(err, "winerror", None) == 10040:  # WSAEMSGSIZE: too large to read
                    self._count("received", "oversized")
                    continue
                raise
            self._handle(sock, data, source)

    def _handle(self, sock: socket.socket, data: bytes, source: tuple[object, ...]) -> None:
        now_ns = time.time_ns()
        if self._announce is not None and self._announce.wants(data):
            with self._lock:
                found = self._announce.reply(data, str(source[0]), time.monotonic_ns())
            if found is None:
                self._count("received", "over_rate")
            else:
                self._count("received", "announced")
                self._send(sock, found, source, "announced")
            return
        if len(data) > MAX_PROBE_BYTES:
            self._count("received", "oversized")
            return
        reply = answer(data, now_ns)
        if reply is None:
            self._count("received", "malformed")
            return
        with self._lock:
            refused = self._limiter.allow(str(source[0]), time.monotonic_ns())
        if refused:
            self._count("received", "over_rate" if refused == "source" else "over_global")
            return
        # Counted before sending, so that whoever holds the reply finds it counted.
        self._count("received", "answered")
        self._send(sock, reply, source, "answered")

    def _send(
        self, sock: socket.socket, reply: bytes, source: tuple[object, ...], count: str
    ) -> None:
        try:
            sock.sendto(reply, source)
        except OSError:
            # A full send buffer or an unreachable source: the probe is lost there.
            with self._lock:
                self._counts[count] -= 1

    def _count(self, *names: str) -> None:
        with self._lock:
            for name in names:
                self._counts[name] += 1
