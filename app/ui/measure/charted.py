"""Which session the Measure tab's charts show, so that they let go of it once it is deleted
in the Sessions tab, and show it again as it was when Undo delete brings it back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject

from app.ui.measure.tab import MeasureTab


@dataclass
class _PutAway:
    """What the Measure tab showed of a session when it was deleted."""

    session_id: str
    charts: list[tuple[Any, ...]]  # the sweep charts', in _sweep_charts's order
    table: list[tuple[Any, ...]]
    live: tuple[object, ...]
    latency_shown: bool
    progress: tuple[int, int, int]  # minimum, maximum, value


class ChartedSession(QObject):
    """The last session the Measure tab measured (its charts, table and progress show it until
    the next study starts, or until it is deleted)."""

    def __init__(self, measure: MeasureTab) -> None:
        super().__init__(measure)
        self._measure = measure
        self.session_id: str | None = None
        self._put_away: _PutAway | None = None
        measure.session_saved.connect(self._saved)

    def _saved(self, session_id: str) -> None:
        self.session_id = session_id
        self._put_away = None  # a new study: a session deleted before is not shown again

    def _sweep_charts(self) -> list[Any]:
        return list(self._measure.study_charts.sweep_charts)

    def forget(self, session_ids: list[str]) -> None:
        """Sessions deleted: the charts, the table and the progress stop showing the one they
        show, all alike (put away for Undo delete)."""
        measure = self._measure
        if measure.running or self.session_id is None or self.session_id not in session_ids:
            return
        progress = measure.progress
        self._put_away = _PutAway(
            self.session_id,
            [chart.held() for chart in self._sweep_charts()],
            measure.study_charts.table.held(),
            measure.study_charts.live_chart.held(),
            not measure.study_charts.latency_chart.isHidden(),
            (progress.minimum(), progress.maximum(), progress.value()),
        )
        self.session_id = None
        for chart in self._sweep_charts():
            chart.clear_points()
            chart.redraw()
        measure.study_charts.table.clear_rows()
        measure.study_charts.live_chart.reset("Current run")
        measure.study_charts.latency_chart.setVisible(False)
        progress.setRange(0, 1)
        progress.reset()

    def bring_back(self, session_ids: list[str]) -> None:
        """Sessions restored (Undo delete): the one put away is shown again as it was."""
        away = self._put_away
        if self._measure.running or away is None or away.session_id not in session_ids:
            return
        self._put_away = None
        self.session_id = away.session_id
        measure = self._measure
        for chart, held in zip(self._sweep_charts(), away.charts, strict=True):
            chart.show_held(held)
            chart.redraw()
        measure.study_charts.table.show_held(away.table)
        measure.study_charts.live_chart.show_held(away.live)
        measure.study_charts.latency_chart.setVisible(away.latency_shown)
        low, high, value = away.progress
        measure.progress.setRange(low, high)
        measure.progress.setValue(value)
