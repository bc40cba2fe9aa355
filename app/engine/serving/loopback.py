"""Servers for measuring against "This computer": the chosen engine's (iperf3 -s, netserver, …)
on the loopback only.

They listen on 127.0.0.1 and, when IPv6 is measured, on ::1 — never on an interface another
computer could reach — on ports free on both, started on demand and reused while they run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from app.domain.net import IpVersion
from app.domain.plan import Engine
from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import EchoStartFailed, EngineError
from app.engine.lan.netinfo import free_block, free_port, ipv6_available
from app.engine.latency.echo import EchoResponder
from app.engine.process.servers import (
    LocalServer,
    ServerRestarted,
    ServerStartFailed,
    port_holder,
)

LOOPBACK = {IpVersion.V4: "127.0.0.1", IpVersion.V6: "::1"}
LogCallback = Callable[[str, str], None]  # (server name, line)


class LoopbackServers:
    """The servers a study against this computer talks to: per engine, count of them on
    consecutive ports (for concurrent series) on the loopback of each IP version measured, and
    LinkLab's latency responder."""

    def __init__(
        self,
        on_log: LogCallback | None = None,
        drivers: Mapping[Engine, EngineDriver] | None = None,
    ) -> None:
        self.drivers = DRIVERS if drivers is None else drivers
        self._on_log = on_log
        self._servers: dict[Engine, list[LocalServer]] = {}
        # Per engine: how many servers, on which loopbacks, reporting at which interval.
        self._shapes: dict[Engine, tuple[int, frozenset[IpVersion], float | None]] = {}
        self._echo: EchoResponder | None = None
        self._echo_versions: frozenset[IpVersion] = frozenset()

    def port(self, engine: Engine) -> int | None:
        """The first port of an engine's servers, while they run."""
        return min((s.port for s in self._servers.get(engine, [])), default=None)

    @property
    def echo_port(self) -> int | None:
        """The latency responder's UDP port, while it runs."""
        return self._echo.port if self._echo is not None and self._echo.running else None

    @property
    def servers(self) -> list[LocalServer]:
        return [server for servers in self._servers.values() for server in servers]

    def restarts(self) -> list[ServerRestarted]:
        """Every restart of a server that a client held without progress, oldest first."""
        return sorted((r for s in self.servers for r in s.restarts), key=lambda r: r.at)

    def ports(self) -> dict[str, int]:
        """The ports in use, by the engines' port keys (as a peer's ports)."""
        found = {}
        for engine in self._servers:
            port = self.port(engine)
            if port is not None:
                found[self.drivers[engine].port_key] = port
        return found

    def _running(self, engine: Engine) -> bool:
        servers = self._servers.get(engine, [])
        return bool(servers) and all(s.running for s in servers)

    def ensure(
        self,
        engine: Engine,
        preferred_port: int,
        *,
        ip_versions: Iterable[IpVersion] = (IpVersion.V4,),
        count: int = 1,
        echo_port: int | None = None,
        interval_s: float | None = None,
    ) -> int:
        """Start (or keep) the engine's servers a study needs; returns their first port (the
        preferred one when free). With echo_port, the latency responder runs too, on that port
        when it is free (see echo_port). With interval_s, a server that reports intervals of
        its own (iperf3's, joined in when a run ends) reports at the study's interval."""
        versions = frozenset(ip_versions)
        if IpVersion.V6 in versions and not ipv6_available():
            raise EngineError(
                "IPv6 does not work on this computer's loopback (::1), so it cannot be "
                "measured against this computer: measure over IPv4, or enable IPv6."
            )
        shape = (count, versions, interval_s)
        if not (self._running(engine) and self._shapes.get(engine) == shape):
            self._stop(self._servers.pop(engine, []))
            self._servers[engine] = self._start(engine, preferred_port, shape)
            self._shapes[engine] = shape
        if echo_port is not None and not (self.echo_port and self._echo_versions == versions):
            self._start_echo(echo_port, versions)
        port = self.port(engine)
        assert port is not None
        return port

    def moved(self, engine: Engine, preferred_port: int) -> str | None:
        """A sentence when the engine's servers listen on another port than the one asked for
        (the one asked for was in use here), naming what holds it; None otherwise."""
        port = self.port(engine)
        if port is None or port == preferred_port:
            return None
        holder = port_holder(preferred_port)
        label = self.drivers[engine].server_label
        return (
            f"Port {preferred_port} on this computer is in use by "
            f"{holder or 'another program'}, so this computer's {label} listens on port "
            f"{port} for this study."
        )

    def stop(self) -> None:
        for servers in self._servers.values():
            self._stop(servers)
        self._servers, self._shapes = {}, {}
        self._stop_echo()

    def _start_echo(self, preferred: int, versions: frozenset[IpVersion]) -> None:
        """The responder on the loopback of each IP version; left off when no port can be
        had (latency then falls back to connection times, saying so)."""
        self._stop_echo()
        addresses = [LOOPBACK[v] for v in sorted(versions)]
        # An iperf3 (or iperf 2) UDP test binds its server's port for UDP too.
        taken = {s.port for s in self.servers}
        for port in (preferred, 0):
            if port in taken:
                continue
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
    def _start(
        self,
        engine: Engine,
        preferred: int,
        shape: tuple[int, frozenset[IpVersion], float | None],
    ) -> list[LocalServer]:
        driver = self.drivers[engine]
        count, versions, interval_s = shape
        log = self._log(driver.server_program)

        def start(base: int) -> list[LocalServer]:
            return self._start_all(
                [
                    server
                    for i in range(count)
                    for v in sorted(versions)
                    for server in driver.servers(
                        driver.loopback(base + i, LOOPBACK[v], interval_s), log
                    )
                ]
            )

        try:
            return start(free_block(preferred, count) if count > 1 else free_port(preferred))
        except ServerStartFailed:
            # Taken between the check and the start (another program): any free ports.
            return start(free_block(0, count) if count > 1 else free_port(0))

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
