"""The figures beside a monitor's chart, as a table model: a column per curve (throughput,
retransmits or loss, latency), and in rows the latest value, the mean, the lowest and the
highest since the monitor started."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from app.analysis.monitor_trace import Figures, figure_text

ROWS = ("Now", "Mean", "Min", "Max")
#: "Now" while the peer does not answer: no value, rather than the last one.
PEER_DOWN = "peer down"
Index = QModelIndex | QPersistentModelIndex


class FiguresModel(QAbstractTableModel):
    def __init__(self, rows: tuple[str, ...] = ROWS) -> None:
        super().__init__()
        self._columns: list[Figures] = []
        self._rows = rows  # a stored monitor's first row is its last value, not "Now"

    def set_rows(self, columns: list[Figures]) -> None:
        """The curves' figures, one column each."""
        if [c.what for c in columns] != [c.what for c in self._columns]:
            self.beginResetModel()
            self._columns = columns
            self.endResetModel()
            return
        self._columns = columns
        if columns:
            last = self.index(len(self._rows) - 1, len(columns) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [Qt.ItemDataRole.DisplayRole])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or not self._columns else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation is Qt.Orientation.Vertical:
            return self._rows[section]
        what = self._columns[section].what
        return what[:1].upper() + what[1:]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.row() == 0 and column.down:
                return PEER_DOWN
            value = (column.now, column.mean, column.low, column.high)[index.row()]
            return figure_text(value, column.unit)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
