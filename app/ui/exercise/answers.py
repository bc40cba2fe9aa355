"""The questions of a step with a box for each answer, kept in the database as the student
types (a moment after the last key, and when the box loses focus): nothing typed is lost."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.ui.common.widgets import accessible

SAVE_AFTER_MS = 700


class AnswerBox(QPlainTextEdit):
    left = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.left.emit()


class AnswersPanel(QWidget):
    """Question labels, each above its answer box (accessible name "Answer 2.1")."""

    def __init__(self, save: Callable[[str, str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._save = save
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, AnswerBox] = {}
        self._dirty: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_AFTER_MS)
        self._timer.timeout.connect(self.flush)

    def show_questions(self, questions: Sequence[tuple[str, str]], answers: dict[str, str]) -> None:
        """(question id, text) pairs with the answers kept so far."""
        self.flush()
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # gone now, not at the next turn of the event loop
                widget.deleteLater()
        self.boxes = {}
        if not questions:
            self._layout.addWidget(QLabel("This step asks no questions."))
        for qid, text in questions:
            label = QLabel(f"<b>Q{qid}.</b> {_html(text)}")
            label.setWordWrap(True)
            box = AnswerBox()
            accessible(box, f"Answer {qid}")
            box.setPlaceholderText("Your answer: kept as you type.")
            box.setPlainText(answers.get(qid, ""))
            box.setMinimumHeight(70)
            label.setBuddy(box)
            box.textChanged.connect(lambda q=qid: self._typed(q))
            box.left.connect(self.flush)
            self._layout.addWidget(label)
            self._layout.addWidget(box)
            self.boxes[qid] = box

    def _typed(self, qid: str) -> None:
        self._dirty.add(qid)
        self._timer.start()

    def flush(self) -> None:
        """Save every answer changed since the last save."""
        self._timer.stop()
        dirty, self._dirty = self._dirty, set()
        for qid in sorted(dirty):
            box = self.boxes.get(qid)
            if box is not None:
                self._save(qid, box.toPlainText())


def _html(text: str) -> str:
    from html import escape

    return escape(text)
