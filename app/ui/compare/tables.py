"""The Compare tab's tables filled from a comparison: the differences, in the findings' own
words and with each point's status, and the standard deviations."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QTextBrowser

from app.analysis.compare import Comparison, format_value, means_text, point_status
from app.domain.plan_fields import value_word
from app.domain.units import format_p, relative_text
from app.report.compare_export import std_table
from app.ui.compare.cells import difference_cell, interval_text


def _item(text: str, align_right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if align_right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def fill_tables(
    differences: QTableWidget,
    std_table_widget: QTableWidget,
    findings: QTextBrowser,
    comparison: Comparison | None,
) -> None:
    """Fill both tables and the findings from the comparison (empty them without one)."""
    differences.setRowCount(0)
    std_table_widget.setRowCount(0)
    std_table_widget.setColumnCount(0)
    if comparison is None:
        findings.setPlainText("")
        return
    metric = comparison.metric

    def show(v: float | None) -> str:
        return "—" if v is None else format_value(metric, v)

    for pair in comparison.pairs:
        for p in pair.points:
            row = differences.rowCount()
            differences.insertRow(row)
            ci = interval_text(metric, p)
            baseline_mean, other_mean = means_text(metric, p.baseline.mean, p.other.mean)
            cells = [
                pair.other.label,
                pair.baseline.label,
                value_word(p.value),
                baseline_mean,
                other_mean,
                difference_cell(metric, p.difference),
                relative_text(p.relative_pct),
                ci,
                format_p(p.p_value),
                format_p(p.p_holm),
                point_status(pair, p, metric),
            ]
            for column, text in enumerate(cells):
                differences.setItem(row, column, _item(text, column > 1))
    header, rows = std_table(comparison)
    std_table_widget.setColumnCount(len(header))
    std_table_widget.setHorizontalHeaderLabels(header)
    for row_values in rows:
        row = std_table_widget.rowCount()
        std_table_widget.insertRow(row)
        for column, value in enumerate(row_values):
            if column == 0:
                text = value_word(value) if isinstance(value, int | float | str) else "—"
            else:
                text = show(value) if isinstance(value, int | float) else "—"
            std_table_widget.setItem(row, column, _item(text, column > 0))
    findings.setPlainText("\n\n".join(comparison.findings))
