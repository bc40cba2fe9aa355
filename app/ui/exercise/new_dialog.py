"""File › New exercise…: an instructor writes an exercise from one of LinkLab's ready exercises
or from presets (a step each), chooses the fields students cannot change, adds aims and
questions, and what a hand-in may carry beyond the measurements."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.exercise import LOCKABLE, PRIVATE_FACTS, Exercise, with_id
from app.study.lab.exercises import build_exercise, ready_names
from app.study.sweep.presets import list_presets
from app.ui.common.widgets import ERROR_COLOUR, ComboBox, accessible

REVEAL_WORDS = {
    "ssid": "Network name (SSID)",
    "mac": "MAC addresses",
    "user": "User and computer name",
}


def _checkable(items: list[tuple[str, str]], name: str) -> QListWidget:
    widget = QListWidget()
    accessible(widget, name)
    for text, data in items:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, data)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Unchecked)
        widget.addItem(item)
    return widget


def _checked(widget: QListWidget) -> list[str]:
    return [
        str(widget.item(i).data(Qt.ItemDataRole.UserRole))
        for i in range(widget.count())
        if widget.item(i).checkState() == Qt.CheckState.Checked
    ]


def preview_text(exercise: Exercise) -> str:
    """The steps (with what each locks) and the questions of an exercise, a line each."""
    lines = []
    for number, step in enumerate(exercise.steps, 1):
        locked = f" (locks {step.locked_text()})" if step.locked else ""
        lines.append(f"{number}. {step.short_title()}{locked}")
        lines += [f"     Q: {question}" for question in step.questions]
    lines += [f"At the end, Q: {question}" for question in exercise.questions]
    return "\n".join(lines)


class NewExerciseDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New exercise")
        self.exercise: Exercise | None = None
        self.title_edit = QLineEdit()
        accessible(self.title_edit, "Title")
        self.aims = QPlainTextEdit()
        accessible(self.aims, "Aims")
        self.aims.setMaximumHeight(70)
        self.from_ready = QRadioButton("A ready exercise")
        self.from_presets = QRadioButton("Presets, a step each")
        self.from_ready.setChecked(True)
        self.ready = ComboBox()
        accessible(self.ready, "Ready exercise")
        for name, exercise in ready_names().items():
            self.ready.addItem(f"{exercise.title} ({len(exercise.steps)} steps)", name)
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setTextFormat(Qt.TextFormat.PlainText)
        accessible(self.preview, "Exercise preview")
        self._filled = ("", "")  # the title and aims the last ready exercise put there
        self.presets = _checkable([(p.title, p.name) for p in list_presets()], "Presets")
        self.locks = _checkable(
            [(words, name) for name, (words, _) in LOCKABLE.items()], "Locked fields"
        )
        self.questions = QPlainTextEdit()
        accessible(self.questions, "Questions")
        self.questions.setPlaceholderText("One question per line, answered at the end.")
        self.questions.setMaximumHeight(70)
        self.reveal = {fact: QCheckBox(REVEAL_WORDS[fact]) for fact in PRIVATE_FACTS}
        self.error = QLabel()
        self.error.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.error.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Title", self.title_edit)
        form.addRow("&Aims", self.aims)
        source = QGroupBox("Steps from")
        grid = QGridLayout(source)
        grid.addWidget(self.from_ready, 0, 0)
        grid.addWidget(self.ready, 0, 1)
        self.preview_area = QScrollArea()
        self.preview_area.setWidgetResizable(True)
        self.preview_area.setWidget(self.preview)
        self.preview_area.setMaximumHeight(150)
        grid.addWidget(self.preview_area, 1, 1)
        grid.addWidget(self.from_presets, 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.presets, 2, 1)
        locks_box = QGroupBox("Fields students cannot change (presets)")
        QVBoxLayout(locks_box).addWidget(self.locks)
        reveal_box = QGroupBox("Hand-ins may also carry")
        reveal_layout = QVBoxLayout(reveal_box)
        for box in self.reveal.values():
            reveal_layout.addWidget(box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(source)
        layout.addWidget(locks_box)
        extra = QFormLayout()
        extra.addRow("&Questions", self.questions)
        layout.addLayout(extra)
        layout.addWidget(reveal_box)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.from_ready.toggled.connect(self._source_changed)
        self.ready.currentIndexChanged.connect(self._ready_changed)
        self._source_changed()
        self.resize(640, 760)

    def _source_changed(self) -> None:
        ready = self.from_ready.isChecked()
        self.ready.setEnabled(ready)
        self.preview_area.setVisible(ready)
        self.presets.setEnabled(not ready)
        self.locks.setEnabled(not ready)
        if ready:
            self._ready_changed()

    def _ready_changed(self) -> None:
        """The ready exercise's steps and questions shown, its title and aims filled in
        (unless the instructor has typed their own)."""
        exercise = ready_names().get(str(self.ready.currentData()))
        if exercise is None:
            return
        self.preview.setText(preview_text(exercise))
        title, aims = self._filled
        if self.title_edit.text().strip() in ("", title):
            self.title_edit.setText(exercise.title)
        if self.aims.toPlainText().strip() in ("", aims):
            self.aims.setPlainText(exercise.aims)
        self._filled = (exercise.title, exercise.aims)

    def _accept(self) -> None:
        questions = [q.strip() for q in self.questions.toPlainText().splitlines() if q.strip()]
        reveal = [fact for fact, box in self.reveal.items() if box.isChecked()]
        title = self.title_edit.text().strip()
        try:
            if self.from_ready.isChecked():
                base = with_id(ready_names()[self.ready.currentData()])
                self.exercise = replace(
                    base,
                    title=title or base.title,
                    aims=self.aims.toPlainText().strip() or base.aims,
                    questions=(*base.questions, *questions),
                    reveal=tuple(reveal),
                )
            else:
                self.exercise = build_exercise(
                    title,
                    _checked(self.presets),
                    lock=_checked(self.locks),
                    aims=self.aims.toPlainText().strip(),
                    questions=questions,
                    reveal=reveal,
                )
        except LinkLabError as err:
            self.error.setText(err.sentence)
            return
        self.accept()
