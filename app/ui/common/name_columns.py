"""Columns of a table that hold names (of sessions, of series) and give way to the figures:
when every column at its contents' width is wider than the table, the name columns share the
room the figures leave, each name shortened in its middle with its whole text in its tooltip,
so the table needs no sideways scrolling and every figure stays whole."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QTableWidget

#: The narrowest a name column is made: about a dozen characters of a name.
LEAST_PX = 90


def share(room: int, wants: Sequence[int], least: int = LEAST_PX) -> list[int]:
    """Widths for columns that want `wants` pixels in `room`: each as wide as it wants when all
    fit, else the room shared out evenly, a column wanting less than its share keeping only
    what it wants and leaving the rest to the others; never below `least` (nor its want)."""
    if sum(wants) <= room:
        return list(wants)
    widths = [0] * len(wants)
    left = max(room, 0)
    open_ = sorted(range(len(wants)), key=lambda i: wants[i])
    while open_:
        even = left // len(open_)
        column = open_[0]
        if wants[column] <= even:
            widths[column] = wants[column]
            left -= wants[column]
            open_.pop(0)
            continue
        for column in open_:
            widths[column] = even
        break
    return [max(width, min(least, want)) for width, want in zip(widths, wants, strict=True)]


class NameColumns(QObject):
    """Fits the name columns of `table` after each fill and whenever the table is resized."""

    def __init__(self, table: QTableWidget, columns: Sequence[int]) -> None:
        super().__init__(table)
        self._table = table
        self._columns = tuple(columns)
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        table.setWordWrap(False)
        # A resize refits once the layout settles, not at every step of a drag.
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.fit)
        table.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._table and event.type() == QEvent.Type.Resize:
            self._later.start()
        return False

    def fit(self) -> None:
        """Tooltips on the names; the name columns as wide as the figures leave room for."""
        table, header = self._table, self._table.horizontalHeader()
        for row in range(table.rowCount()):
            for column in self._columns:
                item = table.item(row, column)
                if item is not None:
                    item.setToolTip(item.text())
        wants = [max(table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in self._columns]
        others = sum(
            max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(table.columnCount())
            if c not in self._columns and not table.isColumnHidden(c)
        )
        room = table.viewport().width() - others
        for column, width in zip(self._columns, share(room, wants), strict=True):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
