"""The peer field: "This computer" or a host from history, its ports, and Check peer."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.engine.peercheck import PeerCheck, check_peer
from app.study.plan import Peer
from app.ui.local_servers import THIS_COMPUTER

LOOPBACK4, LOOPBACK6 = "127.0.0.1", "::1"


class _CheckSignals(QObject):
    done = Signal(object)  # PeerCheck


class PeerRow(QWidget):
    changed = Signal()

    def __init__(self, history: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.host_combo = QComboBox()
        self.host_combo.setEditable(True)
        self.host_combo.setObjectName("peer")
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
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(5201)
        self.port.setToolTip("The iperf3 server's port (iperf3 -p).")
        self.netperf_port = QSpinBox()
        self.netperf_port.setRange(1, 65535)
        self.netperf_port.setValue(12865)
        self.netperf_port.setToolTip("The netserver's port (netperf -p).")
        self.host6 = QLineEdit()
        self.host6.setPlaceholderText("the peer's IPv6 address, if Host is IPv4")
        self.host6.setToolTip(
            "Used for the IPv6 series when the peer above is an IPv4 "
            "address (for example fe80::20%eth0)."
        )
        self.check_button = QPushButton("Check peer")
        self.check_button.setObjectName("check_peer")
        self.check_button.setToolTip(
            "Resolve the name, see whether an iperf3 server and a "
            "netserver answer, and measure a round trip."
        )
        self.check_result = QLabel()
        self.check_result.setObjectName("check_result")
        self.check_result.setWordWrap(True)
        for spin in (self.port, self.netperf_port):
            spin.setMaximumWidth(90)
        self.host6.setMinimumWidth(120)
        grid.addWidget(QLabel("Host"), 0, 0)
        grid.addWidget(self.host_combo, 0, 1, 1, 4)
        grid.addWidget(QLabel("Ports"), 1, 0)
        grid.addWidget(QLabel("iperf3"), 1, 1)
        grid.addWidget(self.port, 1, 2)
        grid.addWidget(QLabel("netserver"), 1, 3)
        grid.addWidget(self.netperf_port, 1, 4)
        grid.addWidget(QLabel("IPv6"), 2, 0)
        grid.addWidget(self.host6, 2, 1, 1, 4)
        grid.addWidget(self.check_button, 3, 0, 1, 2)
        grid.addWidget(self.check_result, 3, 2, 1, 3)
        grid.setColumnStretch(2, 1)
        grid.setColumnStretch(4, 1)
        self.host_combo.editTextChanged.connect(self._host_changed)
        self.port.valueChanged.connect(self.changed)
        self.netperf_port.valueChanged.connect(self.changed)
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
        # For this computer LinkLab picks free ports itself (shown in the command line).
        self.port.setEnabled(not local)
        self.netperf_port.setEnabled(not local)
        self.check_result.setText("A local server is started for you." if local else "")
        self.changed.emit()

    def peer(self) -> Peer:
        if self.is_this_computer:
            return Peer(
                LOOPBACK4,
                self.port.value(),
                self.netperf_port.value(),
                THIS_COMPUTER,
                host6=LOOPBACK6,
            )
        return Peer(
            self.host_combo.currentText().strip(),
            self.port.value(),
            self.netperf_port.value(),
            host6=self.host6.text().strip(),
        )

    def set_peer(self, peer: Peer) -> None:
        text = THIS_COMPUTER if peer.name == THIS_COMPUTER else peer.host
        self.host_combo.setEditText(text)
        self.port.setValue(peer.iperf3_port)
        self.netperf_port.setValue(peer.netperf_port)
        self.host6.setText("" if peer.name == THIS_COMPUTER else peer.host6)

    def check(self) -> None:
        peer = self.peer()
        self.check_button.setEnabled(False)
        self.check_result.setText(f"Checking {peer.host}…")
        signals = self._check_signals
        threading.Thread(
            target=lambda: signals.done.emit(
                check_peer(peer.host, peer.iperf3_port, peer.netperf_port)
            ),
            name="check-peer",
            daemon=True,
        ).start()

    def _checked(self, result: PeerCheck) -> None:
        self.check_button.setEnabled(True)
        self.check_result.setText(result.summary)
