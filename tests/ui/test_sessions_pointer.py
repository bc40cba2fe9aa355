"""A row of the Sessions list stays under the pointer that clicked it: a click on the last row,
half in view, selects it without scrolling the list, so a double click a moment later opens
that session, not the one that would have moved under the pointer; the keys still scroll to
the row they move to."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication

from app.ui.main_window import MainWindow
from tests.ui.test_room_at_1280x800 import SESSIONS, store_sessions
from tests.ui.user import User, wait_for


def linger(seconds: float) -> None:
    """A person's pause, the window running meanwhile (Qt scrolls a clicked row into view
    a moment after the click: this outlasts that moment)."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        QApplication.processEvents()
        time.sleep(0.01)


def test_a_half_shown_row_stays_under_the_pointer_and_opens_on_a_double_click(
    window: MainWindow, user: User
) -> None:
    store_sessions(window.context.db_path)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == SESSIONS, 10, "the sessions")
    # A session on view (with none, the list has the room for every row).
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 10, "the session on view")
    user.drag_edge("Sessions", 11)  # the list's pane a half row taller: its last row half in
    view = user.find("Sessions", QAbstractItemView)
    area = view.viewport().rect()
    model = view.model()
    rows = (view.visualRect(model.index(r, 1)) for r in range(SESSIONS))
    half = next(r for r, rect in enumerate(rows) if rect.bottom() > area.bottom())
    rect = view.visualRect(model.index(half, 1))
    assert rect.top() < area.bottom(), "no row half in view"
    pointer = QPoint(rect.center().x(), (rect.top() + area.bottom()) // 2)  # on its shown half
    name = user.table_rows("Sessions")[half][1]
    wait = QApplication.styleHints().mouseDoubleClickInterval() / 1000

    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pointer)
    linger(2 * wait + 0.5)
    assert view.indexAt(pointer).row() == half, "the row moved from under the pointer"
    assert [i.row() for i in view.selectionModel().selectedRows()] == [half]
    QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pointer)
    wait_for(lambda: f"<b>{name}</b>" in user.text("Session details"), 10, f"{name!r} on view")
    assert view.indexAt(pointer).row() == half

    # The keyboard still brings the row it moves to into view.
    QTest.keyClick(view, Qt.Key.Key_Down)
    below = view.visualRect(model.index(half + 1, 1))
    assert area.top() <= below.top() and below.bottom() <= area.bottom()
