"""The Class tab: an instructor's view of a folder of hand-ins (opened, or dropped on the tab),
one row per student with status, steps, runs, the main result of each step against the class
median, and flags to look at; the class chart of a step; the grades table for a spreadsheet."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QBrush, QColor, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import BadOption
from app.domain.exercise import EXERCISE_SUFFIX, Exercise
from app.domain.units import counted, format_rate
from app.report.class_export import grades_csv
from app.study.files.exchange import EXCHANGE_SUFFIX
from app.study.lab.classroom import ClassView, StudentRow, read_class
from app.study.lab.exercises import read_exercise
from app.ui.classroom.chart import ClassChart
from app.ui.classroom.live import LiveBar
from app.ui.classroom.together import TogetherPanel
from app.ui.common.background import Background
from app.ui.common.saved import confirm_saved
from app.ui.common.widgets import ComboBox, accessible
from app.ui.context import AppContext

#: A flagged row: a light amber background with black text, readable in light and dark themes
#: (the Flags column says the words; the colour only draws the eye).
FLAGGED_BACKGROUND = "#fff4dc"
FLAGGED_TEXT = "#000000"
MESSAGE_STYLE = (
    "QLabel { background-color: #fff4dc; color: #000; border: 2px solid #E69F00; padding: 6px; }"
)
HINT = (
    "Open the folder your students' hand-ins (.linklab files) were saved in, or drop the folder "
    "or the files here."
)

ClassSource = Path | tuple[Path, ...]  # a folder, or the hand-in files dropped


def dropped_source(paths: Iterable[Path]) -> ClassSource | None:
    """What a drop of these paths opens: the first folder, else the .linklab files; None when
    it holds neither."""
    paths = list(paths)
    folders = [p for p in paths if p.is_dir()]
    if folders:
        return folders[0]
    files = tuple(p for p in paths if p.is_file() and p.suffix.lower() == EXCHANGE_SUFFIX)
    return files or None


def read_class_from(source: ClassSource, exercise_file: Path | None) -> ClassView:
    """read_class with every file problem as a sentence (run off the GUI thread)."""
    try:
        exercise = read_exercise(exercise_file) if exercise_file is not None else None
        return read_class(source if isinstance(source, Path) else list(source), exercise)
    except OSError as err:
        raise BadOption(
            f"Cannot read the hand-ins ({err.strerror or err}): check that the folder is there "
            f"and that you may open it."
        ) from None


def _mbit(bps: float | None) -> str:
    return "—" if bps is None else f"{bps / 1e6:.1f}"


def _item(text: str, *, right: bool = False, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tip:
        item.setToolTip(tip)
    return item


class ClassTab(QWidget):
    status_message = Signal(str)

    def __init__(self, context: AppContext | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.view: ClassView | None = None
        self.source: ClassSource | None = None
        self.exercise_file: Path | None = None
        self._reader = Background(self)
        self.open_button = QPushButton("Open class folder…")
        self.open_button.setToolTip(
            "Choose the folder of hand-ins (.linklab files): one row per student."
        )
        self.exercise_button = QPushButton("Exercise…")
        self.exercise_button.setToolTip(
            "Choose the exercise file (.linklab-exercise) to read the hand-ins against; by "
            "default, the exercise most hand-ins were made for."
        )
        self.export_button = QPushButton("Grades CSV…")
        self.export_button.setToolTip(
            "Save the grades table for a spreadsheet: status, flags, steps, runs, each step's "
            "result and the class median, notes."
        )
        self.export_button.setEnabled(False)
        self.summary = QLabel(HINT)
        self.summary.setObjectName("class_summary")
        accessible(self.summary, "Class")
        self.summary.setWordWrap(True)
        self.message = QLabel()
        self.message.setObjectName("class_message")
        accessible(self.message, "Files not read")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setStyleSheet(MESSAGE_STYLE)
        self.message.hide()
        self.medians = QLabel()
        self.medians.setObjectName("class_medians")
        accessible(self.medians, "Class median")
        self.medians.setToolTip(
            "The median over the class of each step's main result (the mean throughput of the "
            "step's first series)."
        )
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("class_students")
        accessible(self.table, "Students")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.step_box = ComboBox()
        self.step_box.setObjectName("class_step")
        accessible(self.step_box, "Step")
        self.step_box.setToolTip("The step of the exercise the chart shows.")
        step_label = QLabel("Step")
        step_label.setBuddy(self.step_box)
        self.chart = ClassChart()
        self.chart.setObjectName("class_chart")
        self.chart.setAccessibleName("Class chart")
        self.chart.show_step(None, 0)
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.exercise_button)
        top.addWidget(self.summary, 1)
        chart_box = QWidget()
        chart_layout = QVBoxLayout(chart_box)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chooser = QHBoxLayout()
        chooser.addWidget(step_label)
        chooser.addWidget(self.step_box, 1)
        chooser.addStretch(1)
        chart_layout.addLayout(chooser)
        chart_layout.addWidget(self.chart, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(chart_box)
        splitter.setSizes([300, 400])
        bottom = QHBoxLayout()
        bottom.addWidget(self.medians, 1)
        bottom.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        self.live: LiveBar | None = None
        if context is not None:  # a class collected live: its collector, or another's
            self.live = LiveBar(context, lambda: self.exercise_file, self)
            self.live.view_read.connect(self._loaded)
            self.live.waiting.connect(self._live_waiting)
            self.live.status_message.connect(self.status_message)
            self.live.started.connect(self._clear)  # a live class replaces what was shown
            layout.addWidget(self.live)
        layout.addWidget(self.message)
        self.together: TogetherPanel | None = None
        if self.live is not None:
            # A class collected live can also measure together: a page of its own.
            pages = QTabWidget()
            students = QWidget()
            students_layout = QVBoxLayout(students)
            students_layout.setContentsMargins(0, 0, 0, 0)
            students_layout.addWidget(splitter, 1)
            students_layout.addLayout(bottom)
            pages.addTab(students, "Students")
            self.together = TogetherPanel(self.live, self._exercise, self)
            self.together.status_message.connect(self.status_message)
            pages.addTab(self.together, "Together")
            layout.addWidget(pages, 1)
        else:
            layout.addWidget(splitter, 1)
            layout.addLayout(bottom)
        self.open_button.clicked.connect(self.ask_folder)
        self.exercise_button.clicked.connect(self.ask_exercise)
        self.export_button.clicked.connect(self.ask_export)
        self.step_box.currentIndexChanged.connect(self._draw)
        self.step_box.setEnabled(False)

    def _exercise(self) -> Exercise | None:
        return self.view.exercise if self.view is not None else None

    # -- choosing what to read --------------------------------------------------------------
    @property
    def reading(self) -> bool:
        return self._reader.busy

    def ask_folder(self) -> None:
        start = str(self.source) if isinstance(self.source, Path) else ""
        folder = QFileDialog.getExistingDirectory(self, "Open class folder", start)
        if folder:
            self.open(Path(folder))

    def ask_exercise(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Exercise the hand-ins are for",
            str(self.exercise_file or ""),
            f"LinkLab exercise (*{EXERCISE_SUFFIX});;All files (*)",
        )
        if path:
            self.exercise_file = Path(path)
            if self.live is not None and self.live.reading is not None:
                self.live.reading.last = ""  # read again against this exercise
                self.live.poll()
            elif self.source is not None:
                self._read()
            else:
                self.summary.setText(
                    f"Exercise: {self.exercise_file.name}. Now open the class folder."
                )

    def open(self, source: ClassSource) -> None:
        """Read a folder (or hand-in files) in the background; shown when read."""
        if self.live is not None:
            self.live.stop()
        self.source = source
        self._read()

    def _read(self) -> None:
        source, exercise_file = self.source, self.exercise_file
        if source is None:
            return
        where = source.name if isinstance(source, Path) else f"{len(source)} files"
        self.summary.setText(f"Reading the hand-ins in {where}…")
        self.open_button.setEnabled(False)
        self._reader.run(lambda: read_class_from(source, exercise_file), self._loaded, self._failed)

    def _failed(self, sentence: str) -> None:
        """Nothing of an earlier class stays on screen under a sentence about this one."""
        self._clear()
        self.message.setText(sentence)
        self.message.show()
        self.status_message.emit(sentence)

    def _clear(self) -> None:
        self.open_button.setEnabled(True)
        self.view = None
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.step_box.clear()
        self.step_box.setEnabled(False)
        self.medians.setText("")
        self.export_button.setEnabled(False)
        self.chart.show_step(None, 0)
        self.summary.setText(HINT)
        self.message.hide()

    def _loaded(self, view: ClassView) -> None:
        self.open_button.setEnabled(True)
        self.view = view
        chosen = "" if self.exercise_file is None else f" (from {self.exercise_file.name})"
        flagged = sum(1 for row in view.rows if row.flags)
        reading = self.live.reading if self.live is not None else None
        if reading is not None:
            self.summary.setText(
                f"“{view.exercise.title}”{chosen}, live from {reading.where}: "
                f"{counted(len(view.rows), 'student')}, {flagged} flagged to look at; updated "
                f"{time.strftime('%H:%M:%S')}."
            )
        else:
            where = self.source.name if isinstance(self.source, Path) else "the files dropped"
            self.summary.setText(
                f"“{view.exercise.title}”{chosen}: {counted(len(view.rows), 'hand-in')} from "
                f"{where}, {flagged} flagged to look at."
            )
        if view.unreadable:
            self.message.setText(
                "Not read (ask these students for their hand-in again):\n"
                + "\n".join(view.unreadable)
            )
        self.message.setVisible(bool(view.unreadable))
        self._fill_table(view)
        medians = " · ".join(f"step {n}: {format_rate(m)}" for n, m in enumerate(view.medians, 1))
        self.medians.setText(f"Class median: {medians}" if view.rows else "")
        previous = self.step_box.currentIndex()
        self.step_box.blockSignals(True)
        self.step_box.clear()
        for step in view.exercise.steps:
            self.step_box.addItem(step.title)
        self.step_box.setCurrentIndex(previous if 0 <= previous < self.step_box.count() else 0)
        self.step_box.blockSignals(False)
        self.step_box.setEnabled(True)
        self.export_button.setEnabled(bool(view.rows))
        self._draw()
        if reading is not None:
            self.status_message.emit(f"The class, live: {counted(len(view.rows), 'student')}.")
            return
        self.status_message.emit(
            f"Read {counted(len(view.rows), 'hand-in')}"
            + (f"; {counted(len(view.unreadable), 'file')} not read." if view.unreadable else ".")
        )

    def _live_waiting(self, sentence: str) -> None:
        """Live, with no class to show yet (nothing arrived), or a read that failed."""
        if self.view is None:
            self.summary.setText(sentence)
        else:
            self.status_message.emit(sentence)

    # -- showing ---------------------------------------------------------------------------
    def _fill_table(self, view: ClassView) -> None:
        steps = view.exercise.steps
        headers = ["Student", "Group", "Status", "Steps", "Runs"]
        headers += [f"Step {n} (Mbit/s)" for n in range(1, len(steps) + 1)]
        headers += ["Flags", "Notes"]
        table = self.table
        table.clear()
        table.setColumnCount(len(headers))
        table.setRowCount(len(view.rows))
        for column, text in enumerate(headers):
            header = QTableWidgetItem(text)
            number = column - 4
            if 1 <= number <= len(steps):
                median = view.medians[number - 1] if view.medians else None
                header.setToolTip(
                    f"{steps[number - 1].title}: the mean throughput of the step's first "
                    f"series, over all its runs.\nClass median: {format_rate(median)}."
                )
            table.setHorizontalHeaderItem(column, header)
        for row_index, row in enumerate(view.rows):
            cells = self._cells(row, len(steps))
            for column, (text, right, tip) in enumerate(cells):
                item = _item(text, right=right, tip=tip)
                if row.flags:
                    item.setBackground(QBrush(QColor(FLAGGED_BACKGROUND)))
                    item.setForeground(QBrush(QColor(FLAGGED_TEXT)))
                table.setItem(row_index, column, item)
        head = table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)

    @staticmethod
    def _cells(row: StudentRow, steps: int) -> list[tuple[str, bool, str]]:
        notes = "\n".join(row.notes)
        cells = [
            (row.student, False, row.file),
            (row.group, False, ""),
            (row.status, False, ""),
            (f"{row.steps_done}/{steps}", True, ""),
            (f"{row.runs_done}/{row.runs_planned}", True, ""),
        ]
        for result in row.steps:
            tip = "\n".join(result.deviations)
            if result.series is not None:
                tip = f"{result.series.label}: {format_rate(result.main_bps)}\n{tip}".strip()
            cells.append((_mbit(result.main_bps), True, tip))
        cells.append((", ".join(row.flags), False, notes))
        cells.append((" ".join(row.notes), False, notes))
        return cells

    def _draw(self) -> None:
        self.chart.show_step(self.view, self.step_box.currentIndex() + 1)

    # -- drag and drop -----------------------------------------------------------------------
    @staticmethod
    def _paths(urls: Sequence[QUrl]) -> list[Path]:
        return [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        mime = event.mimeData()
        if mime.hasUrls() and dropped_source(self._paths(mime.urls())) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        source = dropped_source(self._paths(event.mimeData().urls()))
        if source is None:
            self.status_message.emit(
                "Drop a folder of hand-ins or .linklab files to read them as a class."
            )
            event.ignore()
            return
        event.acceptProposedAction()
        self.open(source)

    # -- exports ---------------------------------------------------------------------------
    def ask_export(self) -> None:
        if self.view is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Grades table", "grades.csv", "CSV (*.csv)")
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        if self.view is None:
            return
        try:
            together = self.together.result if self.together is not None else None
            path.write_text(grades_csv(self.view, together), encoding="utf-8", newline="")
        except OSError as err:
            self.status_message.emit(
                f"Cannot write {path} ({err.strerror or err}): choose another place."
            )
            return
        self.status_message.emit(f"Saved {path.name}.")
        confirm_saved(self, path)
