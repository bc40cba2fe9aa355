"""The local iperf3 server and netserver LinkLab runs: for the Server tab, and for the
"This computer" peer that makes a first Start work with no second machine."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.domain.errors import LinkLabError
from app.domain.plan import DEFAULT_ECHO_PORT
from app.engine.discovery import announcing_responder
from app.engine.echo import EchoResponder
from app.engine.loopback import LoopbackServers
from app.engine.servers import LocalServer, ServerOptions, exposed, iperf3_server, netserver
from app.engine.tools import find_tool


class LocalServers(QObject):
    """Owns LinkLab's server processes. Log lines arrive from reader threads and are
    re-emitted as queued signals, so widgets only ever see them in the GUI thread."""

    log_line = Signal(str, str)  # (server name, line)
    state_changed = Signal()

    def __init__(self, loopback: LoopbackServers | None = None) -> None:
        super().__init__()
        self.iperf3: LocalServer | None = None
        self.netserver: LocalServer | None = None
        # Beside them, LinkLab's latency responder, which also answers Find computers.
        self.responder: EchoResponder | None = None
        self.echo_port = DEFAULT_ECHO_PORT
        self.pool: list[LocalServer] = []  # a class's stations: an iperf3 server each
        # "This computer": servers of its own, on the loopback only (the front door starts
        # them for a study; they stop with the window).
        self.loopback = loopback or LoopbackServers()

    def _log(self, name: str) -> Callable[[str], None]:
        return lambda line: self.log_line.emit(name, line)

    def start_iperf3(self, port: int, bind: str | None = None) -> LocalServer:
        self.stop_iperf3()
        # Others can reach this server: it has the default limits (longest test, idle restart).
        options = exposed(port, bind or None)
        server = iperf3_server(find_tool("iperf3"), options, on_log=self._log("iperf3"))
        server.start()
        self.iperf3 = server
        self._responder(bind)
        self.state_changed.emit()
        return server

    def start_netserver(self, port: int, bind: str | None = None) -> LocalServer:
        self.stop_netserver()
        server = netserver(
            find_tool("netserver"), ServerOptions(port, bind or None), on_log=self._log("netserver")
        )
        server.start()
        self.netserver = server
        self._responder(bind)
        self.state_changed.emit()
        return server

    def _responder(self, bind: str | None) -> None:
        """The responder runs while a server does (on the servers' address), so that another
        computer's Find computers lists this one and its latency probes are answered."""
        if self.iperf3 is None and self.netserver is None:
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
        servers = {"iperf3": self.iperf3, "netserver": self.netserver}
        return {name: s.port for name, s in servers.items() if s is not None}

    def stop_iperf3(self) -> None:
        if self.iperf3 is not None:
            self.iperf3.stop()
            self.iperf3 = None
            self._responder(None)
            self.state_changed.emit()

    def stop_netserver(self) -> None:
        if self.netserver is not None:
            self.netserver.stop()
            self.netserver = None
            self._responder(None)
            self.state_changed.emit()

    def start_pool(self, ports: list[int]) -> list[LocalServer]:
        """An iperf3 server on each port, with the limits of a server others reach."""
        self.stop_pool()
        tool = find_tool("iperf3")
        try:
            for port in ports:
                server = iperf3_server(
                    tool, exposed(port, None), on_log=self._log(f"iperf3:{port}")
                )
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
        self.stop_iperf3()
        self.stop_netserver()
