"""The Compare tab: chosen series overlaid, the difference table with its tests, findings,
the standard-deviation table, and exports."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.analysis.compare import (
    METRIC_INFO,
    Comparison,
    SeriesData,
    compare,
    format_value,
    legend_labels,
    series_data,
)
from app.analysis.shares import PointShares, link_shares
from app.analysis.stats import summarize
from app.domain.errors import BadOption
from app.domain.plan import VARIABLE_LABELS
from app.domain.units import format_p, signed
from app.report.compare_export import comparison_csv, std_table
from app.ui.common.background import Background
from app.ui.common.charts import SweepChart, SweepPoint
from app.ui.common.share_chart import ShareChart
from app.ui.common.widgets import ComboBox
from app.ui.context import AppContext

PNG_SIZES = [(1200, 700), (1600, 900), (1920, 1080), (2400, 1400), (800, 500)]


def _item(text: str, align_right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if align_right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class CompareTab(QWidget):
    status_message = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.session_ids: list[str] = []
        self.items: list[SeriesData] = []
        self.comparison: Comparison | None = None
        self.curves = QListWidget()
        self.curves.setObjectName("compare_curves")
        self.curves.setAccessibleName("Series to compare")
        self.curves.setToolTip("Tick the series to compare; untick one to hide its curve.")
        self.curves.setMaximumHeight(110)
        self.metric_box = ComboBox()
        self.metric_box.setObjectName("compare_metric")
        self.metric_box.setAccessibleName("Metric")
        for name, (label, unit, _) in METRIC_INFO.items():
            self.metric_box.addItem(f"{label} ({unit})", name)
        self.metric_box.setToolTip("What to compare.")
        self.baseline = ComboBox()
        self.baseline.setObjectName("compare_baseline")
        self.baseline.setAccessibleName("Baseline")
        self.baseline.setToolTip("The reference every other series is compared with.")
        self.spread = ComboBox()
        self.spread.setObjectName("compare_spread")
        self.spread.setAccessibleName("Error bars")
        self.spread.addItem("±1 standard deviation", "sd")
        self.spread.addItem("95 % confidence interval", "ci")
        self.spread.setToolTip("What the error bars show.")
        controls = QHBoxLayout()
        for label, widget in (
            ("Metric", self.metric_box),
            ("Baseline", self.baseline),
            ("Error bars", self.spread),
        ):
            controls.addWidget(QLabel(label))
            controls.addWidget(widget)
        controls.addStretch(1)
        self.export_buttons = {}
        for key, text, tip in (
            ("png", "Chart PNG…", "Save the chart as a print-friendly PNG."),
            ("csv", "Table CSV…", "Save the difference table for a spreadsheet."),
            (
                "html",
                "HTML report…",
                "A self-contained report: chart, tables, findings, plans, "
                "conditions and environments.",
            ),
            ("pdf", "PDF report…", "The same report as PDF."),
        ):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setObjectName(f"export_{key}")
            button.clicked.connect(lambda _=False, k=key: self.export(k))
            controls.addWidget(button)
            self.export_buttons[key] = button
        self.chart = SweepChart("Comparison", "throughput", is_rate=True)
        self.chart.setObjectName("compare_chart")
        self.chart.setAccessibleName("Comparison chart")
        self.differences = QTableWidget(0, 9)
        self.differences.setObjectName("difference_table")
        self.differences.setAccessibleName("Differences")
        self.differences.setHorizontalHeaderLabels(
            [
                "Series",
                "Value",
                "Baseline mean",
                "Mean",
                "Difference",
                "%",
                "95 % CI of the difference",
                "p (Welch)",
                "Significant (α = 0.05)",
            ]
        )
        self.std_table = QTableWidget(0, 0)
        self.std_table.setObjectName("std_table")
        self.std_table.setAccessibleName("Standard deviations")
        for table in (self.differences, self.std_table):
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().setVisible(False)
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.setAlternatingRowColors(True)
        self.findings = QTextBrowser()
        self.findings.setObjectName("findings")
        self.findings.setAccessibleName("Findings")
        self.findings.setOpenLinks(False)
        tables = QTabWidget()
        tables.addTab(self.differences, "Differences")
        tables.addTab(self.std_table, "Standard deviations")
        tables.addTab(self.findings, "Findings")
        # Sessions whose series ran at the same time: how they divided the link.
        self.share_chart = ShareChart()
        self.share_chart.setObjectName("compare_share_chart")
        tables.addTab(self.share_chart, "Share of the link")
        self.tables = tables
        self.empty = QLabel("Select two or more sessions in the Sessions tab and press Compare.")
        self.empty.setObjectName("compare_empty")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.chart)
        splitter.addWidget(tables)
        splitter.setSizes([430, 300])
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addWidget(self.curves)
        layout.addLayout(controls)
        layout.addWidget(splitter, 1)
        self.metric_box.currentIndexChanged.connect(self._reload)
        self.baseline.currentIndexChanged.connect(self._recompute)
        self.spread.currentIndexChanged.connect(self._draw)
        self.curves.itemChanged.connect(self._curves_changed)
        self._reader = Background(self)
        self._set_enabled(False)

    def _set_enabled(self, enabled: bool) -> None:
        for widget in (self.metric_box, self.baseline, self.spread, *self.export_buttons.values()):
            widget.setEnabled(enabled)
        self.empty.setVisible(not enabled)

    # -- loading ---------------------------------------------------------------------------
    def load_sessions(self, session_ids: list[str]) -> None:
        self.session_ids = list(session_ids)
        self._reload()

    @property
    def reading(self) -> bool:
        return self._reader.busy

    def _reload(self) -> None:
        """Read the sessions' series in the background; drawn when they arrive."""
        metric = self.metric_box.currentData()
        door = self.context.door()
        session_ids = list(self.session_ids)

        def read() -> tuple[list[SeriesData], list[PointShares], str]:
            items: list[SeriesData] = []
            shares: list[PointShares] = []
            x_label = ""
            for session_id in session_ids:
                session = door.session(session_id)
                runs = door.runs(session.id)
                items += series_data(session, runs, metric)
                if session.plan.concurrent and not shares:
                    shares = link_shares(session.plan, runs)
                    label, unit = VARIABLE_LABELS[session.plan.variable]
                    x_label = f"{label.lower()} ({unit})" if unit else label.lower()
            return items, shares, x_label

        self._reader.run(read, self._loaded, self.status_message.emit)

    def _loaded(self, result: tuple[list[SeriesData], list[PointShares], str]) -> None:
        items, shares, x_label = result
        self.share_chart.set_shares(shares, x_label)
        self.tables.setTabVisible(self.tables.indexOf(self.share_chart), bool(shares))
        labels = legend_labels(items) if items else []
        self.items = [
            SeriesData(i.session, i.series, i.values, label)
            for i, label in zip(items, labels, strict=True)
        ]
        self.curves.blockSignals(True)
        self.curves.clear()
        for item in self.items:
            entry = QListWidgetItem(item.label)
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(Qt.CheckState.Checked)
            entry.setToolTip(f"{item.session.name or item.session.short_id}: {item.series.label}")
            self.curves.addItem(entry)
        self.curves.blockSignals(False)
        self.baseline.blockSignals(True)
        previous = self.baseline.currentText()
        self.baseline.clear()
        self.baseline.addItems([i.label for i in self.items])
        if previous in [i.label for i in self.items]:
            self.baseline.setCurrentText(previous)
        self.baseline.blockSignals(False)
        self._recompute()

    def _checked(self) -> list[int]:
        return [
            i
            for i in range(self.curves.count())
            if self.curves.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _curves_changed(self) -> None:
        self._recompute()

    def _recompute(self) -> None:
        chosen = self._checked()
        base = self.baseline.currentIndex()
        if len(self.items) < 2 or len(chosen) < 2:
            self.comparison = None
            self._set_enabled(len(self.items) >= 2)
            self._draw()
            self._fill_tables()
            if self.items:
                self.status_message.emit("Tick at least two series to compare them.")
            return
        if base not in chosen:
            base = chosen[0]
        picked = [self.items[i] for i in chosen]
        self.comparison = compare(picked, self.metric_box.currentData(), chosen.index(base))
        self._set_enabled(True)
        self._draw()
        self._fill_tables()

    # -- showing ---------------------------------------------------------------------------
    def _draw(self) -> None:
        metric = self.metric_box.currentData()
        label, unit, _ = METRIC_INFO[metric]
        chart = self.chart
        is_rate = metric == "throughput_bps"
        chart.set_metric(label if is_rate else f"{label} ({unit})", is_rate=is_rate)
        chart.clear_points()
        use_ci = self.spread.currentData() == "ci"
        checked = set(self._checked())
        if self.items:
            plan = self.items[0].session.plan
            from app.domain.plan import VARIABLE_LABELS

            x_label, x_unit = VARIABLE_LABELS[plan.variable]
            chart.set_x_label(f"{x_label.lower()} ({x_unit})" if x_unit else x_label.lower())
        top = 0.0
        for index, item in enumerate(self.items):
            points = []
            for value, runs in item.values.items():
                s = summarize(runs)
                if s.mean is None:
                    continue
                spread = (s.ci95 if use_ci else s.std) or 0.0
                top = max(top, s.mean + spread)
                points.append(SweepPoint(value, s.mean, spread))
            if index in checked:
                chart.set_series(item.label, points)
        chart.getPlotItem().setTitle(
            f"{label.capitalize()}: mean ± {'95 % CI' if use_ci else '1 SD'}"
        )
        chart.redraw()
        if top:
            # Axes fixed by every loaded series, ticked or not, so toggling a curve
            # never moves them.
            scale = chart.current_scale()
            chart.setYRange(0, top / scale * 1.15, padding=0)

    def _fill_tables(self) -> None:
        comparison = self.comparison
        self.differences.setRowCount(0)
        self.std_table.setRowCount(0)
        self.std_table.setColumnCount(0)
        if comparison is None:
            self.findings.setPlainText("")
            return
        metric = comparison.metric

        def show(v: float | None) -> str:
            return "—" if v is None else format_value(metric, v)

        for result in comparison.results:
            for p in result.points:
                row = self.differences.rowCount()
                self.differences.insertRow(row)
                negative = p.difference is not None and p.difference < 0
                ci = (
                    "—"
                    if p.ci_low is None or p.ci_high is None
                    else f"{signed(show(p.ci_low), p.ci_low < 0)} … "
                    f"{signed(show(p.ci_high), p.ci_high < 0)}"
                )
                cells = [
                    result.other.label,
                    f"{p.value:g}",
                    show(p.baseline.mean),
                    show(p.other.mean),
                    signed(show(p.difference), negative),
                    "—" if p.relative_pct is None else f"{p.relative_pct:+.1f}",
                    ci,
                    format_p(p.p_value),
                    {True: "yes", False: "no", None: "untested (1 run)"}[p.significant],
                ]
                for column, text in enumerate(cells):
                    self.differences.setItem(row, column, _item(text, column > 0))
        header, rows = std_table(comparison)
        self.std_table.setColumnCount(len(header))
        self.std_table.setHorizontalHeaderLabels(header)
        for row_values in rows:
            row = self.std_table.rowCount()
            self.std_table.insertRow(row)
            for column, value in enumerate(row_values):
                text = (
                    f"{value:g}"
                    if column == 0 and isinstance(value, float)
                    else (
                        "—"
                        if value is None
                        else show(float(value))  # type: ignore[arg-type]
                        if column
                        else str(value)
                    )
                )
                self.std_table.setItem(row, column, _item(text, column > 0))
        self.findings.setPlainText("\n\n".join(comparison.findings))

    # -- exports ---------------------------------------------------------------------------
    def export(self, kind: str) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        filters = {
            "png": "PNG image (*.png)",
            "csv": "CSV (*.csv)",
            "html": "HTML report (*.html)",
            "pdf": "PDF (*.pdf)",
        }
        size = PNG_SIZES[0]
        if kind == "png":
            text, ok = QInputDialog.getItem(
                self,
                "Chart size",
                "Size of the PNG in pixels (white, print-friendly):",
                [f"{w}x{h}" for w, h in PNG_SIZES],
                0,
                False,
            )
            if not ok:
                return
            width, _, height = text.partition("x")
            size = (int(width), int(height))
        path, _ = QFileDialog.getSaveFileName(self, "Export", f"comparison.{kind}", filters[kind])
        if path:
            self.export_to(kind, Path(path), png_size=size)

    def export_to(self, kind: str, path: Path, png_size: tuple[int, int] = (1200, 700)) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        try:
            if kind == "csv":
                path.write_text(comparison_csv(comparison), encoding="utf-8", newline="")
            else:
                from app.ui.common.report_files import write_outputs

                write_outputs(comparison, png_size=png_size, **{kind: str(path)})  # type: ignore[arg-type]
        except (OSError, BadOption) as err:
            self.status_message.emit(getattr(err, "sentence", f"Cannot write {path}: {err}."))
            return
        self.status_message.emit(f"Saved {path.name}.")
