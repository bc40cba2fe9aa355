"""A drop-down's list shows each option whole, however narrow its box: the Security list of a
form at 1280×800 read "open (n…curity)" when Qt sized the list to the box."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def cut_options(combo: QComboBox) -> list[str]:
    """The options of the open list whose text is wider than the row that shows it."""
    view = combo.view()
    metrics = view.fontMetrics()
    cut = []
    for row in range(combo.count()):
        text = combo.itemText(row)
        shown = view.visualRect(combo.model().index(row, 0))
        # The row's text sits inside the row's own margins (the style's item padding).
        if shown.width() and metrics.horizontalAdvance(text) > shown.width() - 8:
            cut.append(text)
    return cut


def test_the_security_list_shows_every_option_whole(window: MainWindow, user: User) -> None:
    assert (window.width(), window.height()) == (1280, 800)
    user.tab("Measure")
    security = user.find("Security", QComboBox)
    longest = max(
        (security.itemText(i) for i in range(security.count())),
        key=security.fontMetrics().horizontalAdvance,
    )
    # The box narrower than its longest option, as in a narrow or scrolled form.
    security.setMaximumWidth(security.fontMetrics().horizontalAdvance(longest) // 2)
    wait_for(lambda: security.width() < security.fontMetrics().horizontalAdvance(longest), 5)
    QTest.mouseClick(security, Qt.MouseButton.LeftButton, pos=security.rect().center())
    view = security.view()
    wait_for(view.isVisible, 5, "the list to open")
    try:
        assert cut_options(security) == [], (view.width(), security.width())
    finally:
        QTest.keyClick(view, Qt.Key.Key_Escape)
        wait_for(lambda: not view.isVisible(), 5, "the list to close")
