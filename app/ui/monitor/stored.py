"""A stored monitor in Sessions, as it was shown live: its whole history on the monitor's time
chart, the stretches the peer was gone left as gaps, its figures over the whole monitor, and
an export of every interval on its time axis."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.analysis.monitor_trace import STORED_ROWS, figures
from app.domain.plan import Metric
from app.report.monitor_export import monitor_csv
from app.study.sweep.monitor_record import MonitorRecord
from app.ui.common.chart_style import series_colour
from app.ui.common.file_dialogs import save_file
from app.ui.common.saved import confirm_saved
from app.ui.common.widgets import ERROR_COLOUR, accessible, compact_rows
from app.ui.monitor.chart import MonitorChart
from app.ui.monitor.figures import FiguresModel


class StoredMonitor(QWidget):
    """One stored monitor: set_monitor() draws it."""

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Monitor over time")
        self._settings = settings
        self._monitor: MonitorRecord | None = None
        self.chart = MonitorChart(tabbed=True)  # each plot at the pane's whole height
        self.chart.setAccessibleName("Stored monitor chart")
        self.chart.set_window(None)  # the whole monitor, from its start
        self.model = FiguresModel(STORED_ROWS)
        self.table = QTableView()
        self.table.setModel(self.model)
        accessible(self.table, "Stored monitor figures")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        compact_rows(self.table)  # its four rows beside a plot the pane's height
        self.export_button = QPushButton("Export over time CSV…")
        self.export_button.setToolTip(
            "Every interval on the monitor's time axis (seconds since it started), with the "
            "seconds without one before it where the peer was gone."
        )
        self.export_button.clicked.connect(self.export)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        accessible(self.status, "Monitor export status")
        side = self.side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        heading = QLabel("Over the whole monitor")
        heading.setStyleSheet("font-weight: bold;")
        side_layout.addWidget(heading)
        side_layout.addWidget(self.table, 1)
        # The export under the figures, beside the chart: the chart keeps the pane's height.
        side_layout.addWidget(self.status)
        side_layout.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignRight)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chart)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)  # the figures never squeezed out of view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)

    def set_monitor(self, monitor: MonitorRecord) -> None:
        """The stored monitor: its runs, their intervals and working latency."""
        self._monitor = monitor
        plan = monitor.session.plan
        traces = monitor.traces()
        self.chart.start(traces, series_colour(plan.series[0]), Metric.LATENCY in plan.metrics)
        self.chart.redraw()
        self.model.set_rows(figures(traces, live=False))
        # Every figure readable: the side as wide as the table's columns.
        table = self.table
        table.resizeColumnsToContents()
        width = table.verticalHeader().sizeHint().width() + table.horizontalHeader().length()
        # With room for a vertical scroll bar: one that shows must not push a column out.
        scroll = table.verticalScrollBar().sizeHint().width()
        self.side.setMinimumWidth(width + 2 * table.frameWidth() + scroll + 4)
        self.status.setText("")
        self.status.setStyleSheet("")

    def export(self) -> None:
        if self._monitor is None:
            return
        session = self._monitor.session
        settings = self._settings if self._settings is not None else QSettings()
        name = f"{session.name or 'monitor'}.csv".replace("/", "-")
        path = save_file(self, settings, "export", "Export the monitor", name, "CSV (*.csv)")
        if path is not None:
            self.export_to(path)

    def export_to(self, path: Path) -> None:
        """Write the monitor's intervals over time; say so (or why not) below the chart."""
        monitor = self._monitor
        if monitor is None:
            return
        text = monitor_csv(monitor.session, list(monitor.measured), monitor.samples)
        try:
            path.write_text(text, encoding="utf-8", newline="")
        except OSError as err:
            self.status.setText(f"Cannot write {path} ({err.strerror}): choose another place.")
            self.status.setStyleSheet(f"color: {ERROR_COLOUR};")
            return
        self.status.setText(f"Saved {path.name}.")
        self.status.setStyleSheet("")
        confirm_saved(self, path)
