"""The peer field: "This computer" or a host from history, its ports, and Check peer."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.domain.plan import THIS_COMPUTER, Peer
from app.engine.drivers import DRIVERS, peer_servers
from app.engine.peercheck import PeerCheck, check_peer
from app.ui.common.widgets import ERROR_COLOUR, ComboBox, SpinBox, accessible

LOOPBACK4, LOOPBACK6 = "127.0.0.1", "::1"
HOST6_HINT = "only when the peer above is an IPv4 address"
LOCAL_NOTE = (
    "LinkLab starts its own servers on this computer's loopback, so Start works right away. "
    "To measure another computer, type its name or address (Help › LinkLab guide)."
)
PORTS_TIP_LOCAL = (
    "LinkLab's own servers for this computer listen on the loopback only, on free ports it "
    "picks at Start; the ports in use are shown here."
)


class _CheckSignals(QObject):
    done = Signal(object)  # PeerCheck


class PeerRow(QWidget):
    changed = Signal()
    answered = Signal(str)  # Check peer found the host's server: its host

    def __init__(self, history: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.host_combo = ComboBox()
        self.host_combo.setEditable(True)
        self.host_combo.setObjectName("peer")
        self.host_combo.setInsertPolicy(ComboBox.InsertPolicy.NoInsert)
        accessible(self.host_combo, "Peer")
        self.host_combo.addItem(THIS_COMPUTER)
        for host in history:
            if host != THIS_COMPUTER:
                self.host_combo.addItem(host)
        self.host_combo.setToolTip(
            'The computer to measure against (iperf3 -c HOST). "This computer" runs a local '
            "server so a first Start works with no second machine; for another PC, run "
            "LinkLab there and open its Server tab, or run iperf3 -s."
        )
        edit = self.host_combo.lineEdit()
        assert edit is not None  # the combo is editable
        self.host_edit: QLineEdit = edit
        accessible(self.host_edit, "Peer")
        # One port per engine's server, by the engine's port key.
        self.ports: dict[str, SpinBox] = {}
        self._port_tips: dict[str, str] = {}
        self._port_labels: dict[str, str] = {}
        for driver in DRIVERS.values():
            spin = SpinBox()
            spin.setRange(1, 65535)
            spin.setValue(driver.default_port)
            spin.setMinimumWidth(72)  # five digits; three ports fit beside the peer
            accessible(spin, f"{driver.port_label} port")
            self.ports[driver.port_key] = spin
            self._port_labels[driver.port_key] = driver.port_label
            self._port_tips[driver.port_key] = (
                f"The {driver.server_label}'s port on the peer ({driver.port_flags_text})."
            )
        self.host6 = QLineEdit()
        self.host6.setPlaceholderText(HOST6_HINT)
        accessible(self.host6, "Peer IPv6 address")
        self.host6.setToolTip(
            "Used for the IPv6 series when the peer above is an IPv4 "
            "address (for example fe80::20%eth0)."
        )
        self.check_button = QPushButton("Check peer")
        self.check_button.setObjectName("check_peer")
        self.check_button.setToolTip(
            "Resolve the name, see whether the engines' servers ("
            + ", ".join(d.server_label for d in DRIVERS.values())
            + ") answer, and measure a round trip."
        )
        self.check_result = QLabel()
        self.check_result.setObjectName("check_result")
        self.check_result.setAccessibleName("Peer check")
        self.check_result.setWordWrap(True)
        host_label = QLabel("&Peer")
        host_label.setBuddy(self.host_combo)
        grid.addWidget(host_label, 0, 0)
        grid.addWidget(self.host_combo, 0, 1)
        grid.addWidget(self.check_button, 0, 2)
        ports = QHBoxLayout()
        ports.setContentsMargins(0, 0, 0, 0)
        for key, spin in self.ports.items():
            label = QLabel(self._port_labels[key])
            label.setBuddy(spin)
            ports.addWidget(label)
            ports.addWidget(spin)
        ports.addStretch(1)
        grid.addWidget(QLabel("Ports"), 1, 0)
        grid.addLayout(ports, 1, 1, 1, 2)
        ipv6_label = QLabel("IPv6 address")
        ipv6_label.setBuddy(self.host6)
        grid.addWidget(ipv6_label, 2, 0)
        grid.addWidget(self.host6, 2, 1, 1, 2)
        grid.addWidget(self.check_result, 3, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        self.host_combo.editTextChanged.connect(self._host_changed)
        for spin in self.ports.values():
            spin.valueChanged.connect(self.changed)
        self.host6.textChanged.connect(self.changed)
        self.check_button.clicked.connect(self.check)
        self._check_signals = _CheckSignals()
        self._check_signals.done.connect(self._checked)
        self._host_changed()

    @property
    def is_this_computer(self) -> bool:
        return self.host_combo.currentText().strip() in ("", THIS_COMPUTER)

    def _host_changed(self) -> None:
        local = self.is_this_computer
        self.host6.setEnabled(not local)
        # A disabled field's hint would read like a value.
        self.host6.setPlaceholderText("" if local else HOST6_HINT)
        # For this computer LinkLab picks free ports itself, shown once its servers run.
        for key, spin in self.ports.items():
            spin.setEnabled(not local)
            spin.setToolTip(PORTS_TIP_LOCAL if local else self._port_tips[key])
        self.show_note(LOCAL_NOTE if local else "")
        self.changed.emit()

    def show_note(self, text: str) -> None:
        self.check_result.setStyleSheet("")
        self.check_result.setText(text)

    def show_problem(self, sentence: str) -> None:
        """A reason the peer cannot be used, in red, right under the peer field."""
        self.check_result.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.check_result.setText(sentence)

    def show_ports(self, ports: Mapping[str, int]) -> None:
        """The ports this computer's own servers listen on (for "This computer")."""
        for key, port in ports.items():
            if key in self.ports:
                self.ports[key].setValue(port)

    def port_values(self) -> dict[str, int]:
        return {key: spin.value() for key, spin in self.ports.items()}

    def peer(self) -> Peer:
        if self.is_this_computer:
            return Peer(LOOPBACK4, self.port_values(), THIS_COMPUTER, host6=LOOPBACK6)
        return Peer(
            self.host_combo.currentText().strip(),
            self.port_values(),
            host6=self.host6.text().strip(),
        )

    def set_peer(self, peer: Peer) -> None:
        text = THIS_COMPUTER if peer.name == THIS_COMPUTER else peer.host
        self.host_combo.setEditText(text)
        for driver in DRIVERS.values():
            self.ports[driver.port_key].setValue(driver.peer_port(peer))
        self.host6.setText("" if peer.name == THIS_COMPUTER else peer.host6)

    def remember(self, host: str) -> None:
        """Put a host that answered first in the list (typos never get there)."""
        index = self.host_combo.findText(host)
        if index == 0:
            return  # "This computer"
        text = self.host_combo.currentText()
        self.host_combo.blockSignals(True)
        try:
            if index > 0:
                self.host_combo.removeItem(index)
            self.host_combo.insertItem(1, host)
            self.host_combo.setCurrentIndex(-1)
            self.host_combo.setEditText(text)
        finally:
            self.host_combo.blockSignals(False)

    def check(self) -> None:
        peer = self.peer()
        self.check_button.setEnabled(False)
        self.show_note(f"Checking {peer.host}…")
        signals = self._check_signals
        threading.Thread(
            target=lambda: signals.done.emit(check_peer(peer.host, peer_servers(peer))),
            name="check-peer",
            daemon=True,
        ).start()

    def _checked(self, result: PeerCheck) -> None:
        self.check_button.setEnabled(True)
        if result.problem:
            self.show_problem(result.summary)
        else:
            self.show_note(result.summary)
            self.answered.emit(result.host)
