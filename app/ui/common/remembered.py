"""Panes that stay where the user left them: a splitter's place kept in the settings under a
layout version of its own, restored when the window opens again and saved as it is moved."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter, QTabWidget

#: The layout's version: raised when the panes of a splitter change, so that places kept
#: for other panes are not forced on new ones (the other settings are kept).
LAYOUT_VERSION = 1
GROUP = "layout"
VERSION_KEY = f"{GROUP}/version"


def _current(settings: QSettings) -> bool:
    """Whether the kept places are of this layout; those of another are forgotten."""
    try:
        version = int(str(settings.value(VERSION_KEY, 0)))
    except ValueError:
        version = 0
    if version == LAYOUT_VERSION:
        return True
    settings.remove(GROUP)
    settings.setValue(VERSION_KEY, LAYOUT_VERSION)
    return False


def remember_splitter(splitter: QSplitter, settings: QSettings | None, name: str) -> None:
    """Put the splitter where the user last left it (its own sizes stay the default), and
    keep its place each time the user moves it."""
    if settings is None:
        return
    key = f"{GROUP}/{name}"
    if _current(settings):
        state = settings.value(key)
        if isinstance(state, QByteArray) and not state.isEmpty():
            splitter.restoreState(state)
    splitter.splitterMoved.connect(
        lambda _pos, _index: settings.setValue(key, splitter.saveState())
    )


def remember_tab(tabs: QTabWidget, settings: QSettings | None, name: str) -> None:
    """Open the tab the user last chose (when it is there), and keep each choice they make
    (a tab LinkLab turns to, one hidden for a session without it, is not theirs)."""
    if settings is None:
        return
    key = f"{GROUP}/{name}"
    if _current(settings):
        try:
            index = int(str(settings.value(key, -1)))
        except ValueError:
            index = -1
        if 0 <= index < tabs.count():
            tabs.setCurrentIndex(index)
    tabs.tabBar().tabBarClicked.connect(lambda index: settings.setValue(key, index))
