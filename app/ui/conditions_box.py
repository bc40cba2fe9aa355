"""The conditions the user states about the link: security, medium, tags and notes."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from app.study.plan import Conditions, Medium, Security
from app.ui.widgets import _combo, parse_tags


class ConditionsBox(QGroupBox):
    """Detection may pre-fill the security (marked "detected"); the user's choice wins."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Conditions (what you know about the link)", parent)
        form = QFormLayout(self)
        self.security = _combo(
            [(s.value if s is not Security.OPEN else "open (no security)", s) for s in Security],
            "The link's security, as you set it up: LinkLab cannot change it, but records it "
            "to compare sessions.",
        )
        self.security.setCurrentIndex(self.security.findData(Security.UNKNOWN))
        self.security_note = QLabel()
        self.security_note.setObjectName("security_note")
        self.medium = _combo([(m.value, m) for m in Medium], "The medium of the link.")
        self.medium.setCurrentIndex(self.medium.findData(Medium.UNKNOWN))
        self.tags = QLineEdit()
        self.tags.setObjectName("tags")
        self.tags.setPlaceholderText("os=Windows 7, room=B12")
        self.tags.setToolTip(
            "Free KEY=VALUE tags, separated by commas, to find and compare sessions later."
        )
        self.notes = QPlainTextEdit()
        self.notes.setPlaceholderText("Notes")
        self.notes.setMaximumHeight(60)
        self.notes.setToolTip("Anything else worth knowing about this session.")
        security_row = QHBoxLayout()
        security_row.addWidget(self.security, 1)
        security_row.addWidget(self.security_note)
        form.addRow("Security", security_row)
        form.addRow("Medium", self.medium)
        form.addRow("Tags", self.tags)
        form.addRow("Notes", self.notes)
        self._detected = False
        self._quiet = False
        self.security.currentIndexChanged.connect(self._security_changed)
        self.medium.currentIndexChanged.connect(self.changed)
        self.tags.textChanged.connect(self.changed)
        self.notes.textChanged.connect(self.changed)

    def _security_changed(self) -> None:
        if not self._quiet:
            self._detected = False
            self.security_note.setText("")
        self.changed.emit()

    def set_detected_security(self, value: str) -> None:
        if self.security.currentData() is not Security.UNKNOWN:
            return
        index = self.security.findData(Security(value))
        if index < 0:
            return
        self._quiet = True
        self.security.setCurrentIndex(index)
        self._quiet = False
        self._detected = True
        self.security_note.setText("(detected)")
        self.changed.emit()

    def conditions(self) -> Conditions:
        tags, _ = parse_tags(self.tags.text())
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
            self.tags.setText(", ".join(f"{k}={v}" for k, v in conditions.tags))
            self.notes.setPlainText(conditions.notes)
        finally:
            self._quiet = False
        self._detected = conditions.security_detected
        self.security_note.setText("(detected)" if self._detected else "")
