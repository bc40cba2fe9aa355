"""The local servers LinkLab runs, one set per engine (iperf3 -s, netserver, iperf 2's TCP and
UDP servers): for the Server tab, and for the "This computer" peer that makes a first Start
work with no second machine."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QObject, Signal

from app.domain.errors import LinkLabError
from app.domain.plan import DEFAULT_ECHO_PORT, Engine
from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS, main_server
from app.engine.latency.echo import EchoResponder
from app.engine.process.servers import LocalServer, start_all
from app.engine.serving.discovery import announcing_responder
from app.engine.serving.loopback import LoopbackServers

Drivers = Callable[[], Mapping[Engine, EngineDriver]]


class LocalServers(QObject):
    """Owns LinkLab's server processes. Log lines arrive from reader threads and are
    re-emitted as queued signals, so widgets only ever see them in the GUI thread."""

    log_line = Signal(str, str)  # (server name, line)
    state_changed = Signal()

    def __init__(
        self, loopback: LoopbackServers | None = None, drivers: Drivers | None = None
    ) -> None:
        super().__init__()
        self._drivers: Drivers = drivers or (lambda: DRIVERS)
        self._running: dict[Engine, list[LocalServer]] = {}
        # Beside them, LinkLab's latency responder, which also answers Find computers.
        self.responder: EchoResponder | None = None
        self.echo_port = DEFAULT_ECHO_PORT
        self.pool: list[LocalServer] = []  # a class's stations: a server each (main_driver)
        # "This computer": servers of its own, on the loopback only (the front door starts
        # them for a study; they stop with the window).
        self.loopback = loopback or LoopbackServers()

    def _log(self, name: str) -> Callable[[str], None]:
        return lambda line: self.log_line.emit(name, line)

    def servers(self, engine: Engine) -> list[LocalServer]:
        """The engine's servers LinkLab started here (none when stopped)."""
        return list(self._running.get(engine, []))

    def server(self, engine: Engine) -> LocalServer | None:
        """The engine's first server, or None."""
        return next(iter(self._running.get(engine, [])), None)

    def start(self, engine: Engine, port: int, bind: str | None = None) -> LocalServer:
        """Start the engine's server(s) on the port; others can reach them, so they have the
        engine's default limits (for iperf3: the longest test, an idle restart)."""
        self.stop(engine)
        driver = self._drivers()[engine]
        servers = driver.servers(driver.exposed(port, bind or None), self._log(driver.serve_name))
        started = start_all(servers)
        self._running[engine] = started
        self._responder(bind)
        self.state_changed.emit()
        return started[0]

    def stop(self, engine: Engine) -> None:
        servers = self._running.pop(engine, [])
        for server in servers:
            server.stop()
        if servers:
            self._responder(None)
            self.state_changed.emit()

    def _responder(self, bind: str | None) -> None:
        """The responder runs while a server does (on the servers' address), so that another
        computer's Find computers lists this one and its latency probes are answered."""
        if not self._running:
            if self.responder is not None:
                self.responder.stop()
                self.responder = None
            return
        if self.responder is not None:
            return
        responder = announcing_responder(self.echo_port, bind or None, self._engines)
        try:
            responder.start()
        except LinkLabError as err:
            self.log_line.emit("LinkLab", f"{err.sentence} Find computers will not list it.")
            return
        self.responder = responder
        self.log_line.emit(
            "LinkLab",
            f"Latency responder listening on UDP port {responder.port}: other computers' "
            f"Find computers lists this one.",
        )

    def _engines(self) -> dict[str, int]:
        """The running servers' ports by engine, as a peer's ports are kept (Peer.ports)."""
        drivers = self._drivers()
        return {
            drivers[engine].port_key: servers[0].port
            for engine, servers in list(self._running.items())
            if servers
        }

    def main_driver(self) -> EngineDriver:
        """The engine whose server a class's pool runs (drivers.main_server)."""
        return main_server(self._drivers())

    def start_pool(self, ports: list[int]) -> list[LocalServer]:
        """The main engine's server (drivers.main_server) on each port, with the limits of a
        server others reach."""
        self.stop_pool()
        driver = self.main_driver()
        try:
            for port in ports:
                log = self._log(f"{driver.serve_name}:{port}")
                for server in driver.servers(driver.exposed(port, None), log):
                    server.start()
                    self.pool.append(server)
        except BaseException:
            self.stop_pool()
            raise
        self.state_changed.emit()
        return self.pool

    def stop_pool(self) -> None:
        pool, self.pool = self.pool, []
        for server in pool:
            server.stop()
        if pool:
            self.state_changed.emit()

    def stop_all(self) -> None:
        self.stop_pool()
        self.loopback.stop()
        for engine in list(self._running):
            self.stop(engine)
