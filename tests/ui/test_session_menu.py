"""The Sessions list in the window, used with the pointer: a row's context menu exports the
session's report and compares its series, and the Date column's arrow points down while the
newest session is first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QMenu

from app.ui.main_window import MainWindow
from tests.artifacts import NO_POPPLER, PDFTOPPM, assert_inside, pdf_pages, pdf_text, pixels
from tests.conftest import under_wine
from tests.ui.journey import save_as
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, plain, wait_for


def context_menu(user: User, table: str, row: int, item: str) -> None:
    """Right-click a row of the table and choose the menu's item (by its text)."""
    view = user.find(table, QAbstractItemView)
    where = view.visualRect(view.model().index(row, 1)).center()
    chosen: list[str] = []

    def pick() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, pick)
            return
        action = next((a for a in menu.actions() if plain(a.text()) == item), None)
        if action is None or not action.isEnabled():
            chosen.append(f"no enabled {item!r} in {[plain(a.text()) for a in menu.actions()]}")
            menu.close()
            return
        chosen.append(item)
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    QTimer.singleShot(0, pick)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.RightButton, pos=where)
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, where, view.viewport().mapToGlobal(where)
    )
    QApplication.sendEvent(view.viewport(), event)
    wait_for(lambda: chosen, 10, f"the menu's {item!r}")
    assert chosen == [item], chosen[0]


@pytest.mark.skipif(PDFTOPPM is None, reason=NO_POPPLER)
def test_a_rows_menu_exports_its_report_and_compares_its_series(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    db = window.context.db_path
    make_session(db, "older", when="2026-01-01T08:00:00.000Z")
    make_session(db, "Lab 2: TCP against UDP by packet size", when="2026-01-02T08:00:00.000Z")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    pdf = tmp_path / "session.pdf"
    with user.answering(save_as(pdf)):
        context_menu(user, "Sessions", 0, "Export PDF report…")
    wait_for(pdf.exists, 60, "the PDF")
    for number, page in enumerate(pdf_pages(pdf, tmp_path / "pages"), start=1):
        assert_inside(page, f"page {number}", at_least=25)
    text = " ".join(pdf_text(pdf).split())  # the title wraps
    assert "Lab 2: TCP against UDP by packet size" in text and "Significant" in text
    assert "Saved session.pdf" in user.text("Sessions message")
    context_menu(user, "Sessions", 0, "Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    assert user.table_rows("Pairs compared") == [["UDP · IPv4  ↔  TCP · IPv4"]]
    assert user.text("Baseline session") == "Lab 2: TCP against UDP by packet size"


@pytest.mark.skipif(
    under_wine(),
    reason="under Wine Qt draws the header's sort arrow the other way round from Linux; "
    "real Windows is not checked here",
)
def test_the_date_arrow_points_down_with_the_newest_first(window: MainWindow, user: User) -> None:
    db = window.context.db_path
    make_session(db, "first", when="2026-01-01T08:00:00.000Z")
    make_session(db, "second", when="2026-01-02T08:00:00.000Z")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    assert [row[1] for row in user.table_rows("Sessions")] == ["second", "first"]
    header = user.find("Sessions", QAbstractItemView).horizontalHeader()  # type: ignore[attr-defined]
    assert isinstance(header, QHeaderView)
    assert arrow_points(header, 0) == "down"
    QTest.mouseClick(
        header.viewport(),
        Qt.MouseButton.LeftButton,
        pos=QPoint(header.sectionViewportPosition(0) + 10, header.height() // 2),
    )
    wait_for(lambda: user.table_rows("Sessions")[0][1] == "first", 5, "the oldest first")
    assert arrow_points(header, 0) == "up"


def arrow_points(header: QHeaderView, section: int) -> str:
    """Which way the sort arrow drawn in the section points, read from its pixels: a
    triangle's wide edge is on the side away from its tip."""
    start = header.sectionViewportPosition(section)
    image = header.viewport().grab().toImage()
    array = pixels(image)[:, start : start + header.sectionSize(section)]
    # The arrow sits at the section's right end; the caption ("Date") at its middle.
    right = array[:, -22:].astype(np.int16)
    ink = np.abs(right - right[1, 1]).max(axis=2) > 80
    widths = ink.sum(axis=1)
    rows = np.flatnonzero(widths)
    assert rows.size >= 3, "no sort arrow drawn"
    top, bottom = widths[rows[0]], widths[rows[-1]]
    assert top != bottom, "the arrow's rows are all as wide"
    return "down" if top > bottom else "up"


def test_the_menus_tags_and_notes_reads_with_its_ampersand(window: MainWindow, user: User) -> None:
    make_session(window.context.db_path, "office wifi", when="2026-01-01T08:00:00.000Z")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    titles: list[str] = []

    def cancel(dialog: User) -> None:
        titles.append(dialog.window.windowTitle())
        dialog.click("Cancel")

    # plain() reads "&&" as the "&" shown; a lone "&" would be a shortcut marker, not shown.
    with user.answering(cancel):
        context_menu(user, "Sessions", 0, "Tags & notes…")
    assert titles == ["Tags and notes — office wifi"]
