"""Panes that stay where the user left them: a splitter's place kept in the settings under a
layout version of its own, restored when the window opens again and saved as it is moved."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer
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


def _sizes(value: object) -> list[int]:
    """Sizes kept as "250,403" (another value, or none: no sizes)."""
    try:
        return [int(part) for part in str(value or "").split(",") if part.strip()]
    except ValueError:
        return []


def fitted(kept: list[int], total: int, stretch: list[int]) -> list[int]:
    """The sizes kept, made to fill the splitter's total as it shares a change of its size
    itself: the difference goes to the panes by their stretch (to all alike when none
    stretches), so that the panes that keep their size keep it."""
    difference = total - sum(kept)
    weights = stretch if any(stretch) else [1] * len(kept)
    shares = [difference * weight // sum(weights) for weight in weights]
    shares[max(range(len(kept)), key=lambda i: weights[i])] += difference - sum(shares)
    return [max(size + share, 0) for size, share in zip(kept, shares, strict=True)]


class _KeptSplitter(QObject):
    """Puts its splitter where it was left once it is first shown with its panes laid out (a
    place set earlier, before the window had its size and its panes their contents, would be
    shifted by the first layouts), and keeps each place the user moves it to."""

    def __init__(self, splitter: QSplitter, settings: QSettings, key: str) -> None:
        super().__init__(splitter)
        self._splitter, self._settings, self._key = splitter, settings, key
        kept = _sizes(settings.value(key)) if _current(settings) else []
        self._kept = kept if len(kept) == splitter.count() else []
        splitter.splitterMoved.connect(self._moved)
        if self._kept:
            splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._splitter and event.type() is QEvent.Type.Show:
            self._splitter.removeEventFilter(self)
            QTimer.singleShot(0, self._restore)  # once the layouts this show asked for ran
        return False

    def _restore(self) -> None:
        splitter, kept, self._kept = self._splitter, self._kept, []
        total = sum(splitter.sizes())
        if not kept or total <= 0:
            return
        vertical = splitter.orientation() is Qt.Orientation.Vertical
        panes = [splitter.widget(i) for i in range(splitter.count())]
        policies = [pane.sizePolicy() for pane in panes if pane is not None]
        stretch = [p.verticalStretch() if vertical else p.horizontalStretch() for p in policies]
        splitter.setSizes(fitted(kept, total, stretch))

    def _moved(self, _pos: int, _index: int) -> None:
        self._kept = []  # the user's own move wins over a place still to restore
        sizes = ",".join(str(size) for size in self._splitter.sizes())
        self._settings.setValue(self._key, sizes)


def remember_splitter(splitter: QSplitter, settings: QSettings | None, name: str) -> None:
    """Put the splitter where the user last left it (its own sizes stay the default), and
    keep its place each time the user moves it."""
    if settings is not None:
        _KeptSplitter(splitter, settings, f"{GROUP}/{name}")


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
