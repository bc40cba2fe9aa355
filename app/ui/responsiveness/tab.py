"""The Responsiveness tab: a peer, Start and Stop, progress while the load ramps up, and the
result card (rating, RPM, idle and loaded latency per direction)."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import BadOption
from app.domain.plan import THIS_COMPUTER, Peer
from app.domain.units import counted, format_rate
from app.engine.drivers.registry import responsiveness_driver
from app.engine.lan.validate import validate_host
from app.engine.serving.loopback import LoopbackServers
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.kept import KeptResult
from app.study.responsiveness.results import (
    MAX_FLOWS,
    IdleMeasured,
    PhaseFinished,
    PhaseStarted,
    ResponsivenessEvent,
    ResponsivenessResult,
    ResponsivenessSettings,
    StepMeasured,
    TestStarted,
    latency_text,
)
from app.ui.common.widgets import ERROR_COLOUR, ComboBox, SpinBox, accessible, typed_refusal
from app.ui.common.worker import Worker, wire
from app.ui.context import AppContext
from app.ui.responsiveness.card import ResultCard
from app.ui.responsiveness.worker import NotKept, ResponsivenessStopped, responsiveness_worker

INTRO = (
    "How responsive the link stays while it is busy: LinkLab measures the latency with the "
    "link idle, then while it loads the link with more and more parallel TCP flows "
    "(download, upload, then both at once) until the throughput and the latency settle. "
    "Against another computer, run LinkLab's Server tab (or linklab serve) there."
)


class ResponsivenessTab(QWidget):
    status_message = Signal(str)
    running_changed = Signal(bool)
    result_kept = Signal(str)  # the id of the result just stored
    show_requested = Signal(str)  # the id of a kept result to show in Sessions

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.worker: Worker | None = None
        self._loopback = LoopbackServers(drivers=context.drivers)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.peer = ComboBox()
        self.peer.setEditable(True)
        self.peer.setInsertPolicy(ComboBox.InsertPolicy.NoInsert)
        self._offer_peers()
        accessible(self.peer, "Responsiveness peer")
        self.port = SpinBox()
        self.port.setRange(1, 65535)
        # The port of the engine that loads the link, by its key in a peer's ports.
        load = responsiveness_driver(context.drivers)
        self._port_key, port_label = load.port_key, load.port_label
        self.port.setValue(context.default_port(self._port_key))
        accessible(self.port, f"Responsiveness {port_label} port")
        self.flows = SpinBox()
        self.flows.setRange(1, MAX_FLOWS)
        self.flows.setValue(MAX_FLOWS)
        accessible(self.flows, "Most parallel flows")
        self.flows.setToolTip("The ramp adds one TCP flow every step, up to this many.")
        self.seconds = SpinBox()
        self.seconds.setRange(2, 120)
        self.seconds.setValue(int(ResponsivenessSettings.phase_s))
        self.seconds.setSuffix(" s")
        accessible(self.seconds, "Seconds per direction")
        self.seconds.setToolTip("The longest each load (download, upload, both) runs.")
        form = QFormLayout()
        for text, field in (
            ("Peer", self.peer),
            (f"{port_label} port", self.port),
            ("Most parallel flows", self.flows),
            ("Seconds per direction", self.seconds),
        ):
            label = QLabel(text)
            label.setBuddy(field)
            form.addRow(label, field)
        self.start_button = QPushButton("Start responsiveness test")
        self.start_button.setDefault(True)
        self.stop_button = QPushButton("Stop test")
        self.stop_button.setEnabled(False)
        buttons = QHBoxLayout()
        self.show_button = QPushButton("Show in Sessions")
        self.show_button.setToolTip("The kept result in Sessions: export it, compare it.")
        self.show_button.hide()
        self.kept_id = ""
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.show_button)
        buttons.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        accessible(self.progress, "Responsiveness progress")
        self.state = QLabel("Not started.")
        self.state.setWordWrap(True)
        self.state.setAccessibleName("Responsiveness status")
        self.card = ResultCard()
        page = QWidget()
        column = QVBoxLayout(page)
        column.addWidget(intro)
        fields = QWidget()
        fields.setLayout(form)
        fields.setMaximumWidth(560)  # short values: full-width fields would read as empty
        column.addWidget(fields)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.state)
        column.addWidget(self.card)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.peer.editTextChanged.connect(self._peer_changed)
        self.peer.activated.connect(lambda _index: self._known_port())
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.show_button.clicked.connect(lambda: self.show_requested.emit(self.kept_id))
        self._peer_changed()
        #: Set by the window: a study on the Measure tab holds this computer's servers.
        self.study_running: Callable[[], bool] = lambda: False

    @property
    def running(self) -> bool:
        return self.worker is not None

    def _offer_peers(self) -> None:
        """This computer, then the peers that answered, on this tab or on Measure (the
        history they share), newest first; what the user has typed stays."""
        typed = self.peer.currentText()
        self.peer.blockSignals(True)
        try:
            self.peer.clear()
            self.peer.addItem(THIS_COMPUTER)
            for host in self.context.peer_history():
                if host != THIS_COMPUTER:
                    self.peer.addItem(host)
            self.peer.setEditText(typed or THIS_COMPUTER)
        finally:
            self.peer.blockSignals(False)

    def _known_port(self) -> None:
        """A peer of the history gets the port it answered on (else the default)."""
        host = self.peer.currentText().strip()
        if host in ("", THIS_COMPUTER):
            return
        ports = self.context.peer_ports().get(host, {})
        key = self._port_key
        self.port.setValue(ports.get(key, self.context.default_port(key)))

    def showEvent(self, event: QShowEvent) -> None:
        # Peers used on the Measure tab since this tab was last shown are offered too.
        if not self.running:
            self._offer_peers()
        super().showEvent(event)

    def _peer_changed(self) -> None:
        self.port.setEnabled(self.peer.currentText().strip() not in ("", THIS_COMPUTER))

    def _chosen_peer(self) -> Peer:
        text = self.peer.currentText().strip()
        if text in ("", THIS_COMPUTER):
            return Peer.this_computer({self._port_key: self.context.default_port(self._port_key)})
        # Its latency responder on the port LinkLab's responders use here (Settings).
        return Peer(
            validate_host(text, "peer"),
            {self._port_key: self.port.value()},
            echo_port=self.context.default_port("echo"),
        )

    def start(self) -> None:
        if self.worker is not None:
            return
        if self.study_running():
            self._problem("A study is running on the Measure tab: stop it, or wait for it.")
            return
        if refusal := typed_refusal(self):
            self._problem(refusal)
            return
        try:
            peer = self._chosen_peer()
        except BadOption as err:
            self._problem(err.sentence)
            return
        settings = ResponsivenessSettings(
            max_flows=self.flows.value(), phase_s=self.seconds.value()
        )
        # Servers of its own for this computer: a study's are never restarted under it.
        door = FrontDoor(
            self.context.db_path,
            loopback=self._loopback,
            drivers=self.context.drivers,
            unwritable=self.context.unwritable,  # a database only read keeps no result: said so
        )
        worker = responsiveness_worker(door, peer, settings)
        wire(
            worker,
            {
                **dict.fromkeys(get_args(ResponsivenessEvent), self._progressed),
                ResponsivenessResult: self._measured,
                KeptResult: self._kept,
                NotKept: self._not_kept,
                ResponsivenessStopped: self._stopped,
            },
            failed=self._failed,
            finished=self._worker_done,
        )
        self.worker = worker
        self.card.hide()
        self.show_button.hide()
        self.progress.setValue(0)
        self.state.setStyleSheet("")
        self.state.setText(f"Starting against {peer.name or peer.host}…")
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.running_changed.emit(True)
        worker.start()

    def stop(self) -> None:
        if self.worker is not None:
            self.state.setText("Stopping…")
            self.stop_button.setEnabled(False)
            self.worker.stop()

    def stop_and_wait(self) -> None:
        """Closing the window: stop the test and let its thread end."""
        worker = self.worker
        if worker is not None:
            worker.stop()
            worker.wait(10_000)
        self._loopback.stop()

    # -- the worker's signals (GUI thread) ---------------------------------------------------
    def _progressed(self, event: ResponsivenessEvent) -> None:
        if hasattr(event, "fraction"):
            self.progress.setValue(round(100 * event.fraction))
        if isinstance(event, TestStarted):
            self.state.setText(event.method_sentence)
        elif isinstance(event, PhaseStarted):
            self.state.setText(f"{event.phase.label}: measuring…")
        elif isinstance(event, IdleMeasured):
            self.state.setText(f"Idle latency {latency_text(event.latency_ms)}.")
        elif isinstance(event, StepMeasured):
            step = event.step
            flows = counted(step.flows, "flow")
            self.state.setText(
                f"{event.phase.label}: {flows}, {format_rate(step.goodput_bps)}, latency "
                f"{latency_text(step.latency_ms)}"
            )
        elif isinstance(event, PhaseFinished):
            result = event.result
            self.state.setText(f"{result.phase.label}: {result.rating.value}.")

    def _measured(self, result: ResponsivenessResult) -> None:
        self.progress.setValue(100)
        self.state.setText(f"Done in {result.elapsed_s:.0f} s.")
        self.card.show_result(result)
        self.status_message.emit("The responsiveness test finished.")
        host = self.peer.currentText().strip()
        if host and host != THIS_COMPUTER:
            self.context.remember_peer(host)

    def _kept(self, kept: KeptResult) -> None:
        self.state.setText(
            f"{self.state.text()} Kept in Sessions as “{kept.name}”: list, export and "
            f"compare it there."
        )
        self.kept_id = kept.id
        self.show_button.show()
        self.result_kept.emit(kept.id)

    def _not_kept(self, event: NotKept) -> None:
        self._problem(f"{self.state.text()} Not kept: {event.sentence}")

    def _stopped(self, _event: ResponsivenessStopped) -> None:
        self.state.setText("Stopped: no result.")
        self.status_message.emit("The responsiveness test was stopped.")

    def _failed(self, sentence: str) -> None:
        self._problem(sentence)
        self.status_message.emit(sentence)

    def _problem(self, sentence: str) -> None:
        self.state.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.state.setText(sentence)

    def _worker_done(self) -> None:
        self.worker = None
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self.running_changed.emit(False)
