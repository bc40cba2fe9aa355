"""The hints inside empty fields, read whole at 1280x800 on every tab, and no page made wider
than the window by the room given to them: a placeholder cut at the field's edge ("unknown
(e.g. 100…") tells a newcomer half of what to type."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QScrollArea, QStyle, QStyleOptionFrame

from app.ui.main_window import MainWindow
from tests.ui.user import User


def cut_placeholders(user: User, tab: str) -> list[str]:
    """The placeholders of the empty fields on screen wider than the room their field has."""
    cut = []
    for field in user.window.findChildren(QLineEdit):
        hint = field.placeholderText()
        if not hint or field.text() or not user.shown(field):
            continue
        option = QStyleOptionFrame()
        field.initStyleOption(option)
        room = (
            field.style()
            .subElementRect(QStyle.SubElement.SE_LineEditContents, option, field)
            .width()
        )
        room -= 2 * 2  # the line edit's own text margins on each side (Qt's horizontalMargin)
        if field.fontMetrics().horizontalAdvance(hint) > room:
            cut.append(f"{field.accessibleName() or field.objectName()}: {hint!r}")
    # Nor room found by pushing the page wider than the window: a page holding a field given
    # room for its hint (a least width of its own) never scrolls sideways.
    for area in user.window.findChildren(QScrollArea):
        if not user.shown(area) or area.horizontalScrollBar().maximum() == 0:
            continue
        roomy = [
            f for f in area.findChildren(QLineEdit) if f.placeholderText() and f.minimumWidth()
        ]
        if roomy:
            names = ", ".join(f.accessibleName() for f in roomy)
            cut.append(f"a page of the {tab} tab scrolls sideways, with room for {names}")
    return cut


def test_every_empty_fields_hint_reads_whole_at_1280x800(window: MainWindow, user: User) -> None:
    assert (window.width(), window.height()) == (1280, 800)
    found = []
    tabs = (
        ("Measure", ("Study", "Advanced")),
        ("Responsiveness", ()),
        ("Sessions", ()),
        ("Compare", ()),
        ("Server", ()),
        ("Class", ()),
        ("Settings", ()),
    )
    for tab, pages in tabs:
        user.tab(tab)
        for page in pages:
            user.tab(page)
            found += cut_placeholders(user, tab)
        if not pages:
            found += cut_placeholders(user, tab)
    assert found == []
