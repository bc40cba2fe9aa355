"""The chart of a class measuring together: one curve per station of its per-second throughput
over the whole schedule (each station alone, then every round together, on the collector's
clock), the total per second in bold, and each slot's start marked with its name. The Class
tab draws it as the figures arrive; the class report draws it print-friendly."""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from app.domain.together import SlotKind
from app.domain.units import rate_unit
from app.study.lab.together_results import TogetherResult
from app.ui.common.chart_style import COLOURS, add_legend, style_plot, theme_colours
from app.ui.common.plot import Plot

__all__ = ["TogetherChart", "station_colour", "together_png"]

TOTAL_COLOUR = "#000000"
HEADROOM = 1.15


def station_colour(index: int) -> str:
    """The index-th station's colour (the palette's, black kept for the total)."""
    palette = COLOURS[:-1]
    return palette[index % len(palette)]


def _pen_style(index: int) -> Qt.PenStyle:
    """Past the palette's colours, the stations that share a colour differ by the line."""
    styles = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine)
    return styles[(index // (len(COLOURS) - 1)) % len(styles)]


class TogetherChart(Plot):
    """Redrawn whenever new figures arrive (at most once a second, by the tab's poll)."""

    def __init__(self, parent: QWidget | None = None, *, print_friendly: bool = False) -> None:
        super().__init__(parent)
        self._print_friendly = print_friendly
        style_plot(self, "Measuring together", print_friendly)
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self._legend = add_legend(self, print_friendly=print_friendly)
        self._items: list[Any] = []
        self.station_curves = 0
        self.total_points = 0
        self.setLabel("bottom", "time since the first start (s)")
        self.setLabel("left", "throughput")

    def _clear(self) -> None:
        for item in self._items:
            self.removeItem(item)
        self._items.clear()
        self._legend.clear()
        self.station_curves = 0
        self.total_points = 0

    def show_result(self, result: TogetherResult | None) -> None:
        self._clear()
        item = self.getPlotItem()
        if result is None:
            item.setTitle("Press Start together to measure every station at once")
            return
        first = result.together.start_at
        curves: dict[str, list[tuple[float, float]]] = {
            s.student: [] for s in result.together.stations
        }
        totals: list[tuple[float, float]] = []
        starts: list[tuple[float, str]] = []
        for slot in result.slots:
            base = slot.slot.start_at - first
            alone = slot.slot.kind is SlotKind.ALONE
            starts.append((base, slot.slot.label if alone else f"Round {slot.slot.round}"))
            for station in slot.stations:
                line = curves.setdefault(station.student, [])
                line.extend((base + t, bps) for t, bps in station.figures)
                line.append((base + result.together.plan.seconds + 0.5, math.nan))  # a gap
            if slot.slot.kind is SlotKind.TOGETHER:  # alone, the total is the station's own
                totals.extend((base + x.second, x.total_bps) for x in slot.seconds)
                totals.append((base + result.together.plan.seconds + 0.5, math.nan))
        known = [bps for line in curves.values() for _, bps in line if not math.isnan(bps)]
        known += [bps for _, bps in totals if not math.isnan(bps)]
        peak = max(known, default=0.0)
        unit, scale = rate_unit(peak) if peak else ("Mbit/s", 1e6)
        self.setLabel("left", f"received throughput ({unit})")
        item.setTitle(
            f"Each station's throughput per second, and the total ({result.together.plan.words})"
        )
        for index, (student, line) in enumerate(curves.items()):
            if not any(not math.isnan(b) for _, b in line):
                continue
            colour = station_colour(index)
            curve = self.plot(
                np.array([t for t, _ in line], dtype=float),
                np.array([b for _, b in line], dtype=float) / scale,
                pen=pg.mkPen(colour, width=2, style=_pen_style(index)),
                connect="finite",
                symbol="o",
                symbolSize=4,
                symbolPen=None,
                symbolBrush=colour,
                name=html.escape(student, quote=False),
            )
            self._items.append(curve)
            self.station_curves += 1
        if any(not math.isnan(b) for _, b in totals):
            _, foreground = theme_colours()
            ink: str | QColor = TOTAL_COLOUR if self._print_friendly else foreground
            total = self.plot(
                np.array([t for t, _ in totals], dtype=float),
                np.array([b for _, b in totals], dtype=float) / scale,
                pen=pg.mkPen(ink, width=3),
                connect="finite",
                name="Total",
            )
            self._items.append(total)
            self.total_points = sum(1 for _, b in totals if not math.isnan(b))
        top = (peak / scale) * HEADROOM if peak else 1.0
        for at, label in starts:
            line = pg.InfiniteLine(
                pos=at, angle=90, pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DotLine)
            )
            self.addItem(line)
            self._items.append(line)
            text = pg.TextItem(label, color="#555555", anchor=(0, 0))
            if self._print_friendly:
                font = text.textItem.font()
                font.setPointSize(12)
                text.setFont(font)
            text.setPos(at, top)
            self.addItem(text)
            self._items.append(text)
        self.setYRange(0, top, padding=0)
        end = result.slots[-1].slot.start_at - first + result.together.plan.seconds + 1
        self.setXRange(-0.5, end, padding=0)


def together_png(result: TogetherResult, width: int = 1200, height: int = 560) -> bytes:
    """The chart as the class report shows it (print-friendly, a fixed readable size)."""
    from app.ui.common.render_charts import ensure_application, style_for_paper, widget_png

    ensure_application()
    chart = TogetherChart(print_friendly=True)
    chart.show_result(result)
    style_for_paper(chart, "Each station's throughput per second, and the total")
    return widget_png(chart, width, height)
