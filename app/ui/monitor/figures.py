"""The figures beside a monitor's chart, as a table model: per curve the latest value, the mean,
the lowest and the highest since the monitor started."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from app.analysis.monitor_trace import Figures
from app.domain.units import format_rate

HEADERS = ("", "Now", "Mean", "Min", "Max")
Index = QModelIndex | QPersistentModelIndex


def figure_text(value: float | None, unit: str) -> str:
    """'94.1 Mbit/s', '0.12 %', '3 ms', '12'; '—' while there is none."""
    if value is None:
        return "—"
    if unit == "bit/s":
        return format_rate(value)
    if unit == "ms":
        return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"
    if unit == "%":
        return f"{value:.2f} %"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


class FiguresModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._rows: list[Figures] = []

    def set_rows(self, rows: list[Figures]) -> None:
        if [r.what for r in rows] != [r.what for r in self._rows]:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
            return
        self._rows = rows
        if rows:
            last = self.index(len(rows) - 1, len(HEADERS) - 1)
            self.dataChanged.emit(self.index(0, 1), last, [Qt.ItemDataRole.DisplayRole])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation is Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return row.what[:1].upper() + row.what[1:]
            value = (row.now, row.mean, row.low, row.high)[index.column() - 1]
            return figure_text(value, row.unit)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
