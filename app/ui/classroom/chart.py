"""The class chart: one step of an exercise, every student's curve (thin, light) under the class
median (bold) and the band between the lower and upper quartiles."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from app.domain.plan import Variable
from app.domain.plan_fields import categorical
from app.domain.units import format_rate, rate_unit
from app.study.lab.classroom import ClassView
from app.ui.common.chart_style import COLOURS, add_legend, style_plot, theme_colours
from app.ui.common.charts import x_title
from app.ui.common.plot import Plot

MEDIAN_COLOUR = COLOURS[0]  # Okabe-Ito blue
#: Swept values this far apart (window sizes: 2 K … 512 K) read on a logarithmic axis.
LOG_SPAN = 30.0
#: The y axis reaches this far above the highest figure, as on every sweep chart.
HEADROOM = 1.15
#: Up to this many swept values, each is a tick of its own.
MAX_TICKS = 12


def tick(variable: Variable, value: float) -> str:
    """A swept value as its axis says it: window sizes in KiB ("64K"), bit rates with their
    unit, the rest as plain numbers."""
    if variable is Variable.WINDOW and value >= 1024:
        return f"{value / 1024:g}K"
    if variable is Variable.BITRATE:
        return format_rate(value)
    return f"{value:g}"


class ClassChart(Plot):
    """Drawn once per step chosen: the data does not grow, so no redraw timer is needed."""

    def __init__(self, parent: QWidget | None = None, *, print_friendly: bool = False) -> None:
        super().__init__(parent)
        self._print_friendly = print_friendly
        style_plot(self, "Class", print_friendly)
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self._legend = add_legend(self, print_friendly=print_friendly)
        self._items: list[Any] = []
        self.student_curves = 0
        self.median_points = 0

    def _clear(self) -> None:
        for item in self._items:
            self.removeItem(item)
        self._items.clear()
        self._legend.clear()
        self.student_curves = 0
        self.median_points = 0

    def show_step(self, view: ClassView | None, number: int) -> None:
        """Step number (1-based) of the class; an empty chart that says why when there is
        nothing to draw."""
        self._clear()
        item = self.getPlotItem()
        if view is None or not 1 <= number <= len(view.exercise.steps):
            item.setTitle("Open a class folder to see its results")
            return
        step = view.exercise.steps[number - 1]
        results = [row.steps[number - 1] for row in view.rows]
        # A sweep over names has no x axis of numbers: the class chart leaves it out.
        curves = [r.curve for r in results if r.curve and not categorical(step.plan.variable)]
        series = next((r.series.label for r in results if r.series is not None), "")
        self.setLabel("bottom", x_title(step.plan.variable))
        xs = [float(x) for curve in curves for x in curve if not isinstance(x, str)]
        log_x = bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= LOG_SPAN
        item.setLogMode(x=log_x, y=False)
        if not curves:
            item.setTitle(f"{step.title}: no student has a result for this step yet")
            self.setLabel("left", "throughput")
            return
        what = f"{series} throughput" if series else "Throughput"
        item.setTitle(f"{step.title} — {what}: each student, class median, quartiles")
        peak = max(v for curve in curves for v in curve.values())
        unit_name, scale = rate_unit(peak)
        self.setLabel("left", f"throughput ({unit_name})")
        _, foreground = (
            (QColor("white"), QColor("black")) if self._print_friendly else theme_colours()
        )
        light = QColor(foreground)
        light.setAlpha(90)
        for index, curve in enumerate(curves):
            x = np.array(list(curve), dtype=float)
            y = np.array(list(curve.values()), dtype=float) / scale
            line = self.plot(
                x,
                y,
                pen=pg.mkPen(light, width=1),
                symbol="o",
                symbolSize=4,
                symbolPen=None,
                symbolBrush=light,
                name=f"Each student ({len(curves)})" if index == 0 else None,
            )
            self._items.append(line)
        self.student_curves = len(curves)
        middle = view.median_curve(number)
        x = np.array(list(middle), dtype=float)
        median, low, high = (
            np.array([m[i] for m in middle.values()], dtype=float) / scale for i in range(3)
        )
        band = QColor(MEDIAN_COLOUR)
        band.setAlpha(60)
        lower = pg.PlotDataItem(x, low, pen=pg.mkPen(band, width=1))
        upper = pg.PlotDataItem(x, high, pen=pg.mkPen(band, width=1))
        fill = pg.FillBetweenItem(lower, upper, brush=pg.mkBrush(band))
        for part in (lower, upper, fill):
            self.addItem(part)
            self._items.append(part)
        # The band's legend entry: a sample drawn as a filled box in the band's colour.
        proxy = pg.BarGraphItem(x=[0], height=[0], width=1, brush=pg.mkBrush(band), pen=band)
        self._legend.addItem(proxy, "Middle half of the class (quartiles)")
        bold = self.plot(
            x,
            median,
            pen=pg.mkPen(MEDIAN_COLOUR, width=3),
            symbol="o",
            symbolSize=8,
            symbolBrush=MEDIAN_COLOUR,
            name="Class median",
        )
        self._items.append(bold)
        self.median_points = len(x)
        bottom = item.getAxis("bottom")
        if len(x) <= MAX_TICKS:  # the swept values themselves, as the studies label them
            bottom.setTicks(
                [
                    [
                        (float(np.log10(v)) if log_x else float(v), tick(step.plan.variable, v))
                        for v in x
                    ]
                ]
            )
        else:
            bottom.setTicks(None)
        self.setYRange(0, (peak / scale) * HEADROOM, padding=0)
        if len(x):
            first, last = (np.log10(x[[0, -1]]) if log_x else x[[0, -1]]).tolist()
            pad = (last - first) * 0.05 or 0.5
            self.setXRange(first - pad, last + pad, padding=0)
