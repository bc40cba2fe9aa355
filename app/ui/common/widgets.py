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
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QResizeEvent,
    QShowEvent,
    QStandardItemModel,
    QValidator,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTableView,
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


#: Qt's judgement of a spin box's text: its state, the text and the cursor.
Judgement = tuple[QValidator.State, str, int]


class _Typed:
    """What a number field typed as is keeps (SpinBox, DoubleSpinBox): Qt's spin boxes drop a
    keystroke they cannot take and put the last value back on leaving ("52O1" became 521,
    "99999" 9999, silently). These keep the text as typed, mark text that is no value in
    their range with a red frame (the reason in the tooltip and in problem(), which whoever
    uses the value asks first), and put nothing back."""

    def __init__(self, spin: QAbstractSpinBox, whole: bool, judge: Callable[[str], Judgement]):
        self.spin = spin
        self.whole = whole  # whole numbers only, or decimals
        self._judge = judge  # the spin box's own validate()
        self._tip = ""
        self._tipped = False  # the tooltip says the typed text's problem
        self.marked = False
        self._said = ""  # a problem with its value said from outside (a form's check)
        spin.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        spin.lineEdit().textChanged.connect(self.update)

    @staticmethod
    def kept(judged: Judgement) -> Judgement:
        """Qt's judgement of text, with what it would refuse kept (and so marked)."""
        state, text, pos = judged
        if state == QValidator.State.Invalid:
            return (QValidator.State.Intermediate, text, pos)
        return judged

    def problem(self) -> str:
        spin = self.spin
        text = spin.lineEdit().text()
        if self._judge(text)[0] == QValidator.State.Acceptable:
            return ""
        prefix, suffix = spin.property("prefix") or "", spin.property("suffix") or ""
        typed = text.removeprefix(prefix).removesuffix(suffix).strip()
        low, high = spin.property("minimum"), spin.property("maximum")
        low_text, high_text = spin.textFromValue(low), spin.textFromValue(high)  # type: ignore[attr-defined]
        unit = suffix.rstrip()
        span = f"from {low_text} to {high_text}{unit}"
        kind = "a whole number" if self.whole else "a number"
        if not typed:
            return f"Type {kind} {span}."
        number, ok = spin.locale().toDouble(typed)
        if not ok or (self.whole and number != int(number)):
            return f"“{typed}” is not {kind}: type one {span}."
        if number < low:
            return f"{typed} is less than {low_text}{unit}, the smallest it takes."
        if number > high:
            return f"{typed} is more than {high_text}{unit}, the largest it takes."
        return f"Type {kind} {span}."

    def mark(self, problem: str) -> None:
        self._said = problem
        self.update()

    def update(self) -> None:
        spin = self.spin
        typed = self.problem()
        if typed:  # the reason in the tooltip, the field's own tip back once it is fixed
            if not self._tipped:
                self._tip, self._tipped = spin.toolTip(), True
            spin.setToolTip(typed)
        elif self._tipped:
            spin.setToolTip(self._tip)
            self._tipped = False
        marked = bool(typed or self._said)
        if marked != self.marked:
            self.marked = marked
            spin.update()

    def keeping(self, handle: Callable[[], None]) -> None:
        """Let Qt handle an event that would put the last value back in place of text it
        cannot take (leaving the field, Enter, being hidden or shown again), and keep the
        text."""
        edit = self.spin.lineEdit()
        text, cursor = edit.text(), edit.cursorPosition()
        invalid = bool(self.problem())
        handle()
        if invalid and edit.text() != text:
            edit.setText(text)
            edit.setCursorPosition(cursor)

    def key(self, event: QKeyEvent, handle: Callable[[QKeyEvent], None]) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.keeping(lambda: handle(event))
        else:
            handle(event)

    def paint(self) -> None:
        if self.marked:  # a frame of its own: a style sheet's border would squeeze the field
            painter = QPainter(self.spin)
            painter.setPen(QPen(QColor(ERROR_COLOUR), 2))
            painter.drawRect(self.spin.rect().adjusted(1, 1, -1, -1))
            painter.end()


class SpinBox(_WheelOnFocus, QSpinBox):
    """A whole-number field that keeps what is typed (_Typed)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.typed = _Typed(self, True, lambda text: super(SpinBox, self).validate(text, len(text)))

    def validate(self, input: str, pos: int) -> Judgement:
        return _Typed.kept(super().validate(input, pos))

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.typed.keeping(lambda: super(SpinBox, self).focusOutEvent(event))

    def showEvent(self, event: QShowEvent) -> None:
        self.typed.keeping(lambda: super(SpinBox, self).showEvent(event))

    def hideEvent(self, event: QHideEvent) -> None:
        self.typed.keeping(lambda: super(SpinBox, self).hideEvent(event))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.typed.key(event, super().keyPressEvent)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.typed.paint()


class DoubleSpinBox(_WheelOnFocus, QDoubleSpinBox):
    """A decimal field that keeps what is typed (_Typed)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        judge = super().validate
        self.typed = _Typed(self, False, lambda text: judge(text, len(text)))

    def validate(self, input: str, pos: int) -> Judgement:
        return _Typed.kept(super().validate(input, pos))

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.typed.keeping(lambda: super(DoubleSpinBox, self).focusOutEvent(event))

    def showEvent(self, event: QShowEvent) -> None:
        self.typed.keeping(lambda: super(DoubleSpinBox, self).showEvent(event))

    def hideEvent(self, event: QHideEvent) -> None:
        self.typed.keeping(lambda: super(DoubleSpinBox, self).hideEvent(event))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.typed.key(event, super().keyPressEvent)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.typed.paint()


def _typed(widget: QWidget) -> _Typed | None:
    return widget.typed if isinstance(widget, SpinBox | DoubleSpinBox) else None


def mark_field(widget: QWidget, problem: str) -> None:
    """A field marked with the reason its value is a problem ("": unmarked): a number field
    by its own frame, any other by a red border."""
    typed = _typed(widget)
    if typed is not None:
        typed.mark(problem)
    else:
        widget.setStyleSheet(INVALID_STYLE if problem else "")


def number_problem(widget: QWidget) -> str:
    """Why a number field's text is no value it takes ("" when it is one, or for another
    control)."""
    typed = _typed(widget)
    return typed.problem() if typed is not None else ""


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
    fields: list[QWidget] = [root, *root.findChildren(QAbstractSpinBox)]
    for field in fields:
        if field.isEnabled() and (problem := number_problem(field)):
            return field, problem
    return None


class ComboBox(_WheelOnFocus, QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def showPopup(self) -> None:
        """The list as wide as its longest option, however narrow the box: Qt's list is only
        as wide as the box and elides the rest ("open (n…curity)")."""
        view = self.view()
        frame = 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width()
        needed = view.sizeHintForColumn(0) + frame
        screen = self.screen().availableGeometry().width() if self.screen() else needed
        view.setMinimumWidth(min(needed, screen))
        super().showPopup()


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


def hint(edit: QLineEdit, text: str, least: int = 0) -> None:
    """The hint an empty field shows, and room for it to read whole: a hint cut at the
    field's edge tells half of what to type. least: the field's own least width."""
    edit.setPlaceholderText(text)
    room = edit.fontMetrics().horizontalAdvance(text) + 24  # the frame and text margins
    edit.setMinimumWidth(max(least, room))


def compact_rows(table: QAbstractItemView) -> None:
    """Rows a line of text tall with a little room (not the style's roomy default), so that a
    table shows as many rows as the Sessions list in the same height."""
    header = getattr(table, "verticalHeader", lambda: None)()
    if header is not None:
        header.setMinimumSectionSize(table.fontMetrics().height() + 4)
        header.setDefaultSectionSize(table.fontMetrics().height() + 8)


class SteadyTable(QTableView):
    """A list whose clicked row stays under the pointer. Qt scrolls a row clicked half in
    view into view a moment after the click (its delayed auto-scroll), so the second click of
    a double click lands on the row that moved there; a click here selects without scrolling.
    The keys still scroll to the row they move to."""

    def mousePressEvent(self, event: QMouseEvent) -> None:
        scrolls = self.hasAutoScroll()
        self.setAutoScroll(False)  # read as the press starts the delayed scroll
        try:
            super().mousePressEvent(event)
        finally:
            self.setAutoScroll(scrolls)


#: Narrower than this, a label is not laid out yet (its lines are not worth counting).
MIN_WRAP_WIDTH = 80


class WrappedLabel(QLabel):
    """A label that wraps long sentences at word boundaries, never cutting a word, as tall as
    the lines it needs at its width (the status bar's layout would not ask it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if self.width() < MIN_WRAP_WIDTH:
            return  # not laid out yet: a word a line would ask for a tower
        # Not heightForWidth: it never answers less than the height set before.
        margins = self.contentsMargins()
        inner = self.width() - margins.left() - margins.right() - 2 * self.margin()
        flags = Qt.TextFlag.TextWordWrap
        lines = self.fontMetrics().boundingRect(0, 0, inner, 1 << 20, flags, self.text() or " ")
        height = lines.height() + margins.top() + margins.bottom() + 2 * self.margin()
        if height != self.height() or height != self.minimumHeight():
            self.setFixedHeight(height)  # as many lines as it needs, no more
