"""A kept responsiveness result in the Sessions tab: its card, goodput and latency over the
ramp, its tables, and the files it exports to; or two results compared per direction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import BadOption
from app.report.responsiveness_export import (
    STEP_HEADERS,
    SUMMARY_HEADERS,
    comparison_csv,
    comparison_json,
    step_rows,
    summary_rows,
)
from app.study.responsiveness.comparison import TABLE_HEADERS, ResponsivenessComparison
from app.study.responsiveness.kept import KeptResult
from app.ui.common.file_dialogs import save_file
from app.ui.common.saved import confirm_saved
from app.ui.responsiveness.card import ResultCard
from app.ui.responsiveness.result_files import card_title, write_file, write_result
from app.ui.responsiveness.time_chart import ResponsivenessTimeChart

FILTERS = {
    "csv": "CSV (*.csv)",
    "json": "JSON (*.json)",
    "png": "PNG image (*.png)",
    "html": "HTML report (*.html)",
}


def _two_lines(header: str) -> str:
    """A long header on two lines, broken at the space nearest its middle (the window only:
    the files keep it on one)."""
    if len(header) <= 14 or " " not in header:
        return header
    middle = len(header) // 2
    cut = min((i for i, c in enumerate(header) if c == " "), key=lambda i: abs(i - middle))
    return f"{header[:cut]}\n{header[cut + 1 :]}"


def _table(name: str, headers: Sequence[str], *, wrap: bool = False) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels([_two_lines(h) if wrap else h for h in headers])
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.setAlternatingRowColors(True)
    return table


def _fill(table: QTableWidget, rows: Sequence[Sequence[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            if c > 0:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)


def _fit_rows(table: QTableWidget) -> None:
    """As tall as its rows (and a scroll bar's room): the findings follow right under it."""
    table.resizeRowsToContents()
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    header = table.horizontalHeader().sizeHint().height()
    bar = table.horizontalScrollBar().sizeHint().height()
    table.setFixedHeight(rows + header + bar + 2 * table.frameWidth() + 4)


def _buttons(specs: Sequence[tuple[str, str, Callable[[], None]]]) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 2)
    row.addStretch(1)
    for text, tip, slot in specs:
        button = QPushButton(text)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False, slot=slot: slot())
        row.addWidget(button)
    return row


def _file_name(name: str, ending: str) -> str:
    safe = "".join(c if c.isalnum() or c in " -_," else "-" for c in name).strip() or "result"
    return f"{safe}.{ending}"


class ResultView(QWidget):
    """One kept result: the card over the chart and tables, with its exports."""

    said = Signal(str, bool)  # a sentence for the tab's message line, and whether a problem

    def __init__(self, settings: QSettings | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.kept: KeptResult | None = None
        self.card = ResultCard()
        self.chart = ResponsivenessTimeChart()
        self.summary = _table("Result per direction", SUMMARY_HEADERS)
        self.steps = _table("Steps of the ramp", STEP_HEADERS)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.chart, "Over time")
        self.tabs.addTab(self.summary, "Per direction")
        self.tabs.addTab(self.steps, "Steps")
        exports = _buttons(
            [
                (
                    "Export CSV…",
                    "The per-direction and steps tables as CSV, for a spreadsheet.",
                    self._csv,
                ),
                ("Export JSON…", "The whole result with every step, as JSON.", self._json),
                ("Save card as PNG…", "The result card as an image.", self._png),
                (
                    "Export HTML report…",
                    "A self-contained page: the card, the chart over time and the tables.",
                    self._html,
                ),
            ]
        )
        # Beside the tabs' names: the chart keeps the height a row of buttons would take.
        corner = QWidget()
        corner.setLayout(exports)
        self.tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.card)
        layout.addWidget(self.tabs, 1)

    def show_result(self, kept: KeptResult) -> None:
        self.kept = kept
        self.card.show_result(kept.result, card_title(kept))
        self.chart.show_result(kept.result)
        _fill(self.summary, summary_rows(kept))
        _fill(self.steps, step_rows(kept))

    # -- exports -------------------------------------------------------------------------------
    def export_to(self, kind: str, path: Path) -> None:
        """Write the result shown as kind (csv, json, png, html) to path."""
        if self.kept is not None:
            write_result(self.kept, kind, path)

    def _ask(self, kind: str) -> None:
        if self.kept is None or self._settings is None:
            return
        name = _file_name(self.kept.name, kind)
        path = save_file(self, self._settings, "export", "Export", name, FILTERS[kind])
        if path is None:
            return
        try:
            self.export_to(kind, path)
        except BadOption as err:
            self.said.emit(err.sentence, True)
            return
        self.said.emit(f"Saved {path.name} in {path.parent}.", False)
        confirm_saved(self, path)

    def _csv(self) -> None:
        self._ask("csv")

    def _json(self) -> None:
        self._ask("json")

    def _png(self) -> None:
        self._ask("png")

    def _html(self) -> None:
        self._ask("html")


class ComparisonView(QWidget):
    """Two kept results compared per direction: the table, then a sentence per row."""

    said = Signal(str, bool)

    def __init__(self, settings: QSettings | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.comparison: ResponsivenessComparison | None = None
        self.title = QLabel()
        self.title.setAccessibleName("Comparison title")
        self.title.setWordWrap(True)
        self.title.setStyleSheet("font-weight: bold;")
        self.table = _table("Responsiveness differences", TABLE_HEADERS, wrap=True)
        self.findings = QLabel()
        self.findings.setAccessibleName("Comparison findings")
        self.findings.setWordWrap(True)
        self.findings.setTextFormat(Qt.TextFormat.PlainText)
        self.findings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.findings.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        exports = _buttons(
            [
                ("Export comparison CSV…", "The table as CSV.", lambda: self._ask("csv")),
                (
                    "Export comparison JSON…",
                    "The table and the findings as JSON.",
                    lambda: self._ask("json"),
                ),
            ]
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        layout.addWidget(self.findings)
        layout.addStretch(1)
        layout.addLayout(exports)

    def show_comparison(self, comparison: ResponsivenessComparison) -> None:
        self.comparison = comparison
        baseline, other = comparison.names
        self.title.setText(
            f"“{other}” against the baseline “{baseline}”: per direction RPM and loaded "
            f"latency, the difference, and whether it is beyond the probes' noise (Welch's "
            f"test over the probes, Holm's correction)."
        )
        _fill(self.table, comparison.table())
        _fit_rows(self.table)
        self.findings.setText("\n\n".join(comparison.findings))

    def export_to(self, kind: str, path: Path) -> None:
        if self.comparison is not None:
            text = comparison_csv if kind == "csv" else comparison_json
            write_file(path, text(self.comparison))

    def _ask(self, kind: str) -> None:
        if self.comparison is None or self._settings is None:
            return
        path = save_file(
            self, self._settings, "export", "Export", f"comparison.{kind}", FILTERS[kind]
        )
        if path is None:
            return
        try:
            self.export_to(kind, path)
        except BadOption as err:
            self.said.emit(err.sentence, True)
            return
        self.said.emit(f"Saved {path.name} in {path.parent}.", False)
        confirm_saved(self, path)


class ResponsivenessView(QStackedWidget):
    """The result on view, or the comparison on view."""

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result_view = ResultView(settings)
        self.comparison_view = ComparisonView(settings)
        self.addWidget(self.result_view)
        self.addWidget(self.comparison_view)

    @property
    def result_id(self) -> str | None:
        kept = self.result_view.kept
        return kept.id if kept is not None and self.currentWidget() is self.result_view else None

    def show_result(self, kept: KeptResult) -> None:
        self.result_view.show_result(kept)
        self.setCurrentWidget(self.result_view)

    def show_comparison(self, comparison: ResponsivenessComparison) -> None:
        self.comparison_view.show_comparison(comparison)
        self.setCurrentWidget(self.comparison_view)
