"""Servers for measuring against "This computer": iperf3 (and netserver) on the loopback only.

They listen on 127.0.0.1 and, when IPv6 is measured, on ::1 — never on an interface another
computer could reach — on ports free on both, started on demand and reused while they run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.domain.net import IpVersion
from app.engine.echo import EchoResponder
from app.engine.errors import EchoStartFailed, EngineError
from app.engine.netinfo import free_block, free_port, ipv6_available
from app.engine.servers import LocalServer, ServerOptions, ServerStartFailed, iperf3_server
from app.engine.servers import netserver as netserver_for
from app.engine.tools import find_tool

LOOPBACK = {IpVersion.V4: "127.0.0.1", IpVersion.V6: "::1"}
LogCallback = Callable[[str, str], None]  # (server name, line)


class LoopbackServers:
    """The iperf3 servers (count of them on consecutive ports, for concurrent series), the
    netserver and LinkLab's latency responder that a study against this computer talks to."""

    def __init__(self, on_log: LogCallback | None = None) -> None:
        self._on_log = on_log
        self._iperf3: list[LocalServer] = []
        self._netserver: list[LocalServer] = []
        self._shape: tuple[int, frozenset[IpVersion]] = (0, frozenset())
        self._netserver_versions: frozenset[IpVersion] = frozenset()
        self._echo: EchoResponder | None = None
        self._echo_versions: frozenset[IpVersion] = frozenset()

    @property
    def iperf3_port(self) -> int | None:
        return min((s.port for s in self._iperf3), default=None)

    @property
    def netserver_port(self) -> int | None:
        return min((s.port for s in self._netserver), default=None)

    @property
    def echo_port(self) -> int | None:
        """The latency responder's UDP port, while it runs."""
        return self._echo.port if self._echo is not None and self._echo.running else None

    @property
    def servers(self) -> list[LocalServer]:
        return [*self._iperf3, *self._netserver]

    @property
    def running(self) -> bool:
        return bool(self._iperf3) and all(s.running for s in self.servers)

    def ensure(
        self,
        iperf3_port: int,
        netserver_port: int,
        *,
        ip_versions: Iterable[IpVersion] = (IpVersion.V4,),
        need_netserver: bool = False,
        count: int = 1,
        echo_port: int | None = None,
    ) -> tuple[int, int]:
        """Start (or keep) the servers a study needs; returns the first iperf3 port and the
        netserver port (the preferred one when no netserver is needed). With echo_port, the
        latency responder runs too, on that port when it is free (see echo_port)."""
        versions = frozenset(ip_versions)
        if IpVersion.V6 in versions and not ipv6_available():
            raise EngineError(
                "IPv6 does not work on this computer's loopback (::1), so it cannot be "
                "measured against this computer: measure over IPv4, or enable IPv6."
            )
        if not (self.running and self._shape == (count, versions)):
            self._stop(self._iperf3)
            self._iperf3 = self._start_iperf3(iperf3_port, count, versions)
            self._shape = (count, versions)
        netserver_up = bool(self._netserver) and all(s.running for s in self._netserver)
        if need_netserver and not (netserver_up and self._netserver_versions == versions):
            self._stop(self._netserver)
            self._netserver = self._start_netserver(netserver_port, versions)
            self._netserver_versions = versions
        if echo_port is not None and not (self.echo_port and self._echo_versions == versions):
            self._start_echo(echo_port, versions)
        port = self.iperf3_port
        assert port is not None
        return port, self.netserver_port or netserver_port

    def stop(self) -> None:
        self._stop(self._iperf3)
        self._stop(self._netserver)
        self._iperf3, self._netserver = [], []
        self._shape = (0, frozenset())
        self._stop_echo()

    def _start_echo(self, preferred: int, versions: frozenset[IpVersion]) -> None:
        """The responder on the loopback of each IP version; left off when no port can be
        had (latency then falls back to connection times, saying so)."""
        self._stop_echo()
        addresses = [LOOPBACK[v] for v in sorted(versions)]
        iperf3_ports = {s.port for s in self._iperf3}
        for port in (preferred, 0):
            if port in iperf3_ports:
                continue  # an iperf3 UDP test binds its own port for UDP too
            responder = EchoResponder(port, addresses)
            try:
                responder.start()
            except EchoStartFailed:
                continue
            self._echo, self._echo_versions = responder, versions
            return

    def _stop_echo(self) -> None:
        if self._echo is not None:
            self._echo.stop()
        self._echo, self._echo_versions = None, frozenset()

    # -- starting --------------------------------------------------------------------------
    def _start_iperf3(
        self, preferred: int, count: int, versions: frozenset[IpVersion]
    ) -> list[LocalServer]:
        tool = find_tool("iperf3")

        def start(base: int) -> list[LocalServer]:
            return self._start_all(
                [
                    iperf3_server(tool, ServerOptions(base + i, LOOPBACK[v]), self._log("iperf3"))
                    for i in range(count)
                    for v in sorted(versions)
                ]
            )

        try:
            return start(free_block(preferred, count) if count > 1 else free_port(preferred))
        except ServerStartFailed:
            # Taken between the check and the start (another program): any free ports.
            return start(free_block(0, count) if count > 1 else free_port(0))

    def _start_netserver(self, preferred: int, versions: frozenset[IpVersion]) -> list[LocalServer]:
        tool = find_tool("netserver")

        def start(port: int) -> list[LocalServer]:
            return self._start_all(
                [
                    netserver_for(tool, ServerOptions(port, LOOPBACK[v]), self._log("netserver"))
                    for v in sorted(versions)
                ]
            )

        try:
            return start(free_port(preferred))
        except ServerStartFailed:
            return start(free_port(0))

    @staticmethod
    def _start_all(servers: list[LocalServer]) -> list[LocalServer]:
        started: list[LocalServer] = []
        try:
            for server in servers:
                server.start()
                started.append(server)
        except BaseException:
            LoopbackServers._stop(started)
            raise
        return started

    @staticmethod
    def _stop(servers: list[LocalServer]) -> None:
        for server in servers:
            server.stop()

    def _log(self, name: str) -> Callable[[str], None] | None:
        on_log = self._on_log
        if on_log is None:
            return None
        return lambda line: on_log(name, line)
