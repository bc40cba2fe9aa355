"""A server held by a client without progress: what tells a stalled connection from a test
under way, looked at from outside the server.

An engine's server that serves one client at a time (iperf3) can be held by one connection
that never completes its handshake: iperf3 before 3.15 waits for ever for the rest of a
client's first bytes (CVE-2023-7250), and while it waits, every other client's test times
out. From outside, such a server holds a connection on its port and makes no progress: it
reads nothing, writes nothing and prints nothing. A test under way always moves something,
even when its link carries nothing for a while: the data it reads or sends, and the interval
reports the server prints (it prints "0.00 bits/sec" for an interval that carried nothing).

So the rule is: a server that holds a client's connection and has, for `after_s`, neither
read nor written a byte (psutil's I/O counters of the process, which count its sockets and
its output alike) nor printed a line is stalled. A client that trickles a byte now and then
is seen as progress and is not caught: the engine's own fix (iperf3 3.15's 30-s bound on a
read) is what ends it.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

import psutil

#: How long a connection may hold a server without progress by default: a handshake on a
#: working link takes well under a second, and iperf3 3.15 gives each read 10 s.
STALL_S = 10.0
#: How often a watched server is looked at.
LOOK_EVERY_S = 1.0


@dataclass(frozen=True)
class StallRule:
    """That a server is watched, how long it may be held without progress, and what the
    engine's driver says of it when LinkLab restarts it (why it can be held, what fixes it)."""

    after_s: float
    why: str = ""


@dataclass(frozen=True)
class Look:
    """One look at a server from outside."""

    clients: tuple[str, ...]  # the far ends of the connections it holds on its port
    io_bytes: int | None  # bytes it has read and written so far; None where not counted


def client_words(host: str, port: int) -> str:
    """A far end as sentences name it: "127.0.0.1 port 58296" (a v4-mapped IPv6 address as
    its IPv4 address)."""
    return f"{host.removeprefix('::ffff:')} port {port}"


def look(pid: int, port: int) -> Look | None:
    """The connections the process holds on its TCP port and its I/O so far; None when it is
    gone or the system does not let this user look."""
    try:
        process = psutil.Process(pid)
        clients = tuple(
            client_words(conn.raddr.ip, conn.raddr.port)
            for conn in process.net_connections(kind="tcp")
            if conn.laddr
            and conn.laddr.port == port
            and conn.raddr
            and conn.type == socket.SOCK_STREAM
        )
        return Look(clients, _io_bytes(process))
    except psutil.Error:
        return None


def _io_bytes(process: psutil.Process) -> int | None:
    """Every byte through the process's reads and writes (its sockets and pipes included):
    Linux's read_chars and write_chars, Windows' read, write and other bytes; None on a
    system that does not count them (macOS), where its printed lines alone are progress."""
    if not hasattr(process, "io_counters"):
        return None
    try:
        counters = process.io_counters()
    except (psutil.AccessDenied, NotImplementedError):
        return None
    fields: tuple[str, ...] = ("read_bytes", "write_bytes", "other_bytes")
    if hasattr(counters, "read_chars"):
        fields = ("read_chars", "write_chars")
    return sum(int(getattr(counters, name, 0)) for name in fields)


class Progress:
    """When a held server last made progress, from the looks at it and the lines it
    printed: `seen` returns how long it has been held without progress once that reaches
    the rule's time, else None. Times are the caller's steady clock."""

    def __init__(self, after_s: float) -> None:
        self.after_s = after_s
        self._since: float | None = None  # when the current hold last made progress
        self._io: int | None = None

    def printed(self, now: float) -> None:
        """The server printed a line."""
        if self._since is not None:
            self._since = now

    def seen(self, seen: Look, now: float) -> float | None:
        moved = seen.io_bytes != self._io
        self._io = seen.io_bytes
        if not seen.clients:
            self._since = None  # nobody holds it: nothing to wait for
            return None
        if self._since is None or moved:
            self._since = now
            return None
        held = now - self._since
        return held if held >= self.after_s else None
