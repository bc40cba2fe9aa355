"""The local iperf3 server and netserver LinkLab runs: for the Server tab, and for the
"This computer" peer that makes a first Start work with no second machine."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.engine.netinfo import free_block, free_port
from app.engine.servers import (
    LocalServer,
    ServerOptions,
    ServerStartFailed,
    iperf3_server,
    netserver,
)
from app.engine.tools import find_tool

THIS_COMPUTER = "This computer"


class LocalServers(QObject):
    """Owns LinkLab's server processes. Log lines arrive from reader threads and are
    re-emitted as queued signals, so widgets only ever see them in the GUI thread."""

    log_line = Signal(str, str)  # (server name, line)
    state_changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.iperf3: LocalServer | None = None
        self.netserver: LocalServer | None = None
        self.extra_iperf3: list[LocalServer] = []  # more servers, for concurrent series

    def _log(self, name: str) -> Callable[[str], None]:
        return lambda line: self.log_line.emit(name, line)

    def start_iperf3(self, port: int, bind: str | None = None) -> LocalServer:
        self.stop_iperf3()
        server = iperf3_server(
            find_tool("iperf3"), ServerOptions(port, bind or None), on_log=self._log("iperf3")
        )
        server.start()
        self.iperf3 = server
        self.state_changed.emit()
        return server

    def start_netserver(self, port: int, bind: str | None = None) -> LocalServer:
        self.stop_netserver()
        server = netserver(
            find_tool("netserver"), ServerOptions(port, bind or None), on_log=self._log("netserver")
        )
        server.start()
        self.netserver = server
        self.state_changed.emit()
        return server

    def stop_iperf3(self) -> None:
        if self.iperf3 is not None:
            self.iperf3.stop()
            self.iperf3 = None
            self.state_changed.emit()

    def stop_netserver(self) -> None:
        if self.netserver is not None:
            self.netserver.stop()
            self.netserver = None
            self.state_changed.emit()

    def stop_all(self) -> None:
        self.stop_extra()
        self.stop_iperf3()
        self.stop_netserver()

    def stop_extra(self) -> None:
        for server in self.extra_iperf3:
            server.stop()
        self.extra_iperf3 = []

    def ensure_for_this_computer(
        self, iperf3_port: int, netperf_port: int, need_netserver: bool, count: int = 1
    ) -> tuple[int, int]:
        """Servers for a loopback study: reuse running ones, else start them on free ports
        (count iperf3 servers on consecutive ports, for concurrent series). Returns the
        (first iperf3, netserver) ports to use."""
        if count > 1:
            self.stop_extra()
            self.stop_iperf3()
            base = free_block(iperf3_port, count)
            self.start_iperf3(base)
            tool = find_tool("iperf3")
            for offset in range(1, count):
                server = iperf3_server(
                    tool, ServerOptions(base + offset), on_log=self._log("iperf3")
                )
                server.start()
                self.extra_iperf3.append(server)
        elif self.iperf3 is None or not self.iperf3.running:
            try:
                self.start_iperf3(free_port(iperf3_port))
            except ServerStartFailed:
                # Taken between the check and the start (another LinkLab): any free port.
                self.start_iperf3(free_port(0))
        assert self.iperf3 is not None
        ns_port = self.netserver.port if self.netserver and self.netserver.running else 0
        if need_netserver and not ns_port:
            try:
                ns_port = self.start_netserver(free_port(netperf_port)).port
            except ServerStartFailed:
                ns_port = self.start_netserver(free_port(0)).port
        return self.iperf3.port, ns_port or netperf_port
