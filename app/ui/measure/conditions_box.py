"""The conditions the user states about the link: security, medium, tags and notes.

Security and medium sit on the Study page, tags and notes on the Advanced page; this object
owns the four controls and turns them into Conditions.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QWidget

from app.domain.plan import Conditions, Medium, Security
from app.domain.tags import TagError, parse_tags, tags_text
from app.ui.common.widgets import ValueCombo, _combo, accessible


class ConditionsBox(QObject):
    """Detection may pre-fill the security (marked "detected"); the user's choice wins."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.security: ValueCombo = _combo(
            [(s.value if s is not Security.OPEN else "open (no security)", s) for s in Security],
            "The link's security, as you set it up: LinkLab cannot change it, but records it "
            "to compare sessions.",
        )
        accessible(self.security, "Security")
        self.security.setCurrentIndex(self.security.findData(Security.UNKNOWN))
        self.security_note = QLabel()
        self.security_note.setObjectName("security_note")
        self.medium: ValueCombo = _combo(
            [(m.value, m) for m in Medium], "The medium of the link under test."
        )
        accessible(self.medium, "Medium")
        self.medium.setCurrentIndex(self.medium.findData(Medium.UNKNOWN))
        self.tags = QLineEdit()
        self.tags.setObjectName("tags")
        accessible(self.tags, "Tags")
        self.tags.setPlaceholderText("open, room=B12, os=Windows 7")
        self.tags.setToolTip(
            "Free tags separated by commas, to find and compare sessions later: plain labels "
            "(open) or KEY=VALUE (room=B12)."
        )
        self.notes = QPlainTextEdit()
        self.notes.setPlaceholderText("Anything else worth knowing about this session")
        self.notes.setMaximumHeight(56)
        accessible(self.notes, "Notes")
        self.notes.setToolTip("Anything else worth knowing about this session.")
        self._detected = False
        self._quiet = False
        self.security.currentIndexChanged.connect(self._security_changed)
        self.medium.currentIndexChanged.connect(self.changed)
        self.tags.textChanged.connect(self.changed)
        self.notes.textChanged.connect(self.changed)

    def security_row(self) -> QWidget:
        """The security box with its "(detected)" note beside it."""
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.security, 1)
        layout.addWidget(self.security_note)
        return row

    def _security_changed(self) -> None:
        if not self._quiet:
            self._detected = False
            self.security_note.setText("")
        self.changed.emit()

    def set_detected_security(self, value: str) -> None:
        if self.security.currentData() is not Security.UNKNOWN:
            return
        try:
            index = self.security.findData(Security(value))
        except ValueError:
            return
        if index < 0:
            return
        self._quiet = True
        self.security.setCurrentIndex(index)
        self._quiet = False
        self._detected = True
        self.security_note.setText("(detected)")
        self.changed.emit()

    def tag_problem(self) -> str:
        try:
            parse_tags(self.tags.text())
        except TagError as err:
            return str(err)
        return ""

    def conditions(self) -> Conditions:
        try:
            tags = parse_tags(self.tags.text())
        except TagError:
            tags = {}
        return Conditions(
            security=self.security.currentData(),
            medium=self.medium.currentData(),
            tags=tuple(sorted(tags.items())),
            notes=self.notes.toPlainText(),
            security_detected=self._detected,
        )

    def set_conditions(self, conditions: Conditions) -> None:
        self._quiet = True
        try:
            self.security.setCurrentIndex(self.security.findData(conditions.security))
            self.medium.setCurrentIndex(self.medium.findData(conditions.medium))
            self.tags.setText(tags_text(conditions.tags))
            if self.notes.toPlainText() != conditions.notes:
                self.notes.setPlainText(conditions.notes)
        finally:
            self._quiet = False
        self._detected = conditions.security_detected
        self.security_note.setText("(detected)" if self._detected else "")
