"""Small form helpers shared by the panels: value-carrying combo boxes, spin boxes, tags."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QSpinBox


class ValueCombo(QComboBox):
    """A combo box whose items carry Python values (Qt would turn str enums into plain str)."""

    def __init__(self, items: list[tuple[str, object]], tip: str) -> None:
        super().__init__()
        self._values = [value for _, value in items]
        for text, _ in items:
            self.addItem(text)
        self.setToolTip(tip)

    def currentData(self, role: int = 0) -> Any:
        index = self.currentIndex()
        return self._values[index] if 0 <= index < len(self._values) else None

    def findData(self, value: object, role: int = 0, flags: object = None) -> int:
        return self._values.index(value) if value in self._values else -1


def _combo(items: list[tuple[str, object]], tip: str) -> ValueCombo:
    return ValueCombo(items, tip)


def _spin(low: int, high: int, value: int, tip: str, suffix: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setToolTip(tip)
    if suffix:
        spin.setSuffix(suffix)
    spin.setAccelerated(True)
    return spin


def parse_tags(text: str) -> tuple[dict[str, str], str]:
    tags: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            return {}, f"The tag {part!r} needs the form KEY=VALUE."
        tags[key.strip()] = value.strip()
    return tags, ""


def duration_text(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"about {hours} h {minutes:02d} min"
    if minutes:
        return f"about {minutes} min {secs:02d} s"
    return f"about {secs} s"
