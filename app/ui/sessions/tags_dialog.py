"""The dialog that edits one session's free tags (a label or KEY=VALUE per line) and notes."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from app.domain.records import SessionRecord
from app.domain.tags import TagError, parse_tags, tags_text


class TagsDialog(QDialog):
    """Free tags (KEY=VALUE per line) and notes of one session."""

    def __init__(self, session: SessionRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Tags and notes — {session.name or session.short_id}")
        conditions = session.conditions
        self.tags_edit = QPlainTextEdit(tags_text(conditions.tags, "\n"))
        self.tags_edit.setPlaceholderText("open\nroom=B12\nap=lab-ap-2")
        self.notes_edit = QPlainTextEdit(conditions.notes)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #D55E00")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Tags (a label or KEY=VALUE, one per line)", self.tags_edit)
        form.addRow("Notes", self.notes_edit)
        form.addRow(self.error)
        form.addRow(buttons)
        self.tags: dict[str, str] = conditions.tag_dict

    def accept(self) -> None:
        try:
            self.tags = parse_tags(self.tags_edit.toPlainText())
        except TagError as err:
            self.error.setText(str(err))
            return
        super().accept()

    @property
    def notes(self) -> str:
        return self.notes_edit.toPlainText().strip()
