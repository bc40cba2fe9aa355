"""The collector's HTTP server: waitress's, bounded so that no client can stall it for the
others. One address holds at most a few connections at once (more are closed as they are
accepted); a request must arrive whole within a deadline (its headers within seconds, its body
at a slow link's pace at least); a connection that sends nothing is closed after a short
while. Honest stations send one request at a time, well within all three, and are accepted
while another client holds every connection it may."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

__all__ = ["Bounds", "GuardedServer", "guarded_server"]


@dataclass(frozen=True)
class Bounds:
    """What one client may hold of the collector."""

    per_address: int = 32  # connections open at once from one address
    headers_s: float = 10.0  # a request's line and headers arrive within this
    body_bytes_per_s: float = 32_768.0  # its body at least this fast (8 MB in about 4 min)
    idle_s: float = 15.0  # a connection with no request under way is closed after this
    check_every_s: float = 1.0  # how often the connections are looked at


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that knows when its request under way began."""

    request_began = 0.0

    def received(self, data: bytes) -> bool:
        if data and self.request is None:
            self.request_began = time.time()
        return bool(super().received(data))

    def overdue(self, now: float, bounds: Bounds) -> bool:
        """Whether the request under way has taken longer than a slow, honest one would."""
        request = self.request
        if request is None or request.completed:
            return False
        allowed = bounds.headers_s
        if request.headers_finished:
            allowed += max(0, request.content_length) / bounds.body_bytes_per_s
        return now - self.request_began > allowed


class GuardedServer(TcpWSGIServer):  # type: ignore[misc]
    """waitress's TCP server with the bounds above."""

    channel_class = GuardedChannel

    def __init__(
        self, *args: Any, bounds: Bounds, on_log: Callable[[str], None], **kw: Any
    ) -> None:
        self.bounds = bounds
        self._on_log = on_log
        self._told: dict[tuple[str, str], float] = {}  # (address, what) -> when last logged
        self._told_lock = threading.Lock()
        super().__init__(*args, **kw)

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
        except OSError:
            return
        if accepted is None:
            return
        conn, addr = accepted
        host = str(addr[0]) if isinstance(addr, tuple) else str(addr)
        held = sum(1 for c in list(self.active_channels.values()) if _host(c.addr) == host)
        if held >= self.bounds.per_address:
            _close(conn)
            self._say_once(
                (host, "held"),
                f"closed a connection from {host}: it holds {held} open already (a station "
                f"sends one request at a time)",
            )
            return
        try:
            self.set_socket_options(conn)
        except OSError:
            _close(conn)
            return
        self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # closes connections idle past adj.channel_timeout
        for channel in list(self.active_channels.values()):
            if isinstance(channel, GuardedChannel) and channel.overdue(now, self.bounds):
                channel.will_close = True
                host = _host(channel.addr)
                self._say_once(
                    (host, "late"), f"closed a request from {host} that never arrived whole"
                )

    def _say_once(self, what: tuple[str, str], line: str) -> None:
        """Log a refusal at most once a minute per address and kind (a flood must not flood
        the log)."""
        now = time.monotonic()
        with self._told_lock:
            if now - self._told.get(what, -60.0) < 60.0:
                return
            self._told[what] = now
            if len(self._told) > 4096:
                self._told.clear()
        self._on_log(line)


def guarded_server(
    app: Callable[..., Any],
    *,
    host: str,
    port: int,
    threads: int,
    connection_limit: int,
    bounds: Bounds,
    on_log: Callable[[str], None],
    **adjustments: Any,
) -> GuardedServer:
    """A listening server (not yet served: its map is looped by the caller), as waitress's
    create_server makes one for a single address."""
    adj = Adjustments(
        host=host,
        port=port,
        threads=threads,
        connection_limit=connection_limit,
        channel_timeout=bounds.idle_s,
        cleanup_interval=bounds.check_every_s,
        **adjustments,
    )
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    (sockinfo,) = adj.listen[:1] or [(socket.AF_INET, socket.SOCK_STREAM, 6, (host, port))]
    return GuardedServer(
        app, {}, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo, bounds=bounds, on_log=on_log
    )


def _host(addr: object) -> str:
    return str(addr[0]) if isinstance(addr, tuple) and addr else str(addr)


def _close(conn: socket.socket) -> None:
    try:
        conn.close()
    except OSError:
        pass
