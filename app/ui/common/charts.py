"""The sweep chart (mean ± SD per point, with each series' expected goodput): it collects
points as they arrive and redraws on a timer (~10 Hz), never per point. The live run's chart
is app.ui.common.live_chart."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

from app.analysis.compare import SeriesData
from app.analysis.expectation import expected_curve
from app.analysis.stats import Summary
from app.domain.plan import Variable
from app.domain.plan_fields import VARIABLE_LABELS, variable_words
from app.ui.common.chart_style import (
    COLOURS,
    CurveStyle,
    Legend,
    add_legend,
    style_plot,
    theme_colours,
)
from app.ui.common.on_demand import OnDemand
from app.ui.common.plot import Plot
from app.ui.common.sweep_axis import SweepAxis, sweep_axis

#: Expected curves: thin grey lines, told apart by their dashes.
EXPECTED_DASHES = (
    Qt.PenStyle.DashLine,
    Qt.PenStyle.DotLine,
    Qt.PenStyle.DashDotLine,
    Qt.PenStyle.DashDotDotLine,
)


def x_title(variable: Variable) -> str:
    """A sweep chart's x axis title: 'packet size (B)'; 'DSCP / …' keeps its capitals."""
    said, unit = variable_words(variable), VARIABLE_LABELS[variable][1]
    return f"{said} ({unit})" if unit else said


def expected_name(series: str) -> str:
    """The legend name of a series' expected goodput: 'Expected (TCP · IPv4)'."""
    return f"Expected ({series})"


def add_expected(chart: SweepChart, curves: Iterable[SeriesData]) -> None:
    """Each compared curve's expected goodput, where its session states a link rate."""
    for curve in curves:
        measured = [value for value, runs in curve.values.items() if runs]
        plan = curve.session.plan
        chart.set_expected(curve.label, expected_curve(plan, curve.series, measured))


@dataclass(frozen=True)
class SweepPoint:
    x: float
    mean: float  # NaN: no successful run there, drawn as a gap in the curve
    spread: float  # ±1 SD (or the CI half-width, when that is what is shown)

    @classmethod
    def missing(cls, x: float) -> SweepPoint:
        """A planned point with no figure (no successful run): the curve breaks there
        instead of drawing a straight line through it."""
        return cls(x, math.nan, 0.0)

    @property
    def shown(self) -> bool:
        return math.isfinite(self.mean)


def sweep_point(x: float, summary: Summary | None, *, ci: bool = False) -> SweepPoint:
    """A point as its summary gives it (mean ± 1 SD, or ± the 95 % CI's half-width), or a
    gap where it has no figure (no successful run, or none that measured this)."""
    if summary is None or summary.mean is None:
        return SweepPoint.missing(x)
    return SweepPoint(x, summary.mean, (summary.ci95 if ci else summary.std) or 0.0)


class SweepChart(OnDemand, Plot):
    """Mean ± spread against the swept variable, one curve (with error bars) per series, and
    (with a link rate) each series' expected goodput as a thin dashed grey line."""

    def __init__(
        self,
        title: str,
        y_label: str,
        *,
        is_rate: bool,
        parent: QWidget | None = None,
        print_friendly: bool = False,
    ) -> None:
        super().__init__(parent)
        style_plot(self, title, print_friendly)
        self._y_label = y_label
        self._is_rate = is_rate
        self.setMouseEnabled(x=False, y=False)
        # Top left: values usually grow along x, so that corner stays clear.
        self._legend = add_legend(self, print_friendly=print_friendly)
        self._series: dict[str, list[SweepPoint]] = {}
        self._categories: list[str] | None = None  # names along x, for a sweep over names
        self._styles: dict[str, CurveStyle] = {}
        self._expected: dict[str, list[tuple[float, float]]] = {}
        self._items: list[pg.GraphicsObject] = []
        self._planned: list[float] = []  # x values the axis reaches, measured or not
        self._dirty = False
        self._print_friendly = print_friendly
        self._x_label = "packet size (B)"
        self._axis = SweepAxis(1.0, "", 1.0)  # as last drawn
        # What an empty chart says instead of a blank plot (set_empty_note), over its middle.
        self._note = QLabel(self)
        self._note.setWordWrap(True)
        self._note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._note.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._note.setAccessibleName("Chart note")
        self._note.hide()
        self._start_timer()
        self.setLabel("left", y_label)

    def set_empty_note(self, text: str) -> None:
        """The sentence the chart shows while it has no point to draw ('' for none): why
        it is empty, or when its points will come."""
        self._note.setText(text)
        self._changed()

    @property
    def empty_note(self) -> str:
        """The sentence shown now in place of points ('' when points, or none, are shown)."""
        return self._note.text() if not self._note.isHidden() else ""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if "_note" in vars(self):  # pyqtgraph resizes the plot while it is made
            self._place_note()

    def _place_note(self) -> None:
        width = max(self.width() * 3 // 4, 120)
        self._note.setFixedWidth(width)
        height = self._note.heightForWidth(width)
        self._note.move((self.width() - width) // 2, max((self.height() - height) // 2, 0))
        self._note.resize(width, max(height, self._note.sizeHint().height()))

    def set_metric(self, y_label: str, *, is_rate: bool) -> None:
        self._y_label = y_label
        self._is_rate = is_rate
        self._changed()

    def current_scale(self) -> float:
        """The divisor of the y values as last drawn (1e6 for Mbit/s, 1 when not a rate)."""
        return self._axis.scale

    def set_x_label(self, label: str, names: Sequence[str] | None = None) -> None:
        """The x axis's title, and with names, the names it shows (see set_categories)."""
        self._x_label = label
        self.setLabel("bottom", label)
        self.set_categories(names)

    def clear_points(self) -> None:
        self._series.clear()
        self._styles.clear()
        self._expected.clear()
        self._planned = []
        self._changed()

    def held(self) -> tuple[object, ...]:
        """What the chart shows, for show_held to put back (a deleted session's Undo)."""
        return dict(self._series), dict(self._styles), dict(self._expected), list(self._planned)

    def show_held(self, held: tuple[object, ...]) -> None:
        series, styles, expected, planned = held
        self._series, self._styles = dict(series), dict(styles)  # type: ignore[call-overload]
        self._expected, self._planned = dict(expected), list(planned)  # type: ignore[call-overload]
        self._changed()

    def set_planned(self, xs: Sequence[float]) -> None:
        """The x values planned: the axis reaches each, even one with no point (yet)."""
        self._planned = [float(x) for x in xs]
        self._changed()

    def set_expected(self, series: str, points: Sequence[tuple[float, float]]) -> None:
        """The goodput the link allows a series at each value (x, bit/s): the yardstick its
        measured curve is read against, drawn (and in the legend) once the series has a point;
        a curve equal to another drawn joins its name."""
        if not points:
            return
        self._expected[series] = sorted((float(x), float(y)) for x, y in points)
        self._changed()

    def _expected_drawn(self) -> dict[str, list[tuple[float, float]]]:
        """The expected curves of the series drawn, by legend name: a yardstick beside no
        measured curve (a series stopped before its first point) says nothing."""
        drawn = set(self.series_names)
        joined: dict[tuple[tuple[float, float], ...], list[str]] = {}
        for series, points in self._expected.items():
            if series in drawn:
                joined.setdefault(tuple(points), []).append(series)
        return {expected_name("; ".join(names)): list(points) for points, names in joined.items()}

    @property
    def expected_names(self) -> list[str]:
        return list(self._expected_drawn())

    def set_categories(self, names: Sequence[str] | None) -> None:
        """A sweep over names (congestion controls): the x axis shows them at 0, 1, 2, …
        where the points sit; None: numbers, as usual."""
        axis = self.getPlotItem().getAxis("bottom")
        self._categories = list(names) if names else None
        axis.setTicks([list(enumerate(self._categories))] if self._categories else None)
        self._changed()

    def set_point(self, series: str, point: SweepPoint, style: CurveStyle | None = None) -> None:
        points = [p for p in self._series.get(series, []) if p.x != point.x]
        points.append(point)
        self._series[series] = sorted(points, key=lambda p: p.x)
        if style is not None:
            self._styles[series] = style
        self._changed()

    def set_series(
        self, series: str, points: Sequence[SweepPoint], style: CurveStyle | None = None
    ) -> None:
        """A whole curve; style fixes its colour and line (else it takes the next colour)."""
        self._series[series] = sorted(points, key=lambda p: p.x)
        if style is not None:
            self._styles[series] = style
        self._changed()

    @property
    def series_names(self) -> list[str]:
        """The series drawn (one with no figure anywhere is not)."""
        return [name for name, v in self._series.items() if any(p.shown for p in v)]

    def point_count(self, series: str | None = None) -> int:
        """The points drawn (gaps aside)."""
        shown = {name: [p for p in v if p.shown] for name, v in self._series.items()}
        if series is not None:
            return len(shown.get(series, []))
        return sum(len(v) for v in shown.values())

    def gaps(self, series: str) -> list[float]:
        """Where the series' curve breaks: its x values with no figure."""
        return [p.x for p in self._series.get(series, []) if not p.shown]

    def redraw(self) -> None:
        """Draw now what changed (exports and tests call it; the timer does otherwise)."""
        if self._dirty:
            self._draw()

    def _draw(self) -> None:
        self._dirty = False
        for item in self._items:
            self.removeItem(item)
        self._items.clear()
        self._legend.clear()
        expected = self._expected_drawn()
        axis = sweep_axis(
            (p.mean + p.spread for v in self._series.values() for p in v if p.shown),
            {name: [y for _, y in v] for name, v in expected.items()},
            is_rate=self._is_rate,
        )
        self._axis = axis
        scale = axis.scale
        label = f"{self._y_label} ({axis.unit})" if axis.unit else self._y_label
        self.setLabel("left", label)
        self.setLabel("bottom", self._x_label)
        for index, (name, points) in enumerate(self._series.items()):
            if not any(p.shown for p in points):
                continue  # nothing of it to draw (a metric it never measured)
            style = self._styles.get(name, CurveStyle(COLOURS[index % len(COLOURS)]))
            colour = style.colour
            line = style.pen_style
            x = np.array([p.x for p in points], dtype=float)
            y = np.array([p.mean for p in points], dtype=float) / scale
            err = np.array([p.spread for p in points], dtype=float) / scale
            drawn = np.isfinite(y)
            bars = pg.ErrorBarItem(
                x=x[drawn],
                y=y[drawn],
                top=err[drawn],
                bottom=err[drawn],
                beam=_beam(x[drawn]),
                pen=pg.mkPen(colour, width=1.5),
            )
            # A point with no figure is NaN: "finite" breaks the line there, never drawing
            # one straight through a point that was never measured.
            curve = self.plot(
                x,
                y,
                connect="finite",
                pen=pg.mkPen(colour, width=2, style=line),
                name=html.escape(name, quote=False),  # legends are rich text; names are not
                symbol="s" if style.dashed else "o",
                symbolSize=7,
                symbolBrush=colour,
            )
            self.addItem(bars)
            self._items += [bars, curve]
        self._draw_expected(axis, expected)
        self._note.setVisible(bool(self._note.text()) and not self.series_names)
        self._place_note()
        legend = [axis.legend_name(name) for name in expected]
        self.setAccessibleDescription("Curves: " + "; ".join([*self.series_names, *legend]))
        xs = [p.x for v in self._series.values() for p in v]  # a gap too: the axis reaches it
        xs += [x for v in expected.values() for x, _ in v]
        if xs:
            xs += self._planned
        if self._categories:
            self.setXRange(-0.5, len(self._categories) - 0.5, padding=0)
        elif xs:
            self.setXRange(*x_range(xs), padding=0)
        # Throughput, times and shares read against zero; with nothing above it, 0 to 1.
        self.setYRange(0, axis.top, padding=0)

    def curve_colour(self, series: str) -> str | None:
        """The colour the series' curve is drawn in (as #rrggbb), None when not drawn."""
        for item in self._items:
            if isinstance(item, pg.PlotDataItem) and item.name() == html.escape(
                series, quote=False
            ):
                return str(item.opts["pen"].color().name())
        return None

    def plot_rect(self) -> QRectF:
        """The plot area (where the data is drawn), in scene coordinates."""
        return self.getPlotItem().vb.sceneBoundingRect()

    @property
    def legend(self) -> Legend:
        return self._legend

    def y_axis(self) -> SweepAxis:
        """The y axis as last drawn: its top, its unit, the expected curves above it."""
        return self._axis

    def _draw_expected(
        self, axis: SweepAxis, expected: dict[str, list[tuple[float, float]]]
    ) -> None:
        foreground = QColor("black") if self._print_friendly else theme_colours()[1]
        grey = QColor(foreground)
        grey.setAlpha(150)
        for index, (name, points) in enumerate(expected.items()):
            dash = EXPECTED_DASHES[index % len(EXPECTED_DASHES)]
            # One above the chart is drawn all the same (clipped at its top edge), its legend
            # saying how high it goes.
            curve = self.plot(
                np.array([x for x, _ in points], dtype=float),
                np.array([y for _, y in points], dtype=float) / axis.scale,
                pen=pg.mkPen(grey, width=1.2, style=dash),
                name=html.escape(axis.legend_name(name), quote=False),
            )
            self._items.append(curve)


def x_range(values: Sequence[float]) -> tuple[float, float]:
    """The x axis around the swept values: 5 % beyond the first and last, never below zero
    when none is (no negative packet sizes); one value alone sits mid-axis, half its size
    either side (0 to 1 for a zero)."""
    low, high = min(values), max(values)
    if high > low:
        pad = (high - low) * 0.05
        start = low - pad
        return (max(start, 0.0) if low >= 0 else start), high + pad
    if low == 0:
        return 0.0, 1.0
    half = abs(low) * 0.5
    return (low - half, low + half)


def _beam(x: np.ndarray) -> float:
    if len(x) < 2:
        return 0.0
    return min(float(np.min(np.diff(np.sort(x)))) * 0.06, float(np.ptp(x)) * 0.02)
