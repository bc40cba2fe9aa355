"""The results table: per series and point, n, mean, std, min, max and the 95 % CI of the
throughput (in the unit on the mean), then the columns the engine and protocol produce (TCP
retransmits, UDP loss and jitter, RTT, working latency) and, with a link rate, the expected
goodput and the share of it reached — each shown only once a point has a value for it;
copyable."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.analysis.expectation import share_pct
from app.analysis.points import efficiency_text
from app.analysis.stats import Summary
from app.domain.metrics import SHOWN_LINK_FIGURES, ranked
from app.domain.plan_fields import value_word
from app.domain.precision import precision
from app.domain.units import format_rate
from app.engine.drivers.registry import phrased
from app.ui.common.widgets import compact_rows
from app.ui.common.wrapped_header import SHORT_TITLE_ROLE, WrappedHeader


def _number(digits: int) -> Callable[[float | None], str]:
    return lambda v: "—" if v is None else f"{v:.{digits}f}"


BASE_HEADERS = ["Series", "Value", "n", "Mean", "Std dev", "Min", "Max", "95 % CI ±"]
#: The figures after the mean, each in its row's mean's unit (written once, on the mean: a
#: unit on every figure would push the table's last columns out of view beside the form).
IN_THE_MEANS_UNIT = {
    "Std dev": "The standard deviation of the runs' throughput, in the unit of the mean.",
    "Min": "The lowest run's throughput, in the unit of the mean.",
    "Max": "The highest run's throughput, in the unit of the mean.",
    "95 % CI ±": "The half-width of the mean's 95 % confidence interval, in its unit.",
}
#: (metric, header, format, tooltip): shown only when some point has the metric.
OPTIONAL_COLUMNS: tuple[tuple[str, str, Callable[[float | None], str], str], ...] = tuple(
    (m.name, m.shown.results[1], _number(m.shown.results[2]), phrased(m.shown.results[3]))
    for m in ranked("results")
    if m.shown.results
)
#: With a link rate: what the headers allow, and the mean throughput's share of it (their
#: headers and tooltips from the metric table's link figures).
_LINK_FORMATS: dict[str, Callable[[float | None], str]] = {
    "bit/s": format_rate,
    "%": lambda v: "—" if v is None else efficiency_text(v),  # 0.04, never 0.0
}
EXPECTED_COLUMNS = tuple(
    (f.name, f.shown[0], _LINK_FORMATS[f.unit], f.shown[1])
    for f in SHOWN_LINK_FIGURES
    if f.shown is not None
)
COLUMNS = (*OPTIONAL_COLUMNS, *EXPECTED_COLUMNS)
HEADERS = BASE_HEADERS + [header for _, header, _, _ in COLUMNS]
#: Beside the form, the titles drawn shorter than their figures' column would be otherwise
#: (iperf3's own "Retr"); the full title stays the column's name, copied and read aloud, and
#: opens its tooltip.
SHORT_TITLES = {"Retransmits": "Retr", "Of expected %": "Of exp. %"}
#: Beside the form, the columns that give way when all of them do not fit its width: the
#: range, which the session's view, Copy table and the exports still give.
GIVE_WAY = ("Min", "Max")
GIVEN_WAY_TIP = (
    "Min and Max are left out here for room: widen the window or this pane to see them; "
    "Copy table, the session's view on the Sessions tab and the exports give them."
)


class ResultsTable(QTableWidget):
    def __init__(self, parent: QWidget | None = None, *, narrow: bool = False) -> None:
        """narrow: a pane beside the form, where titles of several words take two lines so
        that the columns fit it at 1280 px (across the whole window they fit on one)."""
        super().__init__(0, len(HEADERS), parent)
        if narrow:
            self.setHorizontalHeader(WrappedHeader(self))
        self.setHorizontalHeaderLabels(HEADERS)
        tips = {**IN_THE_MEANS_UNIT, **{header: tip for _, header, _, tip in COLUMNS}}
        for column, title in enumerate(HEADERS):
            item = self.horizontalHeaderItem(column)
            if item is None:
                continue
            tip = tips.get(title, "")
            if narrow and title in SHORT_TITLES:
                item.setData(SHORT_TITLE_ROLE, SHORT_TITLES[title])
                tip = f"{title}: {tip}"
            if tip:
                item.setToolTip(tip)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        compact_rows(self)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self._rows: dict[tuple[str, float | str], int] = {}
        self._shown: dict[tuple[str, float | str], tuple[Any, ...]] = {}  # update_point's args
        self._has: set[str] = set()
        copy = QAction("Copy table", self)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.triggered.connect(self.copy_to_clipboard)
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.setToolTip(
            "Per point: runs, mean, standard deviation, range and the 95 % "
            "confidence interval of the mean throughput. Ctrl+C copies it for a spreadsheet."
        )
        self.setAccessibleName("Results")
        self._narrow = narrow
        self._given_way: list[int] = []  # columns hidden for room beside the form
        self._tip = self.toolTip()
        self._show_columns()

    def set_value_header(self, text: str) -> None:
        self.setHorizontalHeaderItem(1, QTableWidgetItem(text))

    def clear_rows(self) -> None:
        self.setRowCount(0)
        self._rows.clear()
        self._shown.clear()
        self._has.clear()
        self._show_columns()

    def visible_headers(self) -> list[str]:
        return [
            item.text()
            for c in range(self.columnCount())
            if not self.isColumnHidden(c) and (item := self.horizontalHeaderItem(c)) is not None
        ]

    def _data_columns(self) -> list[int]:
        """The columns with figures: the base ones, and each other one some point has."""
        extra = [
            len(BASE_HEADERS) + offset
            for offset, (metric, _, _, _) in enumerate(COLUMNS)
            if metric in self._has
        ]
        return [*range(len(BASE_HEADERS)), *extra]

    @property
    def given_way(self) -> list[str]:
        """The titles of the columns left out for room (beside the form only)."""
        return [HEADERS[c] for c in self._given_way]

    def _show_columns(self) -> None:
        for offset, (metric, _, _, _) in enumerate(COLUMNS):
            self.setColumnHidden(len(BASE_HEADERS) + offset, metric not in self._has)
        self._fit()

    def _fit(self) -> None:
        """Beside the form, where all the columns with figures are wider than the pane, the
        range (GIVE_WAY) gives way rather than the last columns going out of view; judged on
        every column's width, so hiding them never changes the judgement."""
        if not self._narrow:
            return
        header = self.horizontalHeader()
        needed = sum(
            max(self.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in self._data_columns()
        )
        give_way = needed > self.viewport().width() and self.rowCount() > 0
        columns = [HEADERS.index(title) for title in GIVE_WAY]
        self._given_way = columns if give_way else []
        for column in columns:
            self.setColumnHidden(column, give_way)
        self.setToolTip(f"{self._tip} {GIVEN_WAY_TIP}" if give_way else self._tip)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit()

    def update_point(
        self,
        series: str,
        value: float | str,
        metrics: Mapping[str, Summary],
        expected_bps: float | None = None,
        share_applies: bool = True,
    ) -> None:
        """One row per series and value; metrics by name as app.analysis.points names them,
        and the expected goodput when the session has one (its share only where the link
        rate applies: not on the loopback)."""
        key = (series, value)
        self._shown[key] = (series, value, metrics, expected_bps, share_applies)
        row = self._rows.get(key)
        if row is None:
            row = self.rowCount()
            self.insertRow(row)
            self._rows[key] = row
        throughput = metrics["throughput_bps"]
        # The mean, its spread, range and interval in one unit (said on the mean) and to one
        # precision.
        precise = precision(throughput.mean, throughput.std, rate=True)
        cells = [
            series,
            value_word(value),
            str(throughput.n),
            precise.text(throughput.mean),
            *(
                precise.number(figure)
                for figure in (throughput.std, throughput.min, throughput.max, throughput.ci95)
            ),
        ]
        for metric, _, show, _ in OPTIONAL_COLUMNS:
            summary = metrics.get(metric)
            mean = summary.mean if summary is not None and summary.n else None
            if mean is not None:
                self._has.add(metric)
            cells.append(show(mean))
        share = share_pct(throughput.mean, expected_bps, share_applies)
        for (metric, _, show, _), shown in zip(
            EXPECTED_COLUMNS, (expected_bps, share), strict=True
        ):
            if shown is not None:
                self._has.add(metric)
            cells.append(show(shown))
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column > 0:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, column, item)
        self._show_columns()

    def held(self) -> list[tuple[Any, ...]]:
        """The points shown, in order, for show_held to put back (a deleted session's Undo)."""
        return list(self._shown.values())

    def show_held(self, held: list[tuple[Any, ...]]) -> None:
        self.clear_rows()
        for point in held:
            self.update_point(*point)

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""

    def as_tsv(self) -> str:
        """The columns with figures (those left out for room too), tab-separated, as a
        spreadsheet pastes them."""
        columns = self._data_columns()
        titles = [item.text() if (item := self.horizontalHeaderItem(c)) else "" for c in columns]
        lines = ["\t".join(titles)]
        for row in range(self.rowCount()):
            lines.append("\t".join(self.cell_text(row, c) for c in columns))
        return "\n".join(lines) + "\n"

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.as_tsv())
