"""The on-screen confirmation of a file written (an export, a report, a hand-in): a notice in
the window's status bar that stays until closed or replaced, naming the file and its folder,
with Open folder; any page calls `confirm_saved(self, path)`. The notice belongs to the tab it
was saved from: hidden while another tab is open, back when its own tab is."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QWidget,
)

NOTICE_NAME = "saved_notice"


class _ElidedLabel(QLabel):
    """A one-line label that shortens its text in the middle to the width it has (the whole
    text in its tooltip): a long path never widens the window."""

    def __init__(self) -> None:
        super().__init__()
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(80)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self.setAccessibleDescription(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        self.setText(metrics.elidedText(self._full, Qt.TextElideMode.ElideMiddle, self.width()))


class SavedNotice(QFrame):
    """What was saved and where, with Open folder and a close button; not modal."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(NOTICE_NAME)
        self.setAccessibleName("Saved")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            f"QFrame#{NOTICE_NAME} {{ background: #e6f4ea; border: 1px solid #8cc59a; "
            "border-radius: 3px; }"
        )
        self.text = _ElidedLabel()
        self.text.setAccessibleName("Saved files")
        self.open_button = QPushButton("Open folder")
        self.open_button.setToolTip("Show the folder the file was saved in.")
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAccessibleName("Close saved notice")
        self.close_button.setToolTip("Close this notice.")
        self.close_button.setAutoRaise(True)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 0, 2, 0)
        row.addWidget(self.text, 1)
        row.addWidget(self.open_button)
        row.addWidget(self.close_button)
        self.folder: Path | None = None
        # The tab page the file was saved from (None: from no tab, shown over any) and
        # whether the notice still stands (not closed, not dismissed).
        self.owner: QWidget | None = None
        self.standing = False
        self._followed: list[QTabWidget] = []
        self.open_button.clicked.connect(self.open_folder)
        self.close_button.clicked.connect(self.dismiss)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.hide()

    def show_saved(
        self, paths: Sequence[Path], what: str = "", owner: QWidget | None = None
    ) -> None:
        names = ", ".join(p.name for p in paths)
        self.folder = paths[0].parent
        lead = f"Saved {what}: " if what else "Saved "
        self.text.set_full_text(f"{lead}{names} in {self.folder}")
        self.owner = owner
        self.standing = True
        tabs = _tabs_of(owner)
        if tabs is not None and tabs not in self._followed:
            self._followed.append(tabs)
            tabs.currentChanged.connect(self._follow)
        self._follow()

    def dismiss(self) -> None:
        """Closed or superseded: not shown again on any tab."""
        self.standing = False
        self.hide()

    def _follow(self, _index: int = -1) -> None:
        tabs = _tabs_of(self.owner)
        here = tabs is None or tabs.currentWidget() is self.owner
        self.setVisible(self.standing and here)

    def open_folder(self) -> bool:
        if self.folder is None:
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.folder)))


def _tabs_of(page: QWidget | None) -> QTabWidget | None:
    """The tab widget that has page as one of its tabs (a page sits in its stack)."""
    if page is None:
        return None
    stack = page.parentWidget()
    tabs = stack.parentWidget() if stack is not None else None
    if isinstance(tabs, QTabWidget) and tabs.indexOf(page) >= 0:
        return tabs
    return None


def _page_of(widget: QWidget) -> QWidget | None:
    """The outermost tab page widget is on (through the dialogs it opened), if any."""
    page: QWidget | None = None
    here: QWidget | None = widget
    while here is not None:
        if _tabs_of(here) is not None:
            page = here
        here = here.parentWidget()
    return page


def notice_of(window: QMainWindow) -> SavedNotice:
    """The window's notice in its status bar, made on first use."""
    found = window.statusBar().findChild(SavedNotice, NOTICE_NAME)
    if found is not None:
        return found
    notice = SavedNotice()
    # Half the bar at most: the status line beside it keeps the run's news.
    window.statusBar().addPermanentWidget(notice, 1)
    return notice


def dismiss_saved(window: QMainWindow) -> None:
    """The notice of a file saved goes (something new begins: its news takes the bar)."""
    found = window.statusBar().findChild(SavedNotice, NOTICE_NAME)
    if found is not None:
        found.dismiss()


def confirm_saved(widget: QWidget, path: Path | Sequence[Path], what: str = "") -> None:
    """Say on screen that path (or paths) was written: the status bar's notice of the window
    widget is in, which stays until closed or the next file saved, shown while the tab widget
    is on is open. A widget in no main window
    (a dialog of its own, a test's bare page) gets nothing."""
    paths = [Path(path)] if isinstance(path, str | Path) else [Path(p) for p in path]
    window: QWidget | None = widget.window()
    while window is not None and not isinstance(window, QMainWindow):
        # A dialog of the window's (a hand-in, an export): the notice goes to its window.
        parent = window.parentWidget()
        window = parent.window() if parent is not None else None
    if not paths or window is None:
        return
    notice_of(window).show_saved(paths, what, _page_of(widget))
