"""The Server tab: run the engines' local servers (iperf3, netserver, iperf 2), show the
addresses a peer should use, and log the tests served."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.engine.drivers.driver import EngineDriver
from app.engine.lan.netinfo import LocalAddress, local_addresses
from app.engine.process.servers import LocalServer, firewall_note
from app.ui.common.log_view import LogView
from app.ui.common.widgets import ComboBox, SpinBox, number_problem
from app.ui.context import AppContext
from app.ui.server.local_servers import LocalServers
from app.ui.server.pool import PoolControls

ALL_ADDRESSES = "All addresses"
LOG_BLOCKS = 2000
POLL_MS = 1000  # how often a server that ended on its own is noticed

W = TypeVar("W", bound=QWidget)


def named(widget: W, name: str) -> W:
    """The widget with an objectName, so tests and style sheets can find it."""
    widget.setObjectName(name)
    return widget


def show_status(label: QLabel, text: str, error: bool = False) -> None:
    """Plain text, or an error sentence in a red that reads on light and dark themes."""
    if error:
        dark = label.palette().color(QPalette.ColorRole.Window).lightness() < 128
        label.setStyleSheet(f"color: {'#ff7b7b' if dark else '#c62828'};")
    else:
        label.setStyleSheet("")
    label.setText(text)


class ServerControls(QGroupBox):
    """Port, bind address, Start/Stop and status of one engine's server."""

    logged = Signal(str, str)  # (server name, line) for the tab's log

    def __init__(
        self,
        driver: EngineDriver,
        context: AppContext,
        servers: LocalServers,
        parent: QWidget | None = None,
    ) -> None:
        self.title_text = driver.server_label
        super().__init__(self.title_text, parent)
        name = driver.serve_name
        self.setObjectName(f"{name}_group")
        self._driver = driver
        self._name = name
        self._program = driver.server_program
        self._context = context
        self._servers = servers
        self._port_key = driver.port_key
        self._default = context.default_port(self._port_key)
        self._error = ""
        self._missing = ""
        self._busy_text = ""
        option = driver.server_flags

        self.port = named(SpinBox(), f"{name}_port")
        self.port.setRange(1, 65535)
        self.port.setValue(self._default)
        self.port.setToolTip(
            f"The TCP/UDP port the {self.title_text} listens on ({self._program} {option[0]}). "
            f"Takes effect at the next Start; the peer must use the same port."
        )
        self.bind = named(ComboBox(), f"{name}_bind")
        self.bind.setEditable(True)
        self.bind.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        # As wide as the room gives, not as its longest address (a link-local IPv6 with its
        # interface): four servers' boxes and the class's stations share one row at 1280 px.
        self.bind.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.bind.setMinimumContentsLength(12)
        self.bind.setToolTip(
            f"The local address the {self.title_text} listens on ({self._program} {option[1]}). "
            f"{ALL_ADDRESSES}: every interface, IPv4 and IPv6. Takes effect at the next Start."
        )
        self.start_button = named(QPushButton("Start"), f"{name}_start")
        self.start_button.setToolTip(
            f"Starts {self._program} on this computer with the port and address."
        )
        self.stop_button = named(QPushButton("Stop"), f"{name}_stop")
        self.stop_button.setToolTip(f"Stops the {self.title_text} LinkLab started.")
        self.port.setAccessibleName(f"{self.title_text} port")
        self.bind.setAccessibleName(f"{self.title_text} address")
        self.start_button.setAccessibleName(f"Start the {self.title_text}")
        self.stop_button.setAccessibleName(f"Stop the {self.title_text}")
        self.status = named(QLabel(), f"{name}_status")
        self.status.setAccessibleName(f"{self.title_text} status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning = named(QLabel(), f"{name}_warning")
        self.warning.setWordWrap(True)
        self.warning.setVisible(False)

        grid = QGridLayout(self)
        grid.addWidget(QLabel("Port"), 0, 0)
        grid.addWidget(self.port, 0, 1, Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(QLabel("Listen on"), 1, 0)
        grid.addWidget(self.bind, 1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 2, 0, 1, 2)
        grid.addWidget(self.status, 3, 0, 1, 2)
        grid.addWidget(self.warning, 4, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(5, 1)

        self.start_button.clicked.connect(self._start)
        self.stop_button.clicked.connect(self._stop)
        self.probe_engine()

    def server(self) -> LocalServer | None:
        return self._servers.server(self._driver.engine)

    def set_addresses(self, addresses: list[LocalAddress]) -> None:
        """The bind choices: all addresses, then this computer's own (loopback included)."""
        current = self.bind.currentText()
        self.bind.clear()
        self.bind.addItem(ALL_ADDRESSES)
        for address in addresses:
            self.bind.addItem(address.address)
            self.bind.setItemData(
                self.bind.count() - 1,
                f"{address.interface}, {address.scope}",
                Qt.ItemDataRole.ToolTipRole,
            )
        self.bind.setCurrentText(current or ALL_ADDRESSES)

    def bind_address(self) -> str | None:
        text = self.bind.currentText().strip()
        return None if text in ("", ALL_ADDRESSES) else text

    def probe_engine(self) -> None:
        """Whether the engine is there (settings may have changed), and the iperf3 warning."""
        status = self._context.engine(self._program)
        self._missing = status.problem
        warning = self._driver.server_note(status.tool) if status.tool else None
        self.warning.setText(warning or "")
        self.warning.setVisible(bool(warning))
        self.refresh()

    def defaults_changed(self) -> None:
        """Follow a new default port unless the user already chose another one here."""
        new = self._context.default_port(self._port_key)
        if self.port.value() == self._default and self.server() is None:
            self.port.setValue(new)
        self._default = new

    def refresh(self) -> None:
        server = self.server()
        running = server is not None and all(
            s.running for s in self._servers.servers(self._driver.engine)
        )
        busy = bool(self._busy_text)
        if busy:
            show_status(self.status, self._busy_text)
        elif server is not None and running:
            self.port.setValue(server.port)
            show_status(self.status, f"Listening on port {server.port} (pid {server.pid})")
        elif server is not None:
            show_status(
                self.status,
                f"The {self.title_text} stopped on its own: start it again, and see the log "
                f"below for what it said last.",
                error=True,
            )
        elif self._error or self._missing:
            show_status(self.status, self._error or self._missing, error=True)
        else:
            show_status(self.status, "Stopped")
        # Missing engine: nothing to change here, unless a server still runs and needs Stop.
        self.setEnabled(not self._missing or server is not None)
        self.port.setEnabled(not running and not busy)
        self.bind.setEnabled(not running and not busy)
        self.start_button.setEnabled(not running and not busy and not self._missing)
        self.stop_button.setEnabled(server is not None and not busy)

    # -- actions: the server waits up to ~5 s for the port to listen --------------------------
    def _start(self) -> None:
        if problem := number_problem(self.port):  # never a port that was not typed
            self._error = f"The {self.title_text}'s port: {problem}"
            self.refresh()
            self.port.setFocus()
            return
        self._begin_busy("Starting…", self._start_now)

    def _stop(self) -> None:
        self._begin_busy("Stopping…", self._stop_now)

    def _begin_busy(self, text: str, action: Callable[[], None]) -> None:
        # Deferred, so that the status and the busy cursor show before the wait.
        self._error = ""
        self._busy_text = text
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        self.refresh()
        QTimer.singleShot(0, self, action)

    def _end_busy(self) -> None:
        self._busy_text = ""
        QApplication.restoreOverrideCursor()
        self.refresh()

    def _start_now(self) -> None:
        port, bind = self.port.value(), self.bind_address()
        try:
            server = self._servers.start(self._driver.engine, port, bind)
        except LinkLabError as err:
            self._error = err.sentence
        except OSError as err:  # the executable vanished or may not be run
            self._error = (
                f"The {self.title_text} could not be started ({err.strerror or err}): check "
                f"the {self._program} path in the Settings tab."
            )
        else:
            where = f" on {bind}" if bind else ""
            self.logged.emit(self._name, f"started on port {server.port}{where} (pid {server.pid})")
            if "--server-max-duration" in server.argv:
                self.logged.emit(self._name, "serves tests of up to an hour each")
            for note in server.notes:
                self.logged.emit(self._name, note)
            if firewall := firewall_note([server]):
                self.logged.emit(self._name, firewall)
        finally:
            self._end_busy()
        if self._error:
            self.logged.emit(self._name, self._error)

    def _stop_now(self) -> None:
        try:
            self._servers.stop(self._driver.engine)
        finally:
            self._end_busy()
        self.logged.emit(self._name, "stopped")


class ServerTab(QWidget):
    """The engines' local servers, the addresses to type on the peer, and the log of tests
    served."""

    def __init__(
        self, context: AppContext, servers: LocalServers, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._servers = servers
        servers.echo_port = context.default_port("echo")
        self.boxes = tuple(
            ServerControls(driver, context, servers, self) for driver in context.drivers.values()
        )

        self.addresses = named(QTableWidget(0, 3), "addresses")
        self.addresses.setHorizontalHeaderLabels(["Address", "Kind", ""])
        self.addresses.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.addresses.verticalHeader().setVisible(False)
        header = self.addresses.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.addresses.setToolTip(
            "This computer's addresses: type one as the peer address on the other computer."
        )
        self.no_addresses = named(
            QLabel(
                "No network interface is up: connect this computer to the network, then press "
                "Refresh."
            ),
            "addresses_none",
        )
        self.no_addresses.setWordWrap(True)
        hint = QLabel(
            "For a link-local IPv6 address (fe80::…), write the other computer's own interface "
            "after the %, e.g. %eth0 on Linux or %12 on Windows."
        )
        hint.setWordWrap(True)
        refresh = named(QPushButton("Refresh"), "addresses_refresh")
        refresh.setToolTip("Reads this computer's addresses again (after a cable or Wi-Fi change).")
        refresh.clicked.connect(self.refresh_addresses)
        address_box = QGroupBox("Addresses to type on the other computer")
        address_layout = QVBoxLayout(address_box)
        address_layout.addWidget(self.addresses, 1)
        address_layout.addWidget(self.no_addresses)
        address_layout.addWidget(hint)
        address_layout.addWidget(refresh, 0, Qt.AlignmentFlag.AlignRight)

        self.log = named(LogView(LOG_BLOCKS), "server_log")
        self.log.setAccessibleName("Server log")
        # Wrapped: the servers' notes and LinkLab's sentences about them (a server started
        # again, and why) are longer than the box is wide.
        self.log.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.log.setPlaceholderText("What the servers print appears here: each test they serve.")
        clear = named(QPushButton("Clear"), "server_log_clear")
        clear.setToolTip("Empties this log (the servers keep running).")
        clear.clicked.connect(self.log.clear)
        log_box = QGroupBox("Tests served")
        log_layout = QVBoxLayout(log_box)
        log_layout.addWidget(self.log, 1)
        log_layout.addWidget(clear, 0, Qt.AlignmentFlag.AlignRight)

        top = QHBoxLayout()
        for box in self.boxes:
            top.addWidget(box, 1)
        self.pool = PoolControls(servers)  # a server for each station of a class
        top.addWidget(self.pool, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(address_box, 2)
        bottom.addWidget(log_box, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(bottom, 1)

        for box in self.boxes:
            box.logged.connect(self.append_log)
        servers.log_line.connect(self.append_log)
        servers.state_changed.connect(self.refresh)
        context.settings_changed.connect(self._settings_changed)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.refresh)
        self._poll.start()
        self.refresh_addresses()

    def refresh(self) -> None:
        for box in self.boxes:
            box.refresh()

    def append_log(self, name: str, line: str) -> None:
        self.log.appendPlainText(f"{datetime.now():%H:%M:%S}  {name}  {line}")

    def refresh_addresses(self) -> None:
        peers = local_addresses()
        self.addresses.setRowCount(len(peers))
        for row, address in enumerate(peers):
            item = QTableWidgetItem(address.address)
            item.setToolTip("Select and press Ctrl+C, or use Copy.")
            self.addresses.setItem(row, 0, item)
            kind = f"IPv{address.version}, {address.scope}, {address.interface}"
            self.addresses.setItem(row, 1, QTableWidgetItem(kind))
            copy = named(QPushButton("Copy"), f"copy_address_{row}")
            copy.setToolTip(f"Copies {address.address} to the clipboard.")
            copy.clicked.connect(lambda _=False, text=address.address: self._copy(text))
            self.addresses.setCellWidget(row, 2, copy)
        self.addresses.resizeRowsToContents()
        self.addresses.setVisible(bool(peers))
        self.no_addresses.setVisible(not peers)
        with_loopback = local_addresses(include_loopback=True)
        for box in self.boxes:
            box.set_addresses(with_loopback)

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)

    def _settings_changed(self) -> None:
        self._servers.echo_port = self._context.default_port("echo")
        for box in self.boxes:
            box.defaults_changed()
            box.probe_engine()
