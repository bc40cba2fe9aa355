"""The peer field: "This computer" or a host from history, its ports, and Check peer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.domain.plan import THIS_COMPUTER, Peer
from app.engine.drivers.registry import DRIVERS, default_driver, peer_servers, phrase
from app.engine.lan.peercheck import PeerCheck, check_peer
from app.engine.serving.discovery import FoundPeer
from app.ui.common.widgets import ERROR_COLOUR, ComboBox, SpinBox, accessible, number_problem
from app.ui.common.worker import Worker, once
from app.ui.measure.peer_finder import FOUND_ROLE, PeerFinder, details

if TYPE_CHECKING:
    from app.ui.context import AppContext

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


class PeerRow(QWidget):
    changed = Signal()
    answered = Signal(str)  # Check peer found the host's server: its host
    #: A problem shown under the field went (the peer changed, or answered): its sentence,
    #: for whatever else said it (the status bar) to take back.
    problem_gone = Signal(str)

    def __init__(self, history: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.host_combo = ComboBox()
        self.host_combo.setEditable(True)
        self.host_combo.setObjectName("peer")
        self.host_combo.setInsertPolicy(ComboBox.InsertPolicy.NoInsert)
        # As wide as the pane gives it, never as wide as its longest item: a found computer's
        # name, address and engines would widen the page past its pane and cut the buttons
        # beside it (its drop-down list is widened to read them whole instead).
        self.host_combo.setSizeAdjustPolicy(
            ComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.host_combo.setMinimumContentsLength(8)
        accessible(self.host_combo, "Peer")
        self.host_combo.addItem(THIS_COMPUTER)
        for host in history:
            if host != THIS_COMPUTER:
                self.host_combo.addItem(host)
        self.host_combo.setToolTip(
            f'The computer to measure against ({phrase("client")}). "This computer" runs a '
            "local server so a first Start works with no second machine; for another PC, run "
            f"LinkLab there and open its Server tab, or run {default_driver().server_command}."
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
            # A port is typed, not stepped: without arrows, five digits take little room, so
            # three ports fit beside the peer in any system font at 1280x800.
            spin.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
            spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance("65535") + 14)
            accessible(spin, f"{driver.port_label} port")
            self.ports[driver.port_key] = spin
            self._port_labels[driver.port_key] = driver.port_label
            self._port_tips[driver.port_key] = (
                f"The {driver.server_label}'s port on the peer ({driver.port_flags_text})."
            )
        self.host6 = _HintEdit(HOST6_HINT)
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
        self.finder = PeerFinder(self.host_combo, self)
        self.finder.searched.connect(self.show_note)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.finder.button)
        buttons.addWidget(self.check_button)
        grid.addWidget(host_label, 0, 0)
        grid.addWidget(self.host_combo, 0, 1)
        grid.addLayout(buttons, 0, 2)
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
        #: The peer as it was when the line under it said something of it (a check's result,
        #: a refusal): a sentence about another peer than the one in the fields goes.
        self._said_of: Peer | None = None
        #: The problem said of a peer (a refusal, a failed check) and that peer: it holds
        #: until another peer is in the fields or this one answers.
        self._problem: tuple[str, Peer] | None = None
        self.host_combo.editTextChanged.connect(self._host_changed)
        self.host_combo.activated.connect(self._chosen)
        for spin in self.ports.values():
            spin.valueChanged.connect(self._peer_edited)
            edit = spin.lineEdit()
            assert edit is not None
            edit.textChanged.connect(self._peer_edited)
        self.host6.textChanged.connect(self._peer_edited)
        for spin in self.ports.values():
            spin.valueChanged.connect(self.changed)
        self.host6.textChanged.connect(self.changed)
        self.check_button.clicked.connect(self.check)
        self._context: AppContext | None = None
        # Ports of a typed peer: its own from the history, else the defaults, unless the
        # user typed one for the host being entered.
        self._defaults = self.port_values()
        self._setting_ports = False
        self._ports_typed = False
        self._focus_wanted = False  # a refused peer: the cursor goes back to it
        #: The peer (its host) whose IPv6 address the field holds: another peer in the Peer
        #: field gets its own address, or none, never the one of the computer named before.
        self._host6_of: str | None = None
        for spin in self.ports.values():
            spin.valueChanged.connect(self._port_edited)
        self._host_changed()

    def attach(self, context: AppContext) -> None:
        """Read the default ports and each peer's own from the settings, and keep them so."""
        self._context = context
        self.finder.search = lambda port: context.find_peers(port)
        context.settings_changed.connect(self._defaults_changed)
        self._defaults_changed()

    def _defaults_changed(self) -> None:
        if self._context is None:
            return
        old = self._defaults
        self._defaults = {key: self._context.default_port(key) for key in self.ports}
        if self.is_this_computer or (self.port_values() == old and not self._ports_typed):
            self._set_ports(self._defaults)
        if not self.is_this_computer:
            self._apply_known_ports()

    def _set_ports(self, ports: Mapping[str, int]) -> None:
        self._setting_ports = True
        try:
            for key, port in ports.items():
                if key in self.ports:
                    self.ports[key].setValue(port)
        finally:
            self._setting_ports = False

    def _port_edited(self) -> None:
        if not self._setting_ports and not self.is_this_computer:
            self._ports_typed = True

    def _apply_known_ports(self) -> None:
        """A host of the history gets its own ports; another starts from the defaults unless
        the user typed a port while entering it."""
        known = self._context.peer_ports() if self._context is not None else {}
        found = self.finder.found_peer(self.host_combo.currentText())
        if found is not None:  # the ports it announced, the defaults for a server it lacks
            known[found.host] = found.engines
        ports = known.get(self.host_text())
        if ports is not None:
            self._set_ports({**self._defaults, **ports})
            self._ports_typed = False
        elif not self._ports_typed:
            self._set_ports(self._defaults)

    def _chosen(self, index: int) -> None:
        """A found computer chosen from the list: its address in the field (the label with its
        name and engines stays in the list, and the note under the field says the rest)."""
        found = self.host_combo.itemData(index, FOUND_ROLE)
        if isinstance(found, FoundPeer):
            self.host_combo.setEditText(found.host)
            self.host_edit.setCursorPosition(0)

    @property
    def is_this_computer(self) -> bool:
        return self.host_combo.currentText().strip() in ("", THIS_COMPUTER)

    def host_text(self) -> str:
        """The host typed, or the address of the found computer chosen."""
        text = self.host_combo.currentText().strip()
        found = self.finder.found_peer(text)
        return found.host if found is not None else text

    def _host_changed(self) -> None:
        local = self.is_this_computer
        if local:
            self._ports_typed = False
        else:
            self._apply_known_ports()
        self.host6.setEnabled(not local)
        # For this computer LinkLab picks free ports itself, shown once its servers run.
        for key, spin in self.ports.items():
            spin.setEnabled(not local)
            spin.setToolTip(PORTS_TIP_LOCAL if local else self._port_tips[key])
        found = self.finder.found_peer(self.host_combo.currentText())
        if found is not None:  # chosen from the list: its name first
            self.host_edit.setCursorPosition(0)
        host = "" if local else self.host_text()
        if host != self._host6_of:
            self._host6_of = host
            self.host6.setText(self._known_ipv6(host, found))
        self.show_note(LOCAL_NOTE if local else details(found) if found is not None else "")
        self.changed.emit()

    def _known_ipv6(self, host: str, found: FoundPeer | None) -> str:
        """The IPv6 address of this peer: the one a found computer announced (when its host
        is another address), else the one given for it before (the history), else none."""
        if found is not None and found.ipv6 and found.ipv6 != found.host:
            return found.ipv6
        if not host or self._context is None:
            return ""
        return self._context.peer_ipv6().get(host, "")

    def show_note(self, text: str, *, answered: bool = False) -> None:
        """A note under the field (answered: the peer in the fields answered)."""
        self.check_result.setStyleSheet("")
        self.check_result.setText(text)
        self._said_of = None
        self._take_back(answered)

    def _take_back(self, answered: bool = False) -> None:
        """The problem said of a peer goes once it no longer holds: another peer is in the
        fields, or this one answered (a note while it is checked or searched for leaves it)."""
        if self._problem is None:
            return
        sentence, peer = self._problem
        if answered or peer != self.peer():
            self._problem = None
            self.problem_gone.emit(sentence)

    def _peer_edited(self) -> None:
        """A port or the IPv6 address changed: what the line said of the peer before (a
        check's result, a refusal) is no longer of the peer in the fields."""
        if self._said_of is not None and (self._said_of != self.peer() or self._typed_wrong()):
            self.show_note("")
        self._take_back()

    def _typed_wrong(self) -> bool:
        return any(number_problem(spin) for spin in self.ports.values())

    def show_problem(self, sentence: str, focus: bool = False) -> None:
        """A reason the peer cannot be used, in red, right under the peer field; with focus,
        the cursor goes to the peer's name (once the form is usable again), its text
        selected for typing another."""
        self.check_result.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.check_result.setText(sentence)
        self._said_of = self.peer()
        if self._problem is not None and self._problem[0] != sentence:
            self.problem_gone.emit(self._problem[0])  # said of it no longer
        self._problem = (sentence, self.peer())
        self._focus_wanted = focus
        self._take_focus()

    def _take_focus(self) -> None:
        if self._focus_wanted and self.host_edit.isEnabled() and self.isVisible():
            self._focus_wanted = False
            self.host_edit.setFocus()
            self.host_edit.selectAll()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.EnabledChange:
            self._take_focus()

    def show_ports(self, ports: Mapping[str, int]) -> None:
        """The ports this computer's own servers listen on (for "This computer")."""
        self._set_ports(ports)

    def port_values(self) -> dict[str, int]:
        return {key: spin.value() for key, spin in self.ports.items()}

    def peer(self) -> Peer:
        if self.is_this_computer:
            return Peer(LOOPBACK4, self.port_values(), THIS_COMPUTER, host6=LOOPBACK6)
        return Peer(self.host_text(), self.port_values(), host6=self.host6.text().strip())

    def set_peer(self, peer: Peer) -> None:
        text = THIS_COMPUTER if peer.name == THIS_COMPUTER else peer.host
        self.host_combo.setEditText(text)
        self._set_ports({d.port_key: d.peer_port(peer) for d in DRIVERS.values()})
        self.host6.setText("" if peer.name == THIS_COMPUTER else peer.host6)

    def remember(self, host: str) -> None:
        """Put a host that answered first in the list (typos never get there), with the ports
        it answered on."""
        if self._context is not None and host == self.host_text():
            self._context.remember_peer(host, self.port_values(), self.host6.text().strip())
            self._ports_typed = False
        elif self._context is not None:
            self._context.remember_peer(host)
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
        worker = Worker(once(lambda: check_peer(peer.host, peer_servers(peer))), "check-peer")
        worker.yielded.connect(self._checked)
        worker.start()

    def _checked(self, result: PeerCheck) -> None:
        self.check_button.setEnabled(True)
        if result.problem or result.silent is not None:
            self.show_problem(result.summary, focus=True)
        else:
            self.show_note(result.summary, answered=True)
            self._said_of = self.peer()
            self.remember(result.host)  # offered again here and on the Responsiveness tab
            self.answered.emit(result.host)


class _HintEdit(QLineEdit):
    """A line edit whose grey hint shows only while it can be typed into: greyed out (this
    computer, a study running), the hint would read like a value."""

    def __init__(self, hint: str) -> None:
        super().__init__()
        self._hint = hint
        self.setPlaceholderText(hint)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.EnabledChange:
            self.setPlaceholderText(self._hint if self.isEnabled() else "")
