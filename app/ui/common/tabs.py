"""A tab shown or hidden without leaving its tab bar laid out for other tabs than it shows."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget


def show_tab(tabs: QTabWidget, index: int, shown: bool) -> None:
    """The tab at index shown or hidden, and nothing done when it already is.

    Qt's setTabVisible() sets the tab bar's "lay out again" mark to whether that one call
    changed anything: a call that changes nothing, made while the bar is hidden (its page not
    on view), clears the mark an earlier change left. The bar is then laid out, as it is shown
    again, from the tabs' old widths: as narrow as when a tab was hidden, with scroll arrows
    over tabs cut in half. So an unchanged tab is left alone."""
    if tabs.isTabVisible(index) != shown:
        tabs.setTabVisible(index, shown)
