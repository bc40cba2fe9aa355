"""A stored monitor in Sessions, as it was shown live: its whole history on the monitor's time
chart, the stretches the peer was gone left as gaps, its figures over the whole monitor, and
an export of every interval on its time axis."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.analysis.monitor_trace import figures, stored_traces
from app.domain.records import RunRecord, SessionRecord
from app.domain.results import Sample
from app.report.monitor_export import monitor_csv
from app.ui.common.chart_style import series_colour
from app.ui.common.file_dialogs import save_file
from app.ui.common.saved import confirm_saved
from app.ui.common.widgets import ERROR_COLOUR, accessible
from app.ui.monitor.chart import MonitorChart
from app.ui.monitor.figures import FiguresModel

#: The figures of a stored monitor: its last value, not "now".
STORED_ROWS = ("Last", "Mean", "Min", "Max")


class StoredMonitor(QWidget):
    """One stored monitor: set_monitor() draws it."""

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Monitor over time")
        self._settings = settings
        self._session: SessionRecord | None = None
        self._runs: list[RunRecord] = []
        self._samples: dict[int, Sequence[Sample]] = {}
        self.chart = MonitorChart()
        self.chart.setAccessibleName("Stored monitor chart")
        self.chart.set_window(None)  # the whole monitor, from its start
        self.model = FiguresModel(STORED_ROWS)
        self.table = QTableView()
        self.table.setModel(self.model)
        accessible(self.table, "Stored monitor figures")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
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
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chart)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)
        layout.addLayout(bottom)

    def set_monitor(
        self,
        session: SessionRecord,
        runs: Sequence[RunRecord],
        samples: dict[int, Sequence[Sample]],
    ) -> None:
        """The monitor's runs and their intervals (samples: per run id)."""
        self._session, self._runs, self._samples = session, list(runs), samples
        plan = session.plan
        traces = stored_traces(
            plan.protocols[0],
            plan.interval_s,
            [(run.started_at, samples.get(run.id, ())) for run in runs],
        )
        self.chart.start(traces, series_colour(plan.series[0]), latency=False)
        self.chart.redraw()
        self.model.set_rows(figures(traces))
        # Every figure readable: the side as wide as the table's columns.
        table = self.table
        table.resizeColumnsToContents()
        width = table.verticalHeader().sizeHint().width() + table.horizontalHeader().length()
        self.side.setMinimumWidth(width + 2 * table.frameWidth() + 4)
        self.status.setText("")
        self.status.setStyleSheet("")

    def export(self) -> None:
        session = self._session
        if session is None:
            return
        settings = self._settings if self._settings is not None else QSettings()
        name = f"{session.name or 'monitor'}.csv".replace("/", "-")
        path = save_file(self, settings, "export", "Export the monitor", name, "CSV (*.csv)")
        if path is not None:
            self.export_to(path)

    def export_to(self, path: Path) -> None:
        """Write the monitor's intervals over time; say so (or why not) below the chart."""
        session = self._session
        if session is None:
            return
        try:
            path.write_text(
                monitor_csv(session, self._runs, self._samples), encoding="utf-8", newline=""
            )
        except OSError as err:
            self.status.setText(f"Cannot write {path} ({err.strerror}): choose another place.")
            self.status.setStyleSheet(f"color: {ERROR_COLOUR};")
            return
        self.status.setText(f"Saved {path.name}.")
        self.status.setStyleSheet("")
        confirm_saved(self, path)
