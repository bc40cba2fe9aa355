"""Form controls shared by the panels: value-carrying combo boxes and spin boxes that the mouse
wheel changes only while they have focus, fields that show their problem beside them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QHideEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QShowEvent,
    QStandardItemModel,
    QValidator,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
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


class _TypedAsIs:
    """A number field keeps what is typed as typed: a keystroke it cannot take is not dropped,
    and text that is no value in its range is never replaced by one (Qt's spin boxes do both
    silently: "52O1" became 521, "99999" 9999). Such text is marked with a red frame, its
    reason in the tooltip and in problem(), which whoever uses the value asks first."""

    _whole: bool  # whole numbers only (QSpinBox), or decimals (QDoubleSpinBox)

    def _typed_init(self) -> None:
        spin: Any = self
        spin.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._tip = ""
        self._tipped = False  # the tooltip says the typed text's problem
        self._marked = False
        self._said = ""  # a problem with its value said from outside (a form's check)
        spin.lineEdit().textChanged.connect(self._mark)

    def validate(self, text: str, pos: int) -> object:
        result = super().validate(text, pos)  # type: ignore[misc]
        state = result[0] if isinstance(result, tuple) else result
        if state == QValidator.State.Invalid:
            return (QValidator.State.Intermediate, text, pos)  # kept, and marked
        return result

    def problem(self) -> str:
        """Why the text typed is no value this field takes; "" when it is one."""
        spin: Any = self
        text = spin.lineEdit().text()
        result = super().validate(text, len(text))  # type: ignore[misc]
        if (result[0] if isinstance(result, tuple) else result) == QValidator.State.Acceptable:
            return ""
        typed = text.removeprefix(spin.prefix()).removesuffix(spin.suffix()).strip()
        low, high = spin.textFromValue(spin.minimum()), spin.textFromValue(spin.maximum())
        unit = spin.suffix().rstrip()
        span = f"from {low} to {high}{unit}"
        kind = "a whole number" if self._whole else "a number"
        if not typed:
            return f"Type {kind} {span}."
        number, ok = spin.locale().toDouble(typed)
        if not ok or (self._whole and number != int(number)):
            return f"“{typed}” is not {kind}: type one {span}."
        if number < spin.minimum():
            return f"{typed} is less than {low}{unit}, the smallest it takes."
        if number > spin.maximum():
            return f"{typed} is more than {high}{unit}, the largest it takes."
        return f"Type {kind} {span}."

    def mark(self, problem: str) -> None:
        """A problem with the value found elsewhere (a form's plan check), marked as one with
        the text is; "" takes it away. (A style sheet's border would squeeze a spin box without
        buttons to nothing: its text vanished.)"""
        self._said = problem
        self._mark()

    def _mark(self) -> None:
        spin: Any = self
        typed = self.problem()
        if typed:  # the reason in the tooltip, the field's own tip back once it is fixed
            if not self._tipped:
                self._tip, self._tipped = spin.toolTip(), True
            spin.setToolTip(typed)
        elif self._tipped:
            spin.setToolTip(self._tip)
            self._tipped = False
        marked = bool(typed or self._said)
        if marked != self._marked:
            self._marked = marked
            spin.update()

    def _keeping(self, handle: Callable[[], None]) -> None:
        """Let Qt handle an event that would put the last value back in place of text it
        cannot take (leaving the field, Enter, being hidden or shown again), and keep the
        text."""
        edit = self.lineEdit()  # type: ignore[attr-defined]
        text, cursor = edit.text(), edit.cursorPosition()
        invalid = bool(self.problem())
        handle()
        if invalid and edit.text() != text:
            edit.setText(text)
            edit.setCursorPosition(cursor)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._keeping(lambda: super(_TypedAsIs, self).focusOutEvent(event))  # type: ignore[misc]

    def showEvent(self, event: QShowEvent) -> None:
        self._keeping(lambda: super(_TypedAsIs, self).showEvent(event))  # type: ignore[misc]

    def hideEvent(self, event: QHideEvent) -> None:
        self._keeping(lambda: super(_TypedAsIs, self).hideEvent(event))  # type: ignore[misc]

    def keyPressEvent(self, event: QKeyEvent) -> None:
        handle = super().keyPressEvent  # type: ignore[misc]
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._keeping(lambda: handle(event))
        else:
            handle(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)  # type: ignore[misc]
        if self._marked:  # a frame of its own: a form's style sheet may replace any other
            painter = QPainter(self)  # type: ignore[arg-type]
            painter.setPen(QPen(QColor(ERROR_COLOUR), 2))
            painter.drawRect(self.rect().adjusted(1, 1, -1, -1))  # type: ignore[attr-defined]
            painter.end()


class SpinBox(_WheelOnFocus, _TypedAsIs, QSpinBox):
    _whole = True

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._typed_init()


class DoubleSpinBox(_WheelOnFocus, _TypedAsIs, QDoubleSpinBox):
    _whole = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._typed_init()


def mark_field(widget: QWidget, problem: str) -> None:
    """A field marked with the reason its value is a problem ("": unmarked): a number field
    by its own frame, any other by a red border."""
    if isinstance(widget, _TypedAsIs):
        widget.mark(problem)
    else:
        widget.setStyleSheet(INVALID_STYLE if problem else "")


def number_problem(widget: QWidget) -> str:
    """Why a number field's text is no value it takes ("" when it is one, or for another
    control)."""
    return widget.problem() if isinstance(widget, _TypedAsIs) else ""


def typed_refusal(root: QWidget) -> str:
    """The sentence an action that reads root's number fields says instead of using a value
    that was not typed ("" when every field holds one), the cursor put in the field."""
    found = typed_problem(root)
    if found is None:
        return ""
    field, problem = found
    field.setFocus()
    name = field.accessibleName() or "A number field"
    return f"{name}: {problem}"


def typed_problem(root: QWidget) -> tuple[QWidget, str] | None:
    """The first number field in root (or root itself) whose text is no value it takes, and
    why: an action that reads them says so, and goes there, instead of using another."""
    fields = [root] if isinstance(root, _TypedAsIs) else []
    fields += [w for w in root.findChildren(QAbstractSpinBox) if isinstance(w, _TypedAsIs)]
    for field in fields:
        problem = field.problem()
        if problem and field.isEnabled():  # type: ignore[attr-defined]
            return field, problem  # type: ignore[return-value]
    return None


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
