"""The student's guided view of a lab exercise: the aims, their name and group, the steps (each
opening when the one before is done) beside the current one (step_detail.py), and the lab
report and hand-in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.exercise import Exercise
from app.report.lab_report import LabReport, collect_lab_report
from app.study.files.exchange import EXCHANGE_SUFFIX, write_exchange
from app.study.lab.exercises import StepProgress, safe_file_name
from app.ui.common.background import Background
from app.ui.common.file_dialogs import save_file
from app.ui.common.saved import confirm_saved
from app.ui.common.widgets import ERROR_COLOUR, accessible
from app.ui.context import AppContext
from app.ui.exercise.step_detail import STATE_WORDS, StepDetail

CONCLUSION = 0  # the list entry after the steps, for the exercise's own questions


@dataclass(frozen=True)
class _Read:
    exercise_id: str  # the exercise read: a read still under way when it closed is dropped
    progress: list[StepProgress]
    report: LabReport


class ExerciseView(QWidget):
    setup_requested = Signal(int)  # step number: set it up on the Measure tab
    closed = Signal()
    status_message = Signal(str)
    answer_saved = Signal()  # an answer was kept: pushed to the class when it collects live

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.exercise: Exercise | None = None
        self.read: _Read | None = None
        self.running_step: int | None = None  # the step whose study runs now
        self._reader = Background(self)
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 15pt; font-weight: bold;")
        self.title.setWordWrap(True)
        accessible(self.title, "Exercise title")
        self.aims = QLabel()
        self.aims.setWordWrap(True)
        accessible(self.aims, "Aims")
        self.student = QLineEdit()
        accessible(self.student, "Your name")
        self.student.setPlaceholderText("as your instructor knows you")
        self.group = QLineEdit()
        accessible(self.group, "Group")
        self.name_error = QLabel()
        self.name_error.setStyleSheet(f"color: {ERROR_COLOUR};")
        who = QGridLayout()
        for column, (text, edit) in enumerate(
            (("Your &name", self.student), ("&Group", self.group))
        ):
            label = QLabel(text)
            label.setBuddy(edit)
            who.addWidget(label, 0, 2 * column)
            who.addWidget(edit, 0, 2 * column + 1)
        who.addWidget(self.name_error, 1, 1, 1, 3)
        self.steps = QListWidget()
        accessible(self.steps, "Steps")
        self.steps.setMinimumWidth(340)
        self.steps.setWordWrap(True)
        self.detail = StepDetail(self._save_answer)
        self.answers = self.detail.answers
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        self.detail_scroll = scroll
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.steps)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(1, 1)
        self.report_button = QPushButton("Write lab report…")
        self.report_button.setToolTip(
            "Draft your lab report: aims, equipment, each experiment with its chart, tables "
            "and findings, and your answers; as an editable .docx, a PDF or HTML."
        )
        self.handin_button = QPushButton("Hand in…")
        self.handin_button.setToolTip(
            "Save your measurements, name, group and answers in one file for your instructor "
            "(no network name, MAC address or user name unless the exercise asks)."
        )
        self.close_button = QPushButton("Close exercise")
        bottom = QHBoxLayout()
        bottom.addWidget(self.close_button)
        bottom.addStretch(1)
        bottom.addWidget(self.report_button)
        bottom.addWidget(self.handin_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.aims)
        layout.addLayout(who)
        self.class_status = QLabel()
        self.class_status.setWordWrap(True)
        accessible(self.class_status, "Sent to the class")
        self.class_status.hide()
        layout.addWidget(self.class_status)
        # A class measuring together: this window a station of it, when the exercise names
        # the class's collector.
        self.together = QCheckBox("Wait for Start together")
        self.together.setToolTip(
            "Check in with the class's collector and measure each round of the instructor's "
            "Start together at the same moment as every other station."
        )
        self.together_status = QLabel()
        self.together_status.setWordWrap(True)
        accessible(self.together_status, "Measuring together")
        together_row = QHBoxLayout()
        together_row.addWidget(self.together)
        together_row.addWidget(self.together_status, 1)
        self.together_box = QWidget()
        self.together_box.setLayout(together_row)
        together_row.setContentsMargins(0, 0, 0, 0)
        self.together_box.hide()
        layout.addWidget(self.together_box)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)
        # Where the last hand-in went, kept in sight beside the buttons (the status bar's
        # sentence gives way to the next one).
        self.handed_in = QLabel()
        self.handed_in.setWordWrap(True)
        self.handed_in.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        accessible(self.handed_in, "Handed in")
        self.handed_in.hide()
        layout.addWidget(self.handed_in)
        self.steps.currentRowChanged.connect(lambda _row: self._show_step())
        self.student.editingFinished.connect(self.refresh)
        self.group.editingFinished.connect(self._group_changed)
        self.detail.setup_button.clicked.connect(self._setup)
        self.report_button.clicked.connect(self._ask_report)
        self.handin_button.clicked.connect(self._ask_handin)
        self.close_button.clicked.connect(self.closed.emit)

    # -- opening and reading --------------------------------------------------------------------
    def open_exercise(self, exercise: Exercise) -> None:
        self.answers.flush()
        self.exercise = exercise
        self.title.setText(exercise.title)
        self.aims.setText(f"Aims: {exercise.aims}" if exercise.aims else "")
        self.read = None
        self.refresh()

    def close_exercise(self) -> None:
        """Forget the exercise: a study started later is the user's own, with no step to show
        as running, and a read of the closed exercise that is still under way is dropped."""
        self.answers.flush()
        self.exercise = None
        self.read = None
        self.running_step = None
        self.steps.clear()
        self.handed_in.hide()

    @property
    def reading(self) -> bool:
        return self._reader.busy

    def refresh(self) -> None:
        """Read the student's progress and results in the background."""
        exercise = self.exercise
        if exercise is None:
            return
        student = self.student.text().strip()
        door = self.context.door()
        if student:
            self.name_error.setText("")
            self._begin()

        def read() -> _Read:
            desk = door.exercises()
            return _Read(
                exercise.id,
                desk.progress(exercise, student),
                collect_lab_report(door, exercise, student),
            )

        self._reader.run(read, self._loaded, self.status_message.emit)

    def _begin(self) -> None:
        """Keep the student's name and group with the exercise (answers need it)."""
        if self.exercise is None:
            return
        try:
            self.context.door().exercises().begin(
                self.exercise, self.student.text(), self.group.text()
            )
        except LinkLabError as err:
            self.status_message.emit(err.sentence)

    def _group_changed(self) -> None:
        if self.student.text().strip():
            self._begin()

    def _loaded(self, read: _Read) -> None:
        if self.exercise is None or read.exercise_id != self.exercise.id:
            return  # read for an exercise closed (or replaced) since
        self.read = read
        current = self.steps.currentRow()
        self.steps.blockSignals(True)
        self.steps.clear()
        for progress in read.progress:
            state = "running…" if progress.number == self.running_step else progress.state
            text = f"{progress.number}. {progress.step.short_title()} — {STATE_WORDS[state]}"
            self.steps.addItem(QListWidgetItem(text))
        if self.exercise.questions:
            self.steps.addItem(QListWidgetItem("Conclusion — the exercise's questions"))
        next_step = next((p.number for p in read.progress if not p.done), len(read.progress))
        self.steps.setCurrentRow(current if current >= 0 else next_step - 1)
        self.steps.blockSignals(False)
        self._show_step()

    def set_running(self, step: int | None) -> None:
        """The step whose study runs on the Measure tab (None: none): it reads "running…"."""
        self.running_step = step
        if self.read is not None:
            self._loaded(self.read)

    # -- one step ---------------------------------------------------------------------------
    def _show_step(self) -> None:
        read, exercise = self.read, self.exercise
        if read is None or exercise is None:
            return
        row = self.steps.currentRow()
        answers = {qid: text for s in read.report.steps for qid, _, text in s.answers}
        answers |= {qid: text for qid, _, text in read.report.final_answers}
        if row >= len(read.progress):  # the conclusion
            self.detail.show_conclusion(
                [(qid, q) for qid, q, _ in read.report.final_answers], answers
            )
            return
        self.detail_scroll.verticalScrollBar().setValue(0)  # a step is read from its top
        progress = read.progress[max(row, 0)]
        self.detail.show_step(
            progress,
            len(read.progress),
            read.report.steps[max(row, 0)],
            answers,
            running=progress.number == self.running_step,
        )

    def _save_answer(self, qid: str, text: str) -> None:
        if self.exercise is None:
            return
        if not self.student.text().strip():
            self.name_error.setText("Type your name first: your answers are kept under it.")
            return
        try:
            self.context.door().exercises().answer(self.exercise, self.student.text(), qid, text)
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            return
        self.status_message.emit(f"Answer {qid} kept.")
        self.answer_saved.emit()

    def _need_name(self) -> bool:
        if self.student.text().strip():
            return False
        self.name_error.setText(
            "Type your name before you start: the exercise records who measured."
        )
        self.student.setFocus()
        return True

    def _setup(self) -> None:
        if self._need_name() or self.read is None:
            return
        self.answers.flush()
        self._begin()
        self.setup_requested.emit(self.steps.currentRow() + 1)

    # -- report and hand-in -----------------------------------------------------------------
    def _ask_report(self) -> None:
        if self._need_name() or self.exercise is None:
            return
        path = save_file(
            self,
            self.context.settings,
            "report",
            "Write lab report",
            f"{safe_file_name(self.student.text().strip())} - lab report.docx",
            "Word document (*.docx);;PDF (*.pdf);;HTML (*.html)",
        )
        if path:
            self.write_report(path)

    def write_report(self, path: Path) -> None:
        from app.ui.common.report_files import write_lab_report

        assert self.exercise is not None
        self.answers.flush()
        try:
            report = collect_lab_report(self.context.door(), self.exercise, self.student.text())
            write_lab_report(report, path)
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            return
        self.status_message.emit(f"Saved the lab report {path.name} in {path.parent}.")
        confirm_saved(self, path)

    def _ask_handin(self) -> None:
        if self._need_name() or self.exercise is None:
            return
        if not self._unfinished_confirmed():
            return
        path = save_file(
            self,
            self.context.settings,
            "handin",
            "Hand in",
            f"{safe_file_name(self.student.text().strip())}{EXCHANGE_SUFFIX}",
            f"LinkLab hand-in (*{EXCHANGE_SUFFIX})",
        )
        if path:
            self.write_handin(path)

    def _unfinished_confirmed(self) -> bool:
        """A hand-in with steps not done is said before the file is written: which ones."""
        read = self.read
        if read is None:
            return True
        left = [p for p in read.progress if not p.done]
        if not left:
            return True
        names = "; ".join(f"step {p.number}, {p.step.short_title()}" for p in left)
        plural = len(left) != 1
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Hand in",
            f"{len(left)} of {len(read.progress)} steps {'are' if plural else 'is'} not done: "
            f"{names}. Your instructor will see {'them' if plural else 'it'} as unfinished. "
            f"Hand in anyway, or go back and finish {'them' if plural else 'it'}?",
            parent=self,
        )
        hand_in = box.addButton("Hand in anyway", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Go back", QMessageBox.ButtonRole.RejectRole)
        box.exec()
        return box.clickedButton() is hand_in

    def write_handin(self, path: Path) -> None:
        assert self.exercise is not None
        self.answers.flush()
        try:
            desk = self.context.door().exercises()
            write_exchange(path, desk.handin_all(self.exercise, self.student.text().strip()))
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            return
        when = datetime.now().strftime("%H:%M")
        sent = (
            f" Your runs and answers also go to the class at {self.exercise.collector.url}."
            if self.exercise.collector is not None
            else ""
        )
        said = (
            f"Handed in at {when}: saved {path.name} in {path.parent}; give this file to "
            f"your instructor.{sent}"
        )
        self.handed_in.setText(said)
        self.handed_in.show()
        self.status_message.emit(said)
        confirm_saved(self, path)
