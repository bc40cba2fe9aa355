"""A responsiveness result over time, as networkQuality and Flent draw one: goodput above and
latency below, one point per step of each direction's ramp, on a shared time axis, with the
idle latency as a dashed line."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.domain.units import rate_unit
from app.study.responsiveness.results import Phase, ResponsivenessResult
from app.ui.common.chart_style import COLOURS, add_legend, style_plot
from app.ui.common.plot import Plot

#: A direction's colour in both plots (Okabe-Ito), the same in the window and the PNGs.
DIRECTION_COLOURS = {Phase.DOWNLOAD: COLOURS[0], Phase.UPLOAD: COLOURS[1], Phase.BOTH: COLOURS[2]}
DIRECTION_NAMES = {Phase.DOWNLOAD: "Download", Phase.UPLOAD: "Upload", Phase.BOTH: "Both at once"}
IDLE_COLOUR = COLOURS[7]


class ResponsivenessTimeChart(QWidget):
    """Two plots, goodput and latency per step; show_result() draws a result."""

    def __init__(self, parent: QWidget | None = None, *, print_friendly: bool = False) -> None:
        super().__init__(parent)
        self.print_friendly = print_friendly
        self.goodput = Plot()
        self.goodput.setAccessibleName("Goodput over time")
        self.latency = Plot()
        self.latency.setAccessibleName("Latency over time")
        for plot, title in ((self.goodput, "Goodput per step"), (self.latency, "Latency per step")):
            style_plot(plot, title, print_friendly)
            if not print_friendly:  # the axes name them: the height goes to the curves
                plot.getPlotItem().setTitle(None)
            plot.setMouseEnabled(x=False, y=False)
            plot.setMinimumHeight(100)
            for side in ("left", "bottom"):
                # Milliseconds stay milliseconds: no "(x0.001)" beside a sub-ms latency.
                plot.getPlotItem().getAxis(side).enableAutoSIPrefix(False)
        # One legend, under both plots: a direction has the same colour in each.
        add_legend(self.latency, print_friendly)
        self.latency.setXLink(self.goodput)
        self.latency.setLabel("bottom", "time (s)")
        self.latency.setLabel("left", self._axis("latency", "ms"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.goodput, 4)
        layout.addWidget(self.latency, 5)  # with the legend under it
        #: What is drawn, per curve name: (times, values) — what a test reads back.
        self.drawn: dict[str, tuple[list[float], list[float]]] = {}

    def _axis(self, what: str, unit: str) -> str:
        """On paper "goodput (Mbit/s)"; in the window, where a plot is a few lines tall, the
        unit alone (Mbit/s is goodput, ms latency) so that the label is never cut."""
        return f"{what} ({unit})" if self.print_friendly else unit

    def clear(self) -> None:
        for plot in (self.goodput, self.latency):
            plot.clear()
            legend = plot.getPlotItem().legend
            if legend is not None:
                legend.clear()
        self.drawn = {}

    def show_result(self, result: ResponsivenessResult) -> None:
        self.clear()
        peak = max((s.goodput_bps or 0.0 for load in result.loads for s in load.steps), default=0.0)
        unit, factor = rate_unit(peak) if peak else ("Mbit/s", 1e6)
        self.goodput.setLabel("left", self._axis("goodput", unit))
        highest = result.idle_latency_ms
        end = 0.0
        for load in result.loads:
            name = DIRECTION_NAMES.get(load.phase, load.phase.label)
            pen = pg.mkPen(DIRECTION_COLOURS.get(load.phase, COLOURS[4]), width=2)
            brush = pg.mkBrush(DIRECTION_COLOURS.get(load.phase, COLOURS[4]))
            middle = [(s.start_s + s.end_s) / 2 for s in load.steps]
            end = max([end, *(s.end_s for s in load.steps)])
            rates = [(s.start_s + s.end_s) / 2 for s in load.steps if s.goodput_bps is not None]
            values = [s.goodput_bps / factor for s in load.steps if s.goodput_bps is not None]
            self.goodput.plot(  # named for the latency plot's legend, which it has none of
                rates, values, pen=pen, symbol="o", symbolSize=7, symbolBrush=brush, name=name
            )
            self.drawn[f"goodput {name}"] = (rates, values)
            times = [m for m, s in zip(middle, load.steps, strict=True) if s.latency_ms is not None]
            latencies = [s.latency_ms for s in load.steps if s.latency_ms is not None]
            self.latency.plot(
                times, latencies, pen=pen, symbol="o", symbolSize=7, symbolBrush=brush, name=name
            )
            self.drawn[f"latency {name}"] = (times, latencies)
            highest = max([highest, *latencies])
        idle_pen = pg.mkPen(IDLE_COLOUR, width=1, style=Qt.PenStyle.DashLine)
        self.latency.plot(
            [0.0, end or 1.0],
            [result.idle_latency_ms] * 2,
            pen=idle_pen,
            name="idle latency",
        )
        self.drawn["idle latency"] = ([0.0, end], [result.idle_latency_ms] * 2)
        self.goodput.setXRange(0, end or 1.0, padding=0.02)
        self.goodput.setYRange(0, (peak / factor) * 1.15 if peak else 1.0, padding=0)
        self.latency.setYRange(0, highest * 1.15 if highest > 0 else 1.0, padding=0)
