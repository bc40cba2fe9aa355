"""The Class tab's Together page: the instructor's short plan (protocol, direction, seconds,
rounds, each station alone first, or the plan of an exercise step), Start together for every
station waiting, and what comes of it as it arrives: one curve per station and the total,
Jain's fairness index per second and per round, each station's share with its interval and
its loss under contention (together_table.py), the slowest and fastest named, and every
station that does not count named with its reason; the class report saved as HTML or PDF."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import BadOption, LinkLabError
from app.domain.exercise import Exercise
from app.domain.net import Direction, Protocol
from app.domain.together import (
    MAX_ROUNDS,
    MAX_SECONDS,
    MIN_SECONDS,
    TogetherPlan,
    plan_from_step,
)
from app.domain.units import counted
from app.study.lab.class_http import call
from app.study.lab.together import start_together
from app.study.lab.together_results import TogetherResult
from app.study.lab.together_wire import Waiting, read_results, results_from_wire
from app.study.lab.together_words import findings
from app.ui.classroom.live import LiveBar
from app.ui.classroom.together_table import fill_stations, index_words, offset_words
from app.ui.common.background import Background
from app.ui.common.saved import confirm_saved
from app.ui.common.together_chart import TogetherChart
from app.ui.common.widgets import ComboBox, SpinBox, accessible, compact_rows

__all__ = ["TogetherPanel"]

#: How often the page reads the results again while it is shown or the class measures.
POLL_MS = 1000
AS_SET = "As set here"

Results = tuple[TogetherResult | None, list[Waiting]]


class TogetherPanel(QWidget):
    status_message = Signal(str)
    result_read = Signal(object)  # TogetherResult, read again

    def __init__(
        self, live: LiveBar, exercise: Callable[[], Exercise | None], parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.live = live
        self._exercise = exercise
        self.result: TogetherResult | None = None
        self.waiting: list[Waiting] = []
        self._reader = Background(self)
        self._starter = Background(self)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

        self.step = ComboBox()
        accessible(self.step, "Plan from step")
        self.step.setToolTip(
            "Take the plan from a step of the class's exercise: its protocol, direction, "
            "seconds per run and repetitions (as rounds)."
        )
        self.step.addItem(AS_SET)
        self.step.setSizeAdjustPolicy(
            ComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.step.setMinimumContentsLength(16)
        self.protocol = ComboBox()
        accessible(self.protocol, "Protocol together")
        self.protocol.addItems(["TCP", "UDP"])
        self.direction = ComboBox()
        accessible(self.direction, "Direction together")
        self.direction.addItems(["Upload", "Download"])
        self.seconds = SpinBox()
        self.seconds.setRange(MIN_SECONDS, MAX_SECONDS)
        self.seconds.setValue(5)
        self.seconds.setSuffix(" s")
        accessible(self.seconds, "Seconds a round")
        self.rounds = SpinBox()
        self.rounds.setRange(1, MAX_ROUNDS)
        self.rounds.setValue(3)
        accessible(self.rounds, "Rounds")
        self.alone = QCheckBox("Each station alone first")
        self.alone.setToolTip(
            "Before the rounds together, every station measures by itself, one after another: "
            "beside the rounds together, each station's loss under contention."
        )
        self.start_button = QPushButton("Start together")
        self.start_button.setToolTip(
            "Every station waiting starts each round at the same moment (the collector's "
            "clock, each station's own corrected by its measured offset)."
        )
        self.report_button = QPushButton("Class report…")
        self.report_button.setToolTip(
            "Save the class report of this measurement as HTML or PDF: the chart, the index "
            "per round, each station's share."
        )
        self.report_button.setEnabled(False)
        self.stations_label = QLabel("Collect live (or open a live class) to measure together.")
        accessible(self.stations_label, "Stations waiting")
        self.stations_label.setWordWrap(True)
        self.index_label = QLabel()
        accessible(self.index_label, "Fairness index")
        self.index_label.setWordWrap(True)
        self.index_label.setStyleSheet("QLabel { font-size: 13pt; font-weight: bold; }")
        self.index_label.setToolTip(
            "Jain's fairness index (Σx)² / (n·Σx²) of the stations' throughputs: 1 is an "
            "even share, 1/n one station taking everything."
        )
        self.findings_label = QPlainTextEdit()
        accessible(self.findings_label, "Findings together")
        self.findings_label.setReadOnly(True)
        self.findings_label.setFrameShape(QFrame.Shape.NoFrame)
        self.chart = TogetherChart()
        self.chart.setAccessibleName("Together chart")
        self.chart.show_result(None)
        self.table = QTableWidget(0, 0)
        accessible(self.table, "Stations together")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        compact_rows(self.table)

        # The plan in two rows: in one, a larger system font (Windows' 125 %) would make the
        # tab wider than a 1280-pixel screen.
        plan_row, timing_row = QHBoxLayout(), QHBoxLayout()
        for row, text, widget in (
            (plan_row, "Plan", self.step),
            (plan_row, "Protocol", self.protocol),
            (plan_row, "Direction", self.direction),
            (timing_row, "Seconds", self.seconds),
            (timing_row, "Rounds", self.rounds),
        ):
            label = QLabel(text)
            label.setBuddy(widget)
            row.addWidget(label)
            row.addWidget(widget)
        plan_row.addStretch(1)
        timing_row.addWidget(self.alone)
        timing_row.addStretch(1)
        timing_row.addWidget(self.start_button)
        stations_row = QHBoxLayout()
        stations_row.addWidget(self.stations_label, 1)
        stations_row.addWidget(self.report_button)
        # The findings, the chart and the table share the room, each edge dragged to give one
        # more; at first a few lines of findings (scrolled for more) and six stations whole.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.findings_label)
        splitter.addWidget(self.chart)
        splitter.addWidget(self.table)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(1, 1)
        lines = 5 * self.fontMetrics().lineSpacing() + 8
        rows = self.table.verticalHeader().defaultSectionSize()
        splitter.setSizes([lines, 300, 7 * rows + 2 * self.table.frameWidth() + 4])
        layout = QVBoxLayout(self)
        layout.addLayout(plan_row)
        layout.addLayout(timing_row)
        layout.addLayout(stations_row)
        layout.addWidget(self.index_label)
        layout.addWidget(splitter, 1)
        self.step.currentIndexChanged.connect(self._from_step)
        self.start_button.clicked.connect(self.start)
        self.report_button.clicked.connect(self.ask_report)
        self.live.started.connect(self._live_started)

    # -- the plan ------------------------------------------------------------------------------
    def refresh_steps(self) -> None:
        """The class's exercise's steps, to take a plan from."""
        exercise = self._exercise()
        titles = [s.short_title() for s in exercise.steps] if exercise else []
        current = self.step.currentText()
        self.step.blockSignals(True)
        self.step.clear()
        self.step.addItem(AS_SET)
        for number, title in enumerate(titles, 1):
            self.step.addItem(f"Step {number}: {title}")
        found = self.step.findText(current)
        self.step.setCurrentIndex(max(found, 0))
        self.step.blockSignals(False)

    def _from_step(self, index: int) -> None:
        exercise = self._exercise()
        if index <= 0 or exercise is None or index > len(exercise.steps):
            return
        plan = plan_from_step(exercise.steps[index - 1].plan, self.alone.isChecked())
        self.protocol.setCurrentIndex(0 if plan.protocol is Protocol.TCP else 1)
        self.direction.setCurrentIndex(0 if plan.direction is Direction.UP else 1)
        self.seconds.setValue(plan.seconds)
        self.rounds.setValue(plan.rounds)

    def plan(self) -> TogetherPlan:
        return TogetherPlan(
            Protocol.TCP if self.protocol.currentIndex() == 0 else Protocol.UDP,
            Direction.UP if self.direction.currentIndex() == 0 else Direction.DOWN,
            self.seconds.value(),
            self.rounds.value(),
            self.alone.isChecked(),
        )

    # -- starting ----------------------------------------------------------------------------
    def start(self) -> None:
        reading = self.live.reading
        if reading is None:
            self.status_message.emit(
                "Tick Collect live (or open a live class) first: the stations wait at the "
                "class's collector."
            )
            return
        plan = self.plan()
        exercise = self._exercise()
        exercise_id = exercise.id if exercise else ""
        collector = self.live.collector
        if collector is not None:
            store = collector.store

            def work() -> str:
                return start_together(store, plan, time.time(), exercise_id).id
        elif reading.url:
            url, token = reading.url, reading.token

            def work() -> str:
                body = {"plan": plan.to_dict(), "exercise_id": exercise_id}
                answer = call(url, token, "/v1/together/start", json.dumps(body).encode())
                if answer.status != 200 or not isinstance(answer.data, dict):
                    raise BadOption(answer.sentence or f"The collector answered {answer.status}.")
                return str(answer.data["together"])
        else:
            self.status_message.emit(
                "Start together through a collector (Collect live here, or open the collector "
                "with Open live class…): its clock is the one every station starts by."
            )
            return
        self.start_button.setEnabled(False)
        self._starter.run(work, self._started, self._not_started)

    def _started(self, _together_id: str) -> None:
        self.start_button.setEnabled(True)
        self.status_message.emit(f"Started the class together: {self.plan().words}.")
        self._timer.start()
        self.poll()

    def _not_started(self, sentence: str) -> None:
        self.start_button.setEnabled(True)
        self.stations_label.setText(sentence)
        self.status_message.emit(sentence)

    # -- reading -------------------------------------------------------------------------------
    def _live_started(self) -> None:
        self.result = None
        self._show(None, [])
        self._timer.start()
        self.poll()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        self.refresh_steps()
        if self.live.reading is not None:
            self._timer.start()
            self.poll()

    def poll(self) -> None:
        reading = self.live.reading
        if reading is None:
            self._timer.stop()
            return
        if not self.isVisible() and (self.result is None or self.result.state == "done"):
            self._timer.stop()  # nothing shown and nothing under way: no reading
            return
        if self._reader.busy:
            return
        if reading.store is not None:
            store = reading.store

            def work() -> Results:
                return read_results(store, None, time.time())
        else:
            url, token = reading.url, reading.token

            def work() -> Results:
                answer = call(url, token, "/v1/together")
                if answer.status != 200:
                    raise BadOption(answer.sentence or f"The collector answered {answer.status}.")
                return results_from_wire(answer.data)

        self._reader.run(work, self._read, self._failed)

    def _read(self, results: Results) -> None:
        result, waiting = results
        self._show(result, waiting)
        if result is not None:
            self.result_read.emit(result)

    def _failed(self, sentence: str) -> None:
        self.stations_label.setText(sentence)

    # -- showing -------------------------------------------------------------------------------
    def _show(self, result: TogetherResult | None, waiting: list[Waiting]) -> None:
        self.result, self.waiting = result, waiting
        fresh = [w for w in waiting if w.fresh]
        if self.live.reading is None:
            self.stations_label.setText("Collect live (or open a live class) to measure together.")
        elif not fresh:
            self.stations_label.setText(
                "No station is waiting: on each station, open the exercise and run linklab run "
                "--exercise FILE --wait-for-start."
            )
        else:
            names = ", ".join(f"{w.student} ({offset_words(w.offset_s)})" for w in fresh)
            count = f"{counted(len(fresh), 'station')} waiting"
            self.stations_label.setText(f"{count}: {names}.")
        self.report_button.setEnabled(result is not None and result.state == "done")
        self.chart.show_result(result)
        if result is None:
            self.index_label.setText("")
            self.findings_label.setPlainText("")
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            return
        self.index_label.setText(index_words(result))
        self.findings_label.setPlainText("\n".join(findings(result)))
        fill_stations(self.table, result)

    # -- the report ------------------------------------------------------------------------
    def ask_report(self) -> None:
        if self.result is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Class report", "class-together.pdf", "PDF (*.pdf);;HTML (*.html)"
        )
        if path:
            self.report_to(Path(path))

    def report_to(self, path: Path) -> None:
        if self.result is None:
            return
        from app.ui.common.report_files import write_together_report

        try:
            write_together_report(self.result, path)
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            return
        self.status_message.emit(f"Saved {path.name}.")
        confirm_saved(self, path)

    def shutdown(self) -> None:
        self._timer.stop()
