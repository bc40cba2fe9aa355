"""The results table: per series and point, n, mean, std, min, max and the 95 % CI; copyable."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.analysis.stats import Summary
from app.units import format_rate

HEADERS = ["Series", "Value", "n", "Mean", "Std dev", "Min", "Max", "95 % CI ±", "RTT ms"]


class ResultsTable(QTableWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(HEADERS), parent)
        self.setHorizontalHeaderLabels(HEADERS)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self._rows: dict[tuple[str, float], int] = {}
        copy = QAction("Copy table", self)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.triggered.connect(self.copy_to_clipboard)
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.setToolTip(
            "Per point: runs, mean, standard deviation, range and the 95 % "
            "confidence interval of the mean. Ctrl+C copies it for a spreadsheet."
        )

    def set_value_header(self, text: str) -> None:
        self.setHorizontalHeaderItem(1, QTableWidgetItem(text))

    def clear_rows(self) -> None:
        self.setRowCount(0)
        self._rows.clear()

    def update_point(
        self, series: str, value: float, throughput: Summary, rtt: Summary | None = None
    ) -> None:
        key = (series, value)
        row = self._rows.get(key)
        if row is None:
            row = self.rowCount()
            self.insertRow(row)
            self._rows[key] = row
        rtt_text = "—" if rtt is None or rtt.mean is None else f"{rtt.mean:.3f}"
        cells = [
            series,
            f"{value:g}",
            str(throughput.n),
            format_rate(throughput.mean),
            format_rate(throughput.std),
            format_rate(throughput.min),
            format_rate(throughput.max),
            format_rate(throughput.ci95),
            rtt_text,
        ]
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column > 0:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, column, item)

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""

    def as_tsv(self) -> str:
        lines = ["\t".join(HEADERS)]
        for row in range(self.rowCount()):
            lines.append("\t".join(self.cell_text(row, c) for c in range(self.columnCount())))
        return "\n".join(lines) + "\n"

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.as_tsv())
