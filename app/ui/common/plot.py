"""The plot every chart is drawn on: pyqtgraph's PlotWidget, whose right-click menu is made
when a person first opens it rather than with the chart. pyqtgraph makes each view's menu as
the view is made; a window holds some twenty charts, most on pages not yet looked at, and
their menus were a fifth of the time the window took to open."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget


class _MenuOnDemand(pg.ViewBox):
    """A ViewBox whose context menu is made on first use; it behaves as pyqtgraph's own."""

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.state["enableMenu"] = True  # offered, not yet made

    def _menu_made(self) -> None:
        if self.menu is None and self.menuEnabled():
            self.setMenuEnabled(True)  # pyqtgraph makes the menu here

    def getMenu(self, ev: Any) -> Any:
        self._menu_made()
        return super().getMenu(ev)

    def getContextMenus(self, event: Any) -> Any:
        self._menu_made()
        return super().getContextMenus(event)


class Plot(pg.PlotWidget):
    """A PlotWidget with its menu made on demand (keywords go to pyqtgraph's PlotItem)."""

    def __init__(self, parent: QWidget | None = None, **plot_item: Any) -> None:
        super().__init__(parent, viewBox=_MenuOnDemand(), **plot_item)
