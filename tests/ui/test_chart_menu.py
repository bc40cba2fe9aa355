"""A chart's right-click menu, made when a person first opens it (app/ui/common/plot.py): it
offers what pyqtgraph's own offers, and each opening shows it again."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from app.ui.main_window import MainWindow
from tests.ui.user import User, plain, wait_for


def _right_click_menu(user: User, chart_name: str) -> list[str]:
    """Right-click the middle of the chart; the open menu's items, then Escape closes it."""
    chart = user.find(chart_name, pg.PlotWidget)
    QTest.mouseClick(
        chart.viewport(), Qt.MouseButton.RightButton, pos=chart.viewport().rect().center()
    )
    wait_for(lambda: isinstance(QApplication.activePopupWidget(), QMenu), 5, "the chart's menu")
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu)
    items = [plain(a.text()) for a in menu.actions() if a.text()]
    QTest.keyClick(menu, Qt.Key.Key_Escape)
    wait_for(lambda: QApplication.activePopupWidget() is None, 5, "the menu to close")
    return items


def test_a_charts_menu_opens_on_right_click_with_pyqtgraphs_items(
    window: MainWindow, user: User
) -> None:
    charts = window.findChildren(pg.PlotWidget)
    assert len(charts) > 10 and all(c.getPlotItem().vb.menu is None for c in charts)  # not yet
    user.tab("Measure")
    first = _right_click_menu(user, "Current run chart")
    for item in ("View All", "X axis", "Y axis", "Mouse Mode", "Plot Options", "Export..."):
        assert item in first, first
    assert _right_click_menu(user, "Current run chart") == first  # made once, the same again
