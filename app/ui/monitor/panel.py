"""Measure › Monitor: one flow against the peer chosen on the Measure tab, measured until Stop,
charted on a rolling window of the last minutes beside its current, mean, lowest and highest
figures. The monitor runs through the front door in a study worker like any study, and is stored
as a session (every interval), listed in Sessions afterwards."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.analysis.monitor_trace import MonitorTraces, figures
from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import LATENCY_IDLE_S, Conditions, Metric, Peer, Plan
from app.domain.records import status_words
from app.domain.units import parse_rate
from app.engine.drivers.registry import phrase
from app.study.sweep.describe import clock_text
from app.study.sweep.events import (
    LatencyNote,
    LatencySeconds,
    MonitorResumed,
    MonitorWaiting,
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SamplesRevised,
    ServerNote,
    SessionFinished,
    SessionStarted,
    StudyPrepared,
)
from app.study.sweep.monitor import DEFAULT_RUN_S, UDP_RUN_S, monitor_plan
from app.ui.common.chart_style import series_colour
from app.ui.common.study_worker import PeerRefused, study_worker
from app.ui.common.widgets import ERROR_COLOUR, _combo, _spin, accessible
from app.ui.common.worker import Worker, wire
from app.ui.context import AppContext
from app.ui.monitor.chart import MonitorChart
from app.ui.monitor.figures import FiguresModel

#: How often the elapsed time and the figures are brought up to date.
TICK_MS = 1000
#: How long the sentence that the peer answers again stays beside the elapsed time.
BACK_SHOWN_S = 30.0


class MonitorPanel(QWidget):
    """Start monitor / Stop monitor, the rolling chart and the figures. `base` gives the peer
    and IP version chosen on the Measure tab."""

    running_changed = Signal(bool)
    session_saved = Signal(str)  # a monitor ended: the Sessions list refreshes
    status_message = Signal(str)
    said = Signal(str, bool)  # a line for the Measure tab's log (text, is an error)
    peer_ready = Signal(object)  # Plan: the peer answered (this computer: its servers' ports)
    peer_refused = Signal(str)  # the peer did not answer: the sentence, said at the peer too

    def __init__(
        self,
        context: AppContext,
        base: Callable[[], tuple[Peer, IpVersion, Conditions]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Monitor")
        self.context = context
        self._base = base
        self.worker: Worker | None = None
        self.traces: MonitorTraces | None = None
        self._plan: Plan | None = None
        self.clock: Callable[[], float] = time.monotonic  # the benchmark's runs faster
        self._t0 = 0.0
        self._offset = 0.0  # seconds from the monitor's start to its current run's start
        self._placed = False  # the current run's start set from its first interval
        self._run = 0
        self._lost = False
        self._back = ("", 0.0)  # the sentence that the peer is back, and until when it shows
        #: Why no monitor may start now (a responsiveness test loads the link); "" when free.
        self.busy_elsewhere: Callable[[], str] = lambda: ""
        self.protocol = _combo(
            [("TCP", Protocol.TCP), ("UDP", Protocol.UDP)],
            "The one flow's protocol: TCP shows retransmits, UDP the datagrams lost.",
        )
        self.direction = _combo(
            [
                ("Upload", Direction.UP),
                ("Download", Direction.DOWN),
                ("Both at once", Direction.BIDIR),
            ],
            f"Which way the flow goes, seen from this computer ({phrase('flow_direction')}).",
        )
        self.udp_rate = QLineEdit("100M")
        self.udp_rate.setToolTip(
            f"The UDP flow's target rate ({phrase('bitrate')}), bit/s with K, M or G: the loss "
            "is what does not arrive of it."
        )
        self.latency = QCheckBox("Working latency")
        accessible(self.latency, "Monitor working latency")
        self.latency.setToolTip(
            "Probe the round trip while the flow runs (UDP echo to LinkLab's responder), "
            "charted as each second's median."
        )
        self.start_button = QPushButton("Start monitor")
        self.start_button.setToolTip(
            "Measure the flow until Stop monitor, for hours if need be: every interval is "
            "stored, and the monitor is listed in Sessions."
        )
        self.stop_button = QPushButton("Stop monitor")
        self.stop_button.setToolTip("Stop now: everything measured is kept.")
        self.stop_button.setEnabled(False)
        self.window_minutes = _spin(
            1, 600, 5, "How many of the latest minutes the chart shows at full detail.", " minutes"
        )
        accessible(self.window_minutes, "Show the last")
        self.whole = QCheckBox("Whole history")
        self.whole.setToolTip(
            "Show the monitor from its start, each stretch as its mean with the lowest to "
            "highest shaded."
        )
        self.status = QLabel()
        self._idle = True  # the status line holds the hint, not a run's or a failure's news
        self.status.setWordWrap(True)
        accessible(self.status, "Monitor status")
        self.chart = MonitorChart()
        self.chart.setAccessibleName("Monitor chart")
        self.model = FiguresModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        accessible(self.table, "Monitor figures")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self._layout()
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._refresh)
        self.protocol.currentIndexChanged.connect(self._protocol_changed)
        self.start_button.clicked.connect(lambda: self.start())
        self.stop_button.clicked.connect(lambda: self.stop())
        self.window_minutes.valueChanged.connect(self._window_changed)
        self.whole.toggled.connect(self._window_changed)
        self._protocol_changed()
        self._window_changed()
        self.peer_changed()

    def _layout(self) -> None:
        def labelled(text: str, control: QWidget) -> QLabel:
            label = QLabel(text)
            label.setBuddy(control)
            return label

        flow = QHBoxLayout()
        flow.addWidget(labelled("Protocol", self.protocol))
        flow.addWidget(self.protocol)
        flow.addWidget(labelled("Direction", self.direction))
        flow.addWidget(self.direction)
        flow.addWidget(labelled("UDP rate", self.udp_rate))
        self.udp_rate.setMaximumWidth(70)
        flow.addWidget(self.udp_rate)
        flow.addWidget(self.latency)
        flow.addStretch(1)
        # The buttons share the status line: one row of every control would be wider than
        # the window's 1280 pixels under Windows fonts.
        state = QHBoxLayout()
        state.addWidget(self.status, 1)
        state.addWidget(self.start_button)
        state.addWidget(self.stop_button)
        span = QHBoxLayout()
        span.addWidget(labelled("Show the last", self.window_minutes))
        span.addWidget(self.window_minutes, 1)
        side = self.side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addLayout(span)
        side_layout.addWidget(self.whole)
        heading = QLabel("Since the start")
        heading.setStyleSheet("font-weight: bold;")
        side_layout.addWidget(heading)
        side_layout.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chart)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([480, 280])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(flow)
        layout.addLayout(state)
        layout.addWidget(split, 1)

    # -- the controls ----------------------------------------------------------------------
    def _protocol_changed(self) -> None:
        udp = self.protocol.currentData() is Protocol.UDP
        self.udp_rate.setEnabled(udp)

    def _window_changed(self) -> None:
        self.window_minutes.setSuffix(" minute" if self.window_minutes.value() == 1 else " minutes")
        whole = self.whole.isChecked()
        self.window_minutes.setEnabled(not whole)
        self.chart.set_window(None if whole else self.window_minutes.value() * 60.0)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def set_blocked(self, reason: str) -> None:
        """Another test holds the link (a study, a responsiveness test): Start waits for it."""
        self.start_button.setEnabled(not reason and self.worker is None)
        self.start_button.setToolTip(reason or "Measure the flow until Stop monitor.")

    def plan(self) -> Plan:
        """The monitor's plan from its controls and the peer on the Measure tab; ValueError
        with a sentence for a UDP rate that is no rate."""
        peer, ip_version, conditions = self._base()
        protocol = self.protocol.currentData()
        bitrate = 0
        if protocol is Protocol.UDP:
            bitrate = parse_rate(self.udp_rate.text())
        # A UDP upload's loss is reported when a run ends: shorter runs report it oftener.
        run_s = UDP_RUN_S if protocol is Protocol.UDP else DEFAULT_RUN_S
        return monitor_plan(
            peer,
            protocol=protocol,
            ip_version=ip_version,
            direction=self.direction.currentData(),
            run_s=run_s,
            bitrate_bps=bitrate,
            latency=self.latency.isChecked(),
            conditions=conditions,
        )

    # -- running ---------------------------------------------------------------------------
    def start(self) -> None:
        if self.worker is not None:
            return
        busy = self.busy_elsewhere()
        if busy:
            self._show(busy, error=True)
            return
        try:
            plan = self.plan()
        except ValueError as err:
            self._show(f"The UDP rate is no rate: {err}", error=True)
            self.udp_rate.setFocus()
            return
        self._plan = plan
        who = "this computer's servers" if plan.peer.is_this_computer else plan.peer.host
        self._show(f"Starting the monitor against {who}…")
        worker = study_worker(self.context.door(), plan)
        wire(
            worker,
            {
                StudyPrepared: self._prepared,
                SessionStarted: self._session_started,
                RunStarted: self._run_started,
                SampleArrived: self._sample,
                SamplesRevised: self._revised,
                LatencySeconds: self._seconds,
                RunFinished: self._run_finished,
                LatencyNote: lambda event: self.said.emit(event.sentence, False),
                ServerNote: lambda event: self.said.emit(event.sentence, False),
                RunFailed: self._run_failed,
                MonitorWaiting: self._waiting,
                MonitorResumed: self._resumed,
                SessionFinished: self._finished,
                PeerRefused: self._refused,
            },
            failed=lambda sentence: self._show(sentence, error=True),
            finished=self._worker_done,
        )
        self.worker = worker
        self._set_running(True)
        worker.start()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self._show("Stopping the monitor…")

    def stop_and_wait(self, timeout_ms: int = 3000) -> bool:
        worker = self.worker
        if worker is None:
            return True
        worker.stop()
        return bool(worker.wait(timeout_ms))

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        for control in (self.protocol, self.direction, self.udp_rate, self.latency):
            control.setEnabled(not running)
        if not running:
            self._protocol_changed()
        self.running_changed.emit(running)

    def idle_hint(self) -> str:
        """What to do next, for the peer the form holds now."""
        peer, _version, _conditions = self._base()
        if not peer.host:
            return "Choose the peer on the left, then Start monitor."
        who = "this computer's servers" if peer.is_this_computer else peer.host
        return f"Start monitor measures one flow with {who} until Stop monitor."

    def peer_changed(self) -> None:
        """The form's peer changed: the hint follows it (a run's or a failure's news stays)."""
        if self._idle and self.worker is None:
            self.status.setText(self.idle_hint())
            self.status.setStyleSheet("")

    def withdraw(self, sentence: str) -> None:
        """A sentence whose condition no longer holds (the peer it refused was corrected, or
        answered) leaves the status line, unless newer news replaced it there."""
        if self.worker is None and self.status.text() == sentence:
            self._idle = True
            self.peer_changed()

    def _show(self, text: str, error: bool = False) -> None:
        self._idle = False
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {ERROR_COLOUR};" if error else "")
        self.status_message.emit(text)
        self.said.emit(text, error)

    # -- events from the worker (GUI thread, queued) ---------------------------------------
    def _refused(self, event: PeerRefused) -> None:
        self.peer_refused.emit(event.sentence)
        self._show(event.sentence, error=True)

    def _prepared(self, event: StudyPrepared) -> None:
        plan = self._plan = event.plan
        self.traces = MonitorTraces(plan.protocols[0], interval_s=plan.interval_s)
        self.chart.start(self.traces, series_colour(plan.series[0]), Metric.LATENCY in plan.metrics)
        self.model.set_rows([])
        self._t0 = self.clock()
        self._run = 0
        self._lost = False
        self._back = ("", 0.0)
        self.peer_ready.emit(plan)
        for note in event.notes:
            self.said.emit(note, False)

    def _session_started(self, event: SessionStarted) -> None:
        self._tick.start()
        self._refresh()

    def _run_started(self, event: RunStarted) -> None:
        if self.traces is not None:
            self.traces.settle()  # the run before kept its sender's figures, if no others
        # The engine starts after the idle latency probes, if any; its first interval then
        # sets the run's start exactly (it arrives as it ends).
        latency = self._plan is not None and Metric.LATENCY in self._plan.metrics
        idle = LATENCY_IDLE_S if latency else 0.0
        self._offset = self.clock() - self._t0 + idle
        self._placed = False
        self._run = event.key.repetition
        self.said.emit(f"$ {' '.join(event.argv)}", False)

    def _sample(self, event: SampleArrived) -> None:
        if self.traces is None:
            return
        if not self._placed:
            self._offset = self.clock() - self._t0 - event.sample.end_s
            self._placed = True
        # The sender's figures of an upload are held until its receiver's come as the run ends.
        self.traces.add_sample(self._offset, event.sample, provisional=True)
        if self._lost:  # the peer answers again: the sentence that said it was gone goes
            self._lost = False
            self._refresh()
        self.chart.changed()

    def _revised(self, event: SamplesRevised) -> None:
        """An upload's receiver figures (what arrived; a UDP flow's loss) come as its run
        ends: they take the place of the sender's."""
        if self.traces is None:
            return
        self.traces.revise(self._offset, event.samples)
        self._refresh_figures()
        self.chart.changed()

    def _run_finished(self, event: RunFinished) -> None:
        if self.traces is not None:
            self.traces.settle()

    def _seconds(self, event: LatencySeconds) -> None:
        """Seconds of working latency under load, each as it completes (as they are kept)."""
        if self.traces is None:
            return
        self.traces.add_seconds(self._offset, event.seconds)
        self.chart.changed()

    def _run_failed(self, event: RunFailed) -> None:
        # The log stamps its lines itself: the sentence goes without a time of its own.
        self.said.emit(event.retry_note if event.will_retry else event.sentence, False)

    def _waiting(self, event: MonitorWaiting) -> None:
        self._lost = True
        self._show(event.sentence, error=True)
        self._refresh()  # "Now" says the peer is down, not its last value

    def _resumed(self, event: MonitorResumed) -> None:
        self._lost = False
        self._back = (event.sentence, self.clock() + BACK_SHOWN_S)
        self._show(event.sentence)
        self._refresh()

    def _finished(self, event: SessionFinished) -> None:
        self._tick.stop()
        self._refresh()
        self.chart.redraw()
        words = status_words(event.status, event.runs_failed)  # as Sessions will list it
        saved = f"Monitor saved as session {event.session_id[:8]} ({words}). {event.reason}"
        self._show(saved.strip())
        self.session_saved.emit(event.session_id)

    def _worker_done(self) -> None:
        self.worker = None
        self._tick.stop()
        self._set_running(False)

    def _refresh_figures(self) -> None:
        if self.traces is not None:
            self.model.set_rows(figures(self.traces, down=self._lost))
            # Every figure readable: the side as wide as the table's columns.
            table = self.table
            width = table.verticalHeader().width() + table.horizontalHeader().length()
            self.side.setMinimumWidth(width + 2 * table.frameWidth() + 2)

    def _refresh(self) -> None:
        """The elapsed time in the status line and the figures beside the chart."""
        self._refresh_figures()
        if self.worker is None or self._lost or self._plan is None:
            return
        elapsed = clock_text(self.clock() - self._t0)
        who = "this computer" if self._plan.peer.is_this_computer else self._plan.peer.host
        text = f"Monitoring {who} for {elapsed} (run {max(self._run, 1)})."
        back, until = self._back
        if back and self.clock() < until:  # the peer's return stays in view a while
            text = f"{text} {back}"
        self.status.setText(text)
        self.status.setStyleSheet("")
