"""The fields of the set-up form: each control's label, page and error line, marked when its
value is a problem, greyed out (with the reason as tooltip) when it does nothing for the plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PySide6.QtWidgets import QWidget

from app.ui.common.widgets import FieldError, accessible, mark_field, with_error

STUDY, ADVANCED = 0, 1
PAGE_NAMES = ("Study", "Advanced")


class ProblemLine(Protocol):
    def show_problem(self, sentence: str) -> None: ...


@dataclass
class Field:
    label: str  # the visible label, without its mnemonic
    control: QWidget  # what gets the red border, the reason as tooltip, and focus
    error: ProblemLine
    page: int


class FormFields:
    """Every field by its key (the names Plan.problems uses)."""

    def __init__(self) -> None:
        self.fields: dict[str, Field] = {}
        self._tips: dict[int, str] = {}
        self._disabled: set[str] = set()

    def register(self, key: str, label: str, control: QWidget, page: int) -> QWidget:
        """A field with its accessible name and its error line; returns the cell to lay out."""
        plain = label.replace("&", "")
        if not control.accessibleName():
            accessible(control, plain)
        error = FieldError(key)
        self.fields[key] = Field(plain, control, error, page)
        return with_error(control, error)

    def add(self, key: str, label: str, control: QWidget, error: ProblemLine, page: int) -> None:
        """A field whose problems show on a line it shares or that sits elsewhere."""
        self.fields[key] = Field(label, control, error, page)

    def get(self, key: str) -> Field | None:
        return self.fields.get(key)

    def page_of(self, label: str) -> int:
        return next((f.page for f in self.fields.values() if f.label == label), STUDY)

    def apply(
        self,
        problems: list[tuple[str, str]],
        reasons: dict[str, str],
        lookup: dict[str, Field],
    ) -> list[str]:
        """Grey out what has a reason (unless its value is the problem), mark each problem at
        its field; returns the lines for the summary under the pages."""
        problem_keys = {key for key, _ in problems}
        for key, field in self.fields.items():
            original = self._tips.setdefault(id(field.control), field.control.toolTip())
            reason = reasons.get(key)
            if reason is not None and key not in problem_keys:
                field.control.setEnabled(False)
                field.control.setToolTip(reason)
                self._disabled.add(key)
            else:
                if key in self._disabled:
                    self._disabled.discard(key)
                    field.control.setEnabled(True)
                field.control.setToolTip(original)
            mark_field(field.control, "")
            field.error.show_problem("")
        shown: dict[str, str] = {}
        for key, sentence in problems:
            marked = lookup.get(key) or self.fields.get(key)
            if marked is None or marked.label in shown:
                continue
            mark_field(marked.control, sentence)
            marked.control.setToolTip(sentence)
            marked.error.show_problem(sentence)
            shown[marked.label] = sentence
        return [
            f"{label}{' (Advanced)' if self.page_of(label) == ADVANCED else ''}: {sentence}"
            for label, sentence in shown.items()
        ]


#: The form's labels of what is no plan setting (the peer's, the conditions', the notes).
OTHER_LABELS = {
    "frame_overhead": "Frame overhead (bytes)",
    "tags": "Tags",
    "notes": "Notes",
}
