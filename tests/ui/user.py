"""A user at the window: finds controls by their visible label or accessible name, never by
attribute, and drives them with mouse clicks and key presses (QTest).

A control counts as reachable only when a person could see it: shown, not clipped away by a
scroll area or a hidden tab, and (for anything clicked or typed into) enabled. Tests and
`make screenshots` use the same driver, so every screenshot shows a state a user can reach.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from PySide6.QtCore import QModelIndex, QPoint, QPointF, QRect, Qt, QTimer
from PySide6.QtGui import QStandardItemModel, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QTabBar,
    QTextEdit,
    QWidget,
)

W = TypeVar("W", bound=QWidget)


def plain(text: str) -> str:
    """A label as read on screen: no mnemonic ampersand, no trailing colon."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").strip().rstrip(":")


#: The shortest limit of a wait: a condition that holds returns at once, so the limit only
#: bounds a failure, and on a shared, loaded machine a short one fails what merely ran slow.
#: Under Wine (make test-windows) everything runs several times slower: it sets a longer one.
MIN_WAIT_S = float(os.environ.get("LINKLAB_TEST_MIN_WAIT_S") or 10.0)


#: How often a condition is looked at while the event loop runs (every 10 ms). A look may search
#: the whole window for a control by its name: looking at every turn of the loop took more CPU
#: than the window it watched.
LOOK_EVERY_S = 0.04


def wait_for(
    condition: Callable[[], object], timeout: float = 10.0, what: str | Callable[[], str] = ""
) -> None:
    """Let the event loop run until condition() is true (within timeout, at least MIN_WAIT_S);
    what names it in the failure (a callable: what was seen instead, read at the timeout)."""
    timeout = max(timeout, MIN_WAIT_S)
    deadline = time.monotonic() + timeout
    next_look = 0.0
    while True:
        now = time.monotonic()
        if now >= next_look:
            if _holds(condition):
                return
            if now > deadline:
                said = what() if callable(what) else what
                raise AssertionError(
                    f"timed out after {timeout:g} s waiting for {said or condition}"
                )
            next_look = now + LOOK_EVERY_S
        QApplication.processEvents()
        # Not QTest.qWait: it holds Python's lock while it sleeps, and a reader thread the
        # window waits for would wait with it.
        time.sleep(0.01)


def _holds(condition: Callable[[], object]) -> bool:
    """A control that is not there yet (a view still being read) is a condition not met."""
    try:
        return bool(condition())
    except Unreachable:
        return False


class Unreachable(AssertionError):
    """The control a user was asked to use is not there for them."""


class User:
    def __init__(self, window: QWidget, pause_ms: int = 0) -> None:
        self.window = window
        self.pause_ms = pause_ms  # a human-like pause after each action (screenshots)
        self._activate()

    def _activate(self) -> None:
        """A person's clicks go to the window in front, and keyboard focus with them (a closed
        drop-down list may leave no window active on a virtual screen)."""
        window = self.window
        if window.isVisible() and not window.isActiveWindow():
            window.activateWindow()
            wait_for(window.isActiveWindow, 5, "the window to become active")

    # -- finding ---------------------------------------------------------------------------
    def _root(self) -> QWidget:
        modal = QApplication.activeModalWidget()
        return modal if modal is not None else self.window

    @staticmethod
    def names(widget: QWidget) -> set[str]:
        """Every name a person (or a screen reader) knows this control by."""
        found = set()
        if widget.accessibleName():
            found.add(plain(widget.accessibleName()))
        if isinstance(widget, QAbstractButton) and widget.text():
            found.add(plain(widget.text()))
        return found

    @staticmethod
    def shown(widget: QWidget) -> bool:
        """Visible on screen: not hidden, not on a hidden tab, not scrolled out of view."""
        if not widget.isVisible():
            return False
        top = widget.window()
        area = QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())
        parent = None if widget.isWindow() else widget.parentWidget()
        while parent is not None and not area.isEmpty():
            holder = parent.parentWidget()
            if isinstance(holder, QScrollArea) and parent is holder.viewport():
                # In a scrolling page: there for whoever scrolls to it, if the page is.
                return User.shown(holder)
            # Each parent clips its children: a tab page, a splitter pane, the window.
            area = area.intersected(QRect(parent.mapTo(top, QPoint(0, 0)), parent.size()))
            parent = None if parent.isWindow() else holder
        return not area.isEmpty()

    def _labelled(self, root: QWidget, name: str) -> list[QWidget]:
        """Controls whose visible label (a QLabel with it as buddy) reads name."""
        found = []
        for label in root.findChildren(QLabel):
            buddy = label.buddy()
            if buddy is not None and plain(label.text()) == name and self.shown(label):
                found.append(buddy)
        return found

    def find(self, name: str, kind: type[W] = QWidget, *, root: QWidget | None = None) -> W:  # type: ignore[assignment]
        """The one control named name that a person can see now."""
        root = root or self._root()
        matches = [w for w in root.findChildren(kind) if name in self.names(w) and self.shown(w)]
        matches += [w for w in self._labelled(root, name) if isinstance(w, kind) and self.shown(w)]
        # A plain container is never the control itself.
        unique = [w for w in dict.fromkeys(matches) if type(w) is not QWidget]
        # An editable combo and its own line edit carry the same name: the combo is the control.
        unique = [w for w in unique if not any(w.parent() is o for o in unique)]
        if len(unique) != 1:
            visible = sorted(
                n for w in root.findChildren(QWidget) if self.shown(w) for n in self.names(w)
            )
            raise Unreachable(
                f"{len(unique)} visible controls named {name!r} ({kind.__name__}); "
                f"visible names: {visible}"
            )
        return unique[0]

    def can_see(self, name: str) -> bool:
        try:
            self.find(name)
        except Unreachable:
            return False
        return True

    def _usable(self, widget: W, name: str) -> W:
        if not widget.isEnabled():
            raise Unreachable(f"{name!r} is disabled: {widget.toolTip()!r}")
        self._reveal(widget)
        return widget

    def _reveal(self, widget: QWidget) -> None:
        """Scroll it into view, as a person would with the scroll bar."""
        parent = widget.parentWidget()
        while parent is not None:
            if isinstance(parent, QScrollArea):
                parent.ensureWidgetVisible(widget)
            parent = parent.parentWidget()

    def _settle(self) -> None:
        QApplication.processEvents()
        if QApplication.activePopupWidget() is None:
            self._activate()
        if self.pause_ms:
            QTest.qWait(self.pause_ms)

    # -- acting ----------------------------------------------------------------------------
    def click(self, name: str) -> None:
        button = self._usable(self.find(name, QAbstractButton), name)
        QTest.mouseClick(button, Qt.MouseButton.LeftButton, pos=button.rect().center())
        self._settle()

    def check(self, name: str, on: bool = True) -> None:
        box = self._usable(self.find(name, QAbstractButton), name)
        if box.isChecked() != on:
            QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
            self._settle()
        assert box.isChecked() == on, f"{name!r} did not turn {'on' if on else 'off'}"

    def tab(self, text: str) -> None:
        """Click the tab with this text, in whichever tab bar shows it."""
        for bar in self._root().findChildren(QTabBar):
            if not self.shown(bar):
                continue
            for index in range(bar.count()):
                if plain(bar.tabText(index)) == text and bar.isTabVisible(index):
                    QTest.mouseClick(
                        bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center()
                    )
                    self._settle()
                    assert bar.currentIndex() == index, f"tab {text!r} did not open"
                    return
        raise Unreachable(f"no visible tab {text!r}")

    def choose(self, name: str, option: str) -> None:
        """Open the drop-down and click the option."""
        combo = self._usable(self.find(name, QComboBox), name)
        if combo.currentText() == option:
            return
        # An editable combo opens its list from the arrow at its right end (a click on its
        # text only puts the cursor there).
        arrow = QPoint(combo.width() - 8, combo.height() // 2)
        pos = arrow if combo.isEditable() else combo.rect().center()
        QTest.mouseClick(combo, Qt.MouseButton.LeftButton, pos=pos)
        view = combo.view()
        wait_for(view.isVisible, 5, f"the list of {name!r} to open")
        row = next((i for i in range(combo.count()) if combo.itemText(i) == option), None)
        if row is None:
            raise Unreachable(f"{name!r} has no option {option!r}: {self.options(name)}")
        model = combo.model()
        if isinstance(model, QStandardItemModel) and not model.item(row).isEnabled():
            combo.hidePopup()
            raise Unreachable(f"{option!r} of {name!r} is disabled: {model.item(row).toolTip()!r}")
        # The arrow keys walk the open list to the option and Return takes it (a click would
        # have to wait out the combo's guard against the release of the opening click).
        for _ in range(combo.count()):
            current = view.currentIndex().row()
            if current == row:
                break
            key = Qt.Key.Key_Down if current < row else Qt.Key.Key_Up
            QTest.keyClick(view, key)
        assert view.currentIndex().row() == row, f"the keys did not reach {option!r}"
        QTest.keyClick(view, Qt.Key.Key_Return)
        wait_for(lambda: not view.isVisible(), 5, f"the list of {name!r} to close")
        self._settle()
        # An editable field may show what the option stands for (a found computer's address).
        chosen = combo.currentText() == option or combo.currentIndex() == row
        assert chosen, f"{name!r} shows {combo.currentText()!r}"

    def click_row(
        self, name: str, row: int, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
    ) -> None:
        """Click a row of a table (with Ctrl held to add it to the selection)."""
        view = self._usable(self.find(name, QAbstractItemView), name)
        index = view.model().index(row, 0)
        view.scrollTo(index)
        rect = view.visualRect(index)
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())
        self._settle()

    def double_click_row(self, name: str, row: int) -> None:
        view = self._usable(self.find(name, QAbstractItemView), name)
        rect = view.visualRect(view.model().index(row, 0))
        QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        self._settle()

    def options(self, name: str) -> list[str]:
        combo = self.find(name, QComboBox)
        return [combo.itemText(i) for i in range(combo.count())]

    def type(self, name: str, text: str, *, enter: bool = False) -> None:
        """Click into the field, select what is there and type text over it."""
        field = self._usable(self.find(name), name)
        target: QWidget = field
        if isinstance(field, QComboBox) and field.isEditable():
            edit = field.lineEdit()
            assert edit is not None
            target = edit
        QTest.mouseClick(target, Qt.MouseButton.LeftButton, pos=target.rect().center())
        wait_for(
            lambda: target.hasFocus() or QApplication.focusWidget() in (target, field),
            2,
            f"{name!r} to take the keyboard focus (it has {QApplication.focusWidget()})",
        )
        QTest.keyClick(target, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        if text:
            QTest.keyClicks(target, text)
        else:
            QTest.keyClick(target, Qt.Key.Key_Delete)
        if enter:
            QTest.keyClick(target, Qt.Key.Key_Return)
        self._settle()

    def key(
        self, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
    ) -> None:
        """A key press where the keyboard focus is (the window when nothing has focus)."""
        self._activate()
        root = self._root()
        focus = QApplication.focusWidget()
        target = (
            focus if focus is not None and focus.isVisible() and focus.window() is root else root
        )
        QTest.keyClick(target, key, modifier)
        self._settle()

    @staticmethod
    def on_screen(widget: QWidget) -> QRect:
        """The part of the widget on screen now (scrolled-out parts excluded), in its own
        coordinates; empty when none is."""
        top = widget.window()
        origin = widget.mapTo(top, QPoint(0, 0))
        area = QRect(origin, widget.size())
        parent = None if widget.isWindow() else widget.parentWidget()
        while parent is not None and not area.isEmpty():
            area = area.intersected(QRect(parent.mapTo(top, QPoint(0, 0)), parent.size()))
            parent = None if parent.isWindow() else parent.parentWidget()
        return area.translated(-origin.x(), -origin.y())

    def drag_edge(self, name: str, pixels: int) -> None:
        """Drag the splitter handle at the bottom (or right) edge of the pane holding the
        control by that much (down or right when positive), as a person drags it."""
        widget: QWidget | None = self.find(name)
        while widget is not None and not isinstance(widget.parentWidget(), QSplitter):
            widget = widget.parentWidget()
        if widget is None:
            raise Unreachable(f"{name!r} is not in a pane with an edge to drag")
        splitter = widget.parentWidget()
        assert isinstance(splitter, QSplitter)
        handle = splitter.handle(splitter.indexOf(widget) + 1)
        if not self.shown(handle):
            raise Unreachable(f"the edge below {name!r} is not on screen")
        # Where the pointer goes, on the screen: the handle follows it, so each point is
        # given in the handle's place at that moment.
        start = handle.mapToGlobal(handle.rect().center())
        vertical = splitter.orientation() is Qt.Orientation.Vertical
        end = start + (QPoint(0, pixels) if vertical else QPoint(pixels, 0))
        QTest.mousePress(handle, Qt.MouseButton.LeftButton, pos=handle.mapFromGlobal(start))
        for step in range(1, 11):  # a person's drag goes through the places between
            QTest.mouseMove(handle, handle.mapFromGlobal(start + (end - start) * step / 10))
            QApplication.processEvents()
        QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=handle.mapFromGlobal(end))
        self._settle()

    def wheel(self, name: str, steps: int) -> None:
        """Turn the mouse wheel with the pointer over the control where it is on screen; the
        event goes where Qt sends a real one: to the widget under the pointer, then up to
        each parent until one takes it."""
        widget = self.find(name)
        visible = self.on_screen(widget)
        if visible.isEmpty():
            raise Unreachable(f"{name!r} is scrolled out of view: the pointer cannot be over it")
        target = widget.childAt(visible.center()) or widget
        pos = QPointF(target.mapFrom(widget, visible.center()))
        while target is not None:
            event = QWheelEvent(
                pos,
                QPointF(target.mapToGlobal(pos.toPoint())),
                QPoint(0, 0),
                QPoint(0, 120 * steps),
                Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier,
                Qt.ScrollPhase.NoScrollPhase,
                False,
            )
            QApplication.sendEvent(target, event)
            if event.isAccepted() or target.isWindow():
                break
            pos += QPointF(target.pos())
            target = target.parentWidget()
        self._settle()

    def menu(self, *path: str) -> None:
        """Open a menu of the menu bar and click through to the item."""
        window = self.window
        assert isinstance(window, QMainWindow)
        bar = window.menuBar()
        action = next((a for a in bar.actions() if plain(a.text()) == path[0]), None)
        if action is None:
            raise Unreachable(f"no menu {path[0]!r}")
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(action).center())
        menu = action.menu()
        assert isinstance(menu, QMenu)
        for step in path[1:]:
            wait_for(menu.isVisible, 5, f"the menu {plain(action.text())!r} to open")
            item = next((a for a in menu.actions() if plain(a.text()) == step), None)
            if item is None:
                names = [plain(a.text()) for a in menu.actions() if a.text()]
                menu.hide()
                raise Unreachable(f"no item {step!r} in that menu: {names}")
            if not item.isEnabled():
                menu.hide()
                raise Unreachable(f"the menu item {step!r} is disabled")
            if item.menu() is None:
                pos = menu.actionGeometry(item).center()
                QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=pos)
                break
            QTest.mouseClick(
                menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center()
            )
            menu, action = item.menu(), item
        self._settle()

    # -- reading ---------------------------------------------------------------------------
    def text(self, name: str) -> str:
        """What a field or label shows."""
        widget = self.find(name)
        if isinstance(widget, QLineEdit):
            return widget.text()
        if isinstance(widget, QPlainTextEdit | QTextEdit):  # a log, or findings in rich text
            return widget.toPlainText()
        if isinstance(widget, QComboBox):
            return widget.currentText()
        if isinstance(widget, QAbstractSpinBox):
            return widget.text()
        if isinstance(widget, QLabel | QAbstractButton):
            return widget.text()
        return widget.accessibleName()

    def description(self, name: str) -> str:
        """What a screen reader says of the control beyond its name (a chart's curves)."""
        return self.find(name).accessibleDescription()

    def visible_text(self) -> str:
        """Every piece of text a person can read in the window now (labels, fields, buttons)."""
        parts = []
        for widget in self._root().findChildren(QWidget):
            if not self.shown(widget):
                continue
            if isinstance(widget, QLabel | QAbstractButton):
                parts.append(widget.text())
            elif isinstance(widget, QLineEdit):
                parts.append(widget.text())
            elif isinstance(widget, QPlainTextEdit):
                parts.append(widget.toPlainText())
        return "\n".join(parts)

    def table_rows(self, name: str) -> list[list[str]]:
        """The visible cells of a table, row by row (hidden columns left out)."""
        view = self.find(name, QAbstractItemView)
        model = view.model()
        header = getattr(view, "horizontalHeader", lambda: None)()
        try:
            count = model.columnCount()
        except TypeError:  # a list's model: one column, its count not exposed
            count = 1
        columns = [c for c in range(count) if header is None or not header.isSectionHidden(c)]
        return [
            [str(model.index(r, c).data() or "") for c in columns]
            for r in range(model.rowCount(QModelIndex()))
        ]

    def headers(self, name: str) -> list[str]:
        view = self.find(name, QAbstractItemView)
        header = view.horizontalHeader()  # type: ignore[attr-defined]
        model = view.model()
        return [
            str(model.headerData(c, Qt.Orientation.Horizontal))
            for c in range(model.columnCount())
            if not header.isSectionHidden(c)
        ]

    # -- dialogs ---------------------------------------------------------------------------
    @contextmanager
    def answering(self, *handlers: Callable[[User], None], timeout: float = 10.0) -> Iterator[None]:
        """Within the block, the modal dialogs that open next are handed, one each, to the
        handlers (which click and type in them as a person would); raises if one never
        opened."""
        done: list[BaseException | None] = []
        handled: list[QWidget] = []
        started = [time.monotonic()]

        def poll() -> None:
            step = len(done)
            if step >= len(handlers):
                return
            dialog = QApplication.activeModalWidget()
            fresh = dialog is not None and dialog is not self.window and dialog not in handled
            if fresh and dialog is not None and dialog.isVisible():
                handled.append(dialog)
                try:
                    QTest.qWait(50)
                    handlers[step](User(dialog, self.pause_ms))
                    done.append(None)
                except BaseException as err:  # reported in the test's own thread below
                    done.append(err)
                    dialog.close()
                started[0] = time.monotonic()
            elif time.monotonic() - started[0] > timeout:
                done.append(AssertionError(f"dialog {step + 1} of {len(handlers)} never opened"))
                return
            QTimer.singleShot(20, poll)

        QTimer.singleShot(0, poll)
        yield
        wait_for(lambda: len(done) == len(handlers), timeout + 1, "the dialogs to be answered")
        for outcome in done:
            if outcome is not None:
                raise outcome
