"""Form controls shared by the panels: value-carrying combo boxes and spin boxes that the mouse
wheel changes only while they have focus, fields that show their problem beside them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette, QStandardItemModel, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

ERROR_COLOUR = "#D55E00"  # Okabe-Ito vermilion: reads on light and dark backgrounds
INVALID_STYLE = f"border: 2px solid {ERROR_COLOUR};"
#: A warning to read before the numbers: black on light amber, readable in light and dark themes.
WARNING_STYLE = (
    "QLabel { background-color: #fff4dc; color: #000; border: 2px solid #E69F00; padding: 6px; }"
)


class _WheelOnFocus:
    """The wheel changes the value only while the control has focus: scrolling a page over a
    form must never change a setting the pointer happens to pass."""

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():  # type: ignore[attr-defined]
            super().wheelEvent(event)  # type: ignore[misc]
        else:
            event.ignore()  # the scroll area under it scrolls instead


class SpinBox(_WheelOnFocus, QSpinBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class DoubleSpinBox(_WheelOnFocus, QDoubleSpinBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class ComboBox(_WheelOnFocus, QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class ValueCombo(ComboBox):
    """A combo box whose items carry Python values (Qt would turn str enums into plain str);
    single items can be disabled with the reason as their tooltip."""

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

    def set_unavailable(self, reasons: dict[object, str]) -> None:
        """Disable the items whose value has a reason (shown as the item's tooltip)."""
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        for index, value in enumerate(self._values):
            item = model.item(index)
            reason = reasons.get(value)
            item.setEnabled(reason is None)
            item.setToolTip(reason or "")


def _combo(items: list[tuple[str, object]], tip: str) -> ValueCombo:
    return ValueCombo(items, tip)


def _spin(low: int, high: int, value: int, tip: str, suffix: str = "") -> SpinBox:
    spin = SpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setToolTip(tip)
    if suffix:
        spin.setSuffix(suffix)
    spin.setAccelerated(True)
    return spin


def _double(low: float, high: float, value: float, tip: str, suffix: str = "") -> DoubleSpinBox:
    spin = DoubleSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setToolTip(tip)
    if suffix:
        spin.setSuffix(suffix)
    return spin


class FieldError(QLabel):
    """The reason a field's value cannot be used, shown right below the field."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}_error")
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.setVisible(False)

    def show_problem(self, sentence: str) -> None:
        self.setText(sentence)
        self.setAccessibleName(sentence)
        self.setVisible(bool(sentence))


def with_error(control: QWidget, error: FieldError) -> QWidget:
    """The control with its error line under it, as one cell of a form."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(1)
    layout.addWidget(control)
    layout.addWidget(error)
    return box


def scroll_page(content: QWidget) -> QScrollArea:
    """A page that scrolls vertically when the window is small (never sideways)."""
    area = QScrollArea()
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    content.setBackgroundRole(QPalette.ColorRole.Window)
    return area


def scroll_when_small(content: QWidget) -> QScrollArea:
    """A whole tab that scrolls either way only when the window is smaller than it needs, so
    that its controls never set the window's minimum size (a 1280x720 screen, large fonts)."""
    area = scroll_page(content)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    return area


def accessible(widget: QWidget, name: str, description: str = "") -> QWidget:
    """Give a control the name screen readers read (and user-level tests find it by)."""
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
    return widget
