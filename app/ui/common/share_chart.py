"""How the link was shared by series run at the same time: grouped bars of each series'
share of the total throughput, per point."""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.analysis.shares import PointShares
from app.domain.plan_fields import value_word
from app.ui.common.chart_style import add_legend, series_colour, style_plot
from app.ui.common.plot import Plot


class ShareChart(Plot):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style_plot(self, "Share of the link (series at the same time)")
        self.setLabel("left", "share of the throughput (%)")
        self.setMouseEnabled(x=False, y=False)
        self._legend = add_legend(self)
        self._items: list[pg.GraphicsObject] = []
        self.bars = 0

    def set_shares(self, points: list[PointShares], x_label: str) -> None:
        for item in self._items:
            self.removeItem(item)
        self._items.clear()
        self._legend.clear()
        self.bars = 0
        names = []
        colours = {}
        for point in points:
            for share in point.shares:
                if share.series.label not in names:
                    names.append(share.series.label)
                    colours[share.series.label] = series_colour(share.series)
        width = 0.8 / max(1, len(names))
        for index, name in enumerate(names):
            xs, heights = [], []
            for position, point in enumerate(points):
                for share in point.shares:
                    if share.series.label == name:
                        xs.append(position - 0.4 + width * (index + 0.5))
                        heights.append(share.share_pct)
            colour = colours[name]
            bars = pg.BarGraphItem(
                x=xs,
                height=heights,
                width=width * 0.9,
                brush=pg.mkBrush(colour),
                name=html.escape(name),
            )
            self.addItem(bars)
            self._legend.addItem(bars, html.escape(name))
            self._items.append(bars)
            self.bars += len(xs)
            for x, height in zip(xs, heights, strict=True):
                text = pg.TextItem(f"{height:.1f} %", anchor=(0.5, 1.0), color=colour)
                text.setPos(x, height)
                self.addItem(text)
                self._items.append(text)
        ticks = [(i, value_word(p.value)) for i, p in enumerate(points)]
        self.getPlotItem().getAxis("bottom").setTicks([ticks])
        self.setLabel("bottom", x_label)
        self.setYRange(0, 110, padding=0)
        self.setXRange(-0.6, max(0, len(points) - 1) + 0.6, padding=0)
