"""Which session the Measure tab's sweep charts show, so that they let go of it once it is
deleted in the Sessions tab."""

from __future__ import annotations

from PySide6.QtCore import QObject

from app.ui.measure.tab import MeasureTab


class ChartedSession(QObject):
    """The last session the Measure tab measured (its charts and table show it until the next
    study starts)."""

    def __init__(self, measure: MeasureTab) -> None:
        super().__init__(measure)
        self._measure = measure
        self.session_id: str | None = None
        measure.session_saved.connect(self._saved)

    def _saved(self, session_id: str) -> None:
        self.session_id = session_id

    def forget(self, session_ids: list[str]) -> None:
        """Sessions deleted: the sweep charts and table stop showing the one they show."""
        measure = self._measure
        if measure.running or self.session_id not in session_ids:
            return
        self.session_id = None
        for chart in (measure.sweep_chart, measure.rtt_chart, measure.cpu_chart):
            chart.clear_points()
            chart.redraw()
        measure.latency_sweep.clear_points()
        measure.latency_sweep.redraw()
        measure.table.clear_rows()
