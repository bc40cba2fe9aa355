"""Offscreen rendering for reports: the comparison chart and the timelines as print-friendly
PNG images (the pages are laid out in pdf_pages)."""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
)
from PySide6.QtWidgets import QApplication, QWidget

from app.analysis.compare import METRIC_INFO, Comparison, SeriesData
from app.analysis.stats import summarize
from app.domain.plan_fields import categories, label_words, x_of
from app.domain.units import rate_unit
from app.ui.common.chart_style import (
    COLOURS,
    CurveStyle,
    add_legend,
    comparison_styles,
    style_plot,
)
from app.ui.common.charts import SweepChart, SweepPoint, add_expected, sweep_point
from app.ui.common.plot import Plot
from app.ui.qt_fonts import point_offscreen_at_fonts

Spread = Literal["sd", "ci"]

#: Sizes in points; at 1200 px wide the text stays readable when the PNG is printed or shrunk.
_TITLE_PT = 16
_LABEL_PT = 14
_TICK_PT = 12
_LEGEND_PT = 13

_app: QApplication | None = None  # held so the application is not collected while in use


def ensure_application() -> QApplication:
    """The running QApplication, or a new one (offscreen when there is no display)."""
    global _app
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    if existing is not None:
        raise RuntimeError("a QCoreApplication is running: charts need a QApplication")
    no_display = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if sys.platform.startswith("linux") and no_display and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    point_offscreen_at_fonts()
    _app = QApplication(sys.argv[:1])
    return _app


def _points(curve: SeriesData, spread: Spread) -> list[SweepPoint]:
    """Every planned point of the curve; one with no figure is a gap, as on screen."""
    plan = curve.session.plan
    points = []
    for value, values in curve.values.items():
        points.append(sweep_point(x_of(plan, value), summarize(values), ci=spread == "ci"))
    return points


def _axis_title(text: str, unit: str) -> str:
    return f"{text} ({unit})" if unit else text


def chart_title(comparison: Comparison, spread: Spread) -> str:
    """'Throughput, mean with 95 % CI: TCP · IPv4 · WPA2 vs TCP · IPv4 · Open'."""
    name = METRIC_INFO[comparison.metric][0]
    shown = "mean ± 1 SD" if spread == "sd" else "mean with 95 % CI"
    head = f"{name[:1].upper()}{name[1:]}, {shown}"
    if not comparison.pairs:
        return f"{head}: {', '.join(c.label for c in comparison.curves)}"
    if len(comparison.pairs) <= 2:
        pairs = "; ".join(f"{p.other.label} vs {p.baseline.label}" for p in comparison.pairs)
        return f"{head}: {pairs}"
    return f"{head}: {len(comparison.pairs)} pairs of series"


#: The property naming a chart's title as plain text, for fit_title at the painted size.
_TITLE_PROPERTY = "linklab_title"
#: A title takes at most this many lines; beyond that its end is elided ("…").
_TITLE_LINES = 3


def wrap_words(text: str, metrics: QFontMetricsF, room: float) -> list[str]:
    """The text in lines no wider than room, broken between words; a word wider than room
    on its own is elided."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if line and metrics.horizontalAdvance(joined) > room:
            lines.append(line)
            joined = word
        line = joined
    if line:
        lines.append(line)
    return [metrics.elidedText(t, Qt.TextElideMode.ElideRight, room) for t in lines] or [""]


def fit_title(chart: pg.PlotWidget, room: float) -> None:
    """The chart's title wrapped to room pixels (a long one elided after a few lines): a
    title wider than the plot would widen the plot's layout beyond the image and cut the
    right end of the axis, its last points and tick labels."""
    title = chart.property(_TITLE_PROPERTY)
    if not isinstance(title, str) or not title:
        return
    font = QFont()
    font.setPointSize(_TITLE_PT)
    metrics = QFontMetricsF(font)
    room = max(room, 80.0)
    lines = wrap_words(title, metrics, room)
    if len(lines) > _TITLE_LINES:
        rest = " ".join(lines[_TITLE_LINES - 1 :])
        last = metrics.elidedText(rest, Qt.TextElideMode.ElideRight, room)
        lines = [*lines[: _TITLE_LINES - 1], last]
    item = chart.getPlotItem()
    text = "<br>".join(html.escape(line, quote=False) for line in lines)
    item.setTitle(text, color="#000000", size=f"{_TITLE_PT}pt")
    height = int(metrics.lineSpacing() * len(lines) * 1.25) + 8
    item.titleLabel.setMaximumHeight(height)
    item.layout.setRowFixedHeight(0, height)


#: What the plot's row takes besides its title: the left axis with its label, and margins.
_TITLE_ALLOWANCE = 150
#: A timeline with at most this many intervals marks each one.
_FEW_POINTS = 5


def _fit_layout(chart: pg.PlotWidget, width: int, height: int) -> None:
    """When the laid-out plot is still wider than the image (wide tick labels on the left
    axis), the title is wrapped to what is left and the plot laid out again at the size."""
    item = chart.getPlotItem()
    if item.minimumWidth() <= width:
        return
    others = item.minimumWidth() - item.titleLabel.minimumWidth()
    fit_title(chart, width - others - 4)
    chart.resize(width + 1, height)  # a resize lays the scene out again
    chart.resize(width, height)
    app = QApplication.instance()
    if app is not None:
        app.processEvents()


def style_for_paper(chart: pg.PlotWidget, title: str) -> None:
    """A report's chart: a black title and axes in type large enough to read on paper."""
    item = chart.getPlotItem()
    chart.setProperty(_TITLE_PROPERTY, title)
    item.setTitle(html.escape(title, quote=False), color="#000000", size=f"{_TITLE_PT}pt")
    tick_font = QFont()
    tick_font.setPointSize(_TICK_PT)
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        # The origin's "0" matters on paper: keep labels at the edge of the range.
        axis.setStyle(tickFont=tick_font, tickTextOffset=6, hideOverlappingLabels=False)
        axis.labelStyle = {**axis.labelStyle, "font-size": f"{_LABEL_PT}pt", "color": "#000000"}
    item.setContentsMargins(10, 10, 28, 12)  # room for the last tick label and descenders
    legend = item.legend
    if legend is not None:
        legend.setLabelTextSize(f"{_LEGEND_PT}pt")
        for _sample, label in legend.items:  # the entries already there
            label.setText(label.text, size=f"{_LEGEND_PT}pt")


def build_chart(comparison: Comparison, *, spread: Spread = "ci") -> SweepChart:
    """The overlay chart, styled for paper: white, black axes, large type; each pair in one
    colour, the compared session dashed against its baseline's solid line; with a link rate,
    each curve's expected goodput in thin grey."""
    ensure_application()
    name, unit, _ = METRIC_INFO[comparison.metric]
    is_rate = comparison.metric == "throughput_bps"
    title = chart_title(comparison, spread)
    chart = SweepChart(
        title, name if is_rate else _axis_title(name, unit), is_rate=is_rate, print_friendly=True
    )
    style_for_paper(chart, title)
    fill_chart(chart, comparison, spread)
    return chart


def fill_chart(chart: SweepChart, comparison: Comparison, spread: Spread = "ci") -> None:
    """Draw the comparison's curves (mean with error bars, pairs in shared colours) on a
    sweep chart, in place of what it showed."""
    chart.clear_points()
    chart.set_x_label(
        _axis_title(label_words(comparison.variable_label), comparison.variable_unit),
        categories(comparison.curves[0].session.plan) if comparison.curves else None,
    )
    styles = comparison_styles(comparison)
    # The axis reaches every planned point (the largest packet size above all), even where a
    # point has no successful run to draw.
    planned = [
        x_of(c.session.plan, v)
        for c in comparison.curves
        for v in c.session.plan.values
        if not isinstance(v, str)
    ]
    chart.set_planned(planned)
    for curve in comparison.curves:
        # pyqtgraph shows legend names as rich text: a name must not become markup.
        chart.set_series(curve.label, _points(curve, spread), styles.get(curve.label))
    if comparison.metric == "throughput_bps":
        add_expected(chart, comparison.curves)
    chart.redraw()


def timeline_chart(
    title: str,
    lines: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    styles: dict[str, CurveStyle],
) -> pg.PlotWidget:
    """Throughput over time of one run per side, in the pair's colours: each line's points
    are (time in s, what the receiver got in bit/s)."""
    ensure_application()
    chart = Plot()
    style_plot(chart, title, print_friendly=True)
    add_legend(chart, print_friendly=True)
    style_for_paper(chart, title)
    peak = max((bps for _, points in lines for _, bps in points), default=0.0)
    unit, factor = rate_unit(peak) if peak else ("Mbit/s", 1e6)
    chart.setLabel("left", f"received throughput ({unit})")
    chart.setLabel("bottom", "time (s)")
    for index, (label, points) in enumerate(lines):
        style = styles.get(label, CurveStyle(COLOURS[index % len(COLOURS)]))
        chart.plot(
            [t for t, _ in points],
            [bps / factor for _, bps in points],
            pen=pg.mkPen(style.colour, width=2, style=style.pen_style),
            name=html.escape(label, quote=False),
            # A short run has an interval or two: a line alone would not show them.
            symbol="o" if len(points) <= _FEW_POINTS else None,
            symbolSize=6,
            symbolBrush=style.colour,
            symbolPen=style.colour,
        )
    chart.setYRange(0, (peak / factor) * 1.15 if peak else 1.0, padding=0)
    return chart


def chart_png(
    comparison: Comparison,
    path: str | Path | None,
    width: int = 1200,
    height: int = 700,
    *,
    spread: Spread = "ci",
) -> bytes:
    """Render the comparison chart to PNG bytes of exactly width × height pixels, and write
    them to path when one is given."""
    if spread not in ("sd", "ci"):
        raise ValueError(f"spread must be 'sd' or 'ci', not {spread!r}")
    data = widget_png(build_chart(comparison, spread=spread), width, height)
    if path is not None:
        Path(path).write_bytes(data)
    return data


def widget_png(chart: pg.PlotWidget, width: int, height: int) -> bytes:
    """A chart painted offscreen at exactly width × height pixels, then let go."""
    try:
        return painted_png(chart, width, height)
    finally:
        chart.close()
        chart.deleteLater()


def painted_png(widget: QWidget, width: int, height: int) -> bytes:
    """A widget painted at exactly width × height pixels on white; one not on screen is laid
    out offscreen first (the window's own widgets are painted as they are)."""
    app = ensure_application()
    if not widget.isVisible():
        # "Shown" so that Qt lays the view and its scene out at this size, yet never on screen.
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        if isinstance(widget, pg.PlotWidget):
            fit_title(widget, width - _TITLE_ALLOWANCE)
        widget.resize(width, height)
        widget.show()
    app.processEvents()  # let the plot lay itself out at the new size
    if isinstance(widget, pg.PlotWidget):
        _fit_layout(widget, width, height)
    # Painting into an image of our own size keeps the pixel size exact on any
    # device-pixel ratio (grab() would return width × ratio on a high-DPI screen).
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    if not isinstance(widget, pg.PlotWidget):
        widget.render(image)  # the widget and its children, as on screen
        return _png_bytes(image)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        widget.render(painter)
    finally:
        painter.end()
    return _png_bytes(image)


def _png_bytes(image: QImage) -> bytes:
    buffer = QByteArray()
    device = QBuffer(buffer)
    device.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6's stubs say bytes, the binding takes str.
    if not image.save(device, "PNG"):  # type: ignore[call-overload]
        raise RuntimeError("Qt could not encode the chart as PNG")
    device.close()
    return bytes(buffer.data())
