"""A monitor's chart: throughput, loss (UDP) or retransmits (TCP), and working latency over
time, stacked on one time axis; a rolling window of the last minutes at full resolution, or the
whole history from the monitor's buckets (mean line, lowest to highest shaded). Redrawn on a
timer while shown and changing, each curve handed to pyqtgraph as at most about a point a pixel
(its peaks kept), with pyqtgraph's peak downsampling and clip-to-view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from app.analysis.monitor_trace import DOWNLOAD, SENT, MonitorTraces
from app.analysis.trace import Trace
from app.domain.net import Protocol
from app.domain.units import rate_unit
from app.study.sweep.describe import clock_text
from app.ui.common.chart_style import COLOURS, LINES, add_legend, style_plot
from app.ui.common.decimate import budget, decimated
from app.ui.common.on_demand import OnDemand
from app.ui.common.plot import Plot
from app.ui.common.tabs import show_tab

#: The span shown until the user chooses another: the last five minutes.
DEFAULT_WINDOW_S = 300.0
LATENCY_COLOUR = COLOURS[1]  # as the live latency chart draws loaded probes
#: A stretch this many times the usual step between points is a gap (the peer gone).
GAP_STEPS = 2.5


def with_gaps(t: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points with a break (NaN) where none came for a while: a gap is drawn as one, not
    bridged by a straight line."""
    if len(t) < 3:
        return t, v
    steps = np.diff(t)
    cuts = np.nonzero(steps > GAP_STEPS * float(np.median(steps)))[0]
    if not len(cuts):
        return t, v
    return np.insert(t, cuts + 1, t[cuts]), np.insert(v.astype(float), cuts + 1, np.nan)


#: Steps between a clock axis's labels, seconds: as a clock divides time.
CLOCK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600)
#: About this many pixels between two labels.
LABEL_PX = 90


class ClockAxis(pg.AxisItem):
    """A time axis in minutes and seconds (hours when there are any) since the start, its
    labels on whole minutes or hours (0:30, 1:00 … or 1:00:00, 2:00:00), not at 50 s."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        wanted = (maxVal - minVal) / max(size / LABEL_PX, 1.0)
        major = next((step for step in CLOCK_STEPS if step >= wanted), CLOCK_STEPS[-1])
        # Halves only where a clock divides time so (30 s of a minute, not 0.5 s of a second
        # or 2.5 s of 5 s): a label at a half second reads as the whole one ("0:02 0:02").
        minor = major / 2
        return [(float(major), 0.0)] + ([(minor, 0.0)] if minor in CLOCK_STEPS else [])

    def tickStrings(self, values: Sequence[float], scale: float, spacing: float) -> list[str]:
        return [clock_text(value) for value in values]


class _Curve:
    """One named curve: its line, and (whole history) the band from lowest to highest."""

    def __init__(self, plot: pg.PlotWidget, name: str, colour: str, line: int) -> None:
        pen = pg.mkPen(colour, width=2, style=LINES[line % len(LINES)])
        self.line = plot.plot([], [], pen=pen, name=name)
        # Curves that hold their points without drawing them (a PlotDataItem without a pen
        # drops its points, and the band between two of them is then empty).
        edge = pg.mkPen(QColor(0, 0, 0, 0))
        self.low = pg.PlotCurveItem([], [], pen=edge)
        self.high = pg.PlotCurveItem([], [], pen=edge)
        shade = QColor(colour)
        shade.setAlpha(50)
        self.band = pg.FillBetweenItem(self.low, self.high, brush=shade)
        plot.addItem(self.band)
        self.count = 0  # points shown
        self.drawn = 0  # points handed to pyqtgraph for them

    def show(
        self,
        t: np.ndarray,
        v: np.ndarray,
        low: np.ndarray | None,
        high: np.ndarray | None,
        most: int,
    ) -> None:
        """The points (at most about `most` of them drawn, their peaks kept), and the band
        between low and high when given."""
        gapped_t, gapped_v = decimated(*with_gaps(t, v), most)
        self.line.setData(gapped_t, gapped_v, connect="finite")
        self.count = len(t)
        self.drawn = len(gapped_t)
        banded = low is not None and high is not None and len(t) > 0
        self.low.setData(t if banded else [], low if banded else [])
        self.high.setData(t if banded else [], high if banded else [])
        self.band.setVisible(banded)


class _Plot(Plot):
    def __init__(self, title: str, y_label: str, name: str) -> None:
        super().__init__(axisItems={"bottom": ClockAxis(orientation="bottom")})
        style_plot(self, title)
        self.setLabel("left", y_label)
        self.getAxis("left").enableAutoSIPrefix(False)  # the label names the unit itself
        self.setMouseEnabled(x=False, y=False)
        item = self.getPlotItem()
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        self.legend = add_legend(self)
        self.curves: dict[str, _Curve] = {}
        self.setAccessibleName(name)
        self.setMinimumHeight(60)
        self._pages: QTabWidget | None = None  # the tabs it is on, which then say its title
        self._title = title
        self._fit_title()

    def show_on_tab(self, pages: QTabWidget) -> None:
        """On a tab of its own: the tab says its title, and the plot keeps the height a
        title would take."""
        self._pages = pages
        self._fit_title()

    def set_title(self, title: str) -> None:
        """The title, shortened with "…" to the plot's width (whole in the tooltip): a narrow
        pane (a small screen, the figures' table beside it) must not cut it off mid-word."""
        self._title = title
        self.setToolTip(title)
        self._fit_title()

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        # The title first: the plot's layout then takes the width the shorter title needs.
        if event is not None:
            self._fit_title(event.size().width())
        super().resizeEvent(event)

    def _fit_title(self, width: int | None = None) -> None:
        if not hasattr(self, "_title"):
            return  # pyqtgraph resizes while it builds the plot: nothing to fit yet
        if self._pages is not None:
            self._pages.setTabText(self._pages.indexOf(self), self._title)
            self.getPlotItem().setTitle(None)
            return
        font = QFont(self.font())
        font.setPointSizeF(11)  # the size style_plot gives titles
        room = max((width or self.width()) - 2 * self.getAxis("left").width() - 8, 40)
        text = QFontMetrics(font).elidedText(self._title, Qt.TextElideMode.ElideRight, room)
        self.getPlotItem().setTitle(text)


#: A plot on a page of its own (a tabbed chart) is never shorter: room for its time axis with
#: its label, its legend, and above them a span of values as tall as its value axis's label
#: ("throughput (Mbit/s)") is long.
READABLE_PLOT_PX = 180
#: Above a plot on a tab of its own (no title there): the end of its value axis's label,
#: centred on the axis, reaches past the axis's top.
TABBED_TOP_PX = 10


class MonitorChart(OnDemand, QWidget):
    """The three plots of one monitor's traces, stacked on one time axis; or (tabbed) each on
    a tab of its own at its whole height, for a pane that has no room for three: a stored
    monitor in Sessions shares the window's height with the list and the findings."""

    def __init__(self, parent: QWidget | None = None, *, tabbed: bool = False) -> None:
        super().__init__(parent)
        self.throughput = _Plot("Throughput", "throughput (Mbit/s)", "Monitor throughput chart")
        self.loss = _Plot("Loss", "loss (%)", "Monitor loss chart")
        self.latency = _Plot(
            "Working latency (each second's median)",
            "RTT (ms)",  # short: the plot is a third of a small pane's height
            "Monitor latency chart",
        )
        for plot in (self.loss, self.latency):
            plot.setXLink(self.throughput)
        self.throughput.setLabel("bottom", "time since the start")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.pages: QTabWidget | None = None
        if tabbed:
            pages = self.pages = QTabWidget()
            pages.setObjectName("monitor_plots")
            for plot in self._plots:
                plot.setMinimumHeight(READABLE_PLOT_PX)
                plot.setLabel("bottom", "time since the start")  # each read on its own
                pages.addTab(plot, "")
                plot.show_on_tab(pages)
                plot.getPlotItem().layout.setContentsMargins(0, TABBED_TOP_PX, 0, 0)
            layout.addWidget(pages)
        else:
            self.throughput.setMinimumHeight(90)
            for plot in (self.loss, self.latency):
                plot.setLabel("bottom", "")
            layout.addWidget(self.throughput, 5)
            layout.addWidget(self.loss, 3)
            layout.addWidget(self.latency, 3)
        self.traces: MonitorTraces | None = None
        self.colour = COLOURS[0]
        self.window_s: float | None = DEFAULT_WINDOW_S
        self._dirty = False
        self._start_timer()
        self._show_latency(False)

    def _show_latency(self, shown: bool) -> None:
        if self.pages is not None:
            show_tab(self.pages, self.pages.indexOf(self.latency), shown)
        else:
            self.latency.setVisible(shown)

    # -- what is shown -----------------------------------------------------------------------
    def start(self, traces: MonitorTraces, colour: str, latency: bool) -> None:
        """A new monitor on an empty chart, in the colour of its series."""
        for plot in self._plots:
            for curve in plot.curves.values():
                plot.removeItem(curve.line)
                plot.removeItem(curve.band)
            plot.curves.clear()
            plot.legend.clear()
        self.traces = traces
        self.colour = colour
        udp = traces.protocol is Protocol.UDP
        self.loss.set_title("Loss (% of datagrams)" if udp else "TCP retransmits")
        self.loss.setLabel("left", "loss (%)" if udp else "retransmits")
        self._show_latency(latency)
        self.changed()

    def set_window(self, seconds: float | None) -> None:
        """The last `seconds` of the monitor, or (None) its whole history."""
        self.window_s = seconds
        self.changed()

    def changed(self) -> None:
        self._changed()

    def redraw(self) -> None:
        """Draw now (tests and exports; the timer does otherwise)."""
        self._draw()

    @property
    def _plots(self) -> tuple[_Plot, _Plot, _Plot]:
        return (self.throughput, self.loss, self.latency)

    def drawn(self, plot: str) -> dict[str, int]:
        """Points shown per curve name on 'throughput', 'loss' or 'latency'."""
        shown: _Plot = getattr(self, plot)
        return {name: curve.count for name, curve in shown.curves.items()}

    def handed(self, plot: str) -> dict[str, int]:
        """Points handed to pyqtgraph per curve name (at most about one a pixel)."""
        shown: _Plot = getattr(self, plot)
        return {name: curve.drawn for name, curve in shown.curves.items()}

    def times(self, plot: str, name: str) -> list[float]:
        """The times of the points drawn of one curve (seconds since the start)."""
        shown: _Plot = getattr(self, plot)
        x = shown.curves[name].line.xData if name in shown.curves else None
        return [] if x is None else [float(t) for t in x if t == t]  # breaks left out

    def breaks(self, plot: str) -> int:
        """Gaps drawn as breaks in the curves of 'throughput', 'loss' or 'latency'."""
        shown: _Plot = getattr(self, plot)
        found = 0
        for curve in shown.curves.values():
            y = curve.line.yData
            found += int(np.isnan(y).sum()) if y is not None else 0
        return found

    # -- drawing -----------------------------------------------------------------------------
    def _draw(self) -> None:
        self._dirty = False
        traces = self.traces
        if traces is None:
            return
        latest = traces.latest_t
        window = self.window_s
        since = max(latest - window, 0.0) if window is not None else 0.0
        groups = (
            (self.throughput, traces.throughput),
            (self.loss, traces.loss),
            (self.latency, traces.latency),
        )
        for plot, group in groups:
            peak = 0.0
            scale = 1.0
            data = {n: self._data(t, since) for n, t in group.items() if n != "probes lost"}
            for t, v, _low, high in data.values():
                if len(t):
                    peak = max(peak, float(np.max(high if high is not None else v)))
            if plot is self.throughput:
                unit, scale = rate_unit(peak) if peak else ("Mbit/s", 1e6)
                plot.setLabel("left", f"throughput ({unit})")
            most = budget(plot.getPlotItem().getViewBox().width())
            for name, (t, v, low, high) in data.items():
                curve = plot.curves.get(name)
                if curve is None:
                    curve = plot.curves[name] = _Curve(plot, *self._look(plot, name))
                curve.show(
                    t,
                    v / scale,
                    None if low is None else low / scale,
                    None if high is None else high / scale,
                    most,
                )
            top = peak / scale * 1.15 if peak > 0 else 1.0
            plot.setYRange(0, top, padding=0)
        end = max(latest, window or 0.0, 1.0) if window is not None else max(latest, 1.0)
        start = max(end - window, 0.0) if window is not None else 0.0
        self.throughput.setXRange(start, end, padding=0.01)
        self._latency_title()

    def _data(
        self, trace: Trace, since: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        if self.window_s is not None:
            t, v = trace.window(since)
            return t, v, None, None
        t, v, low, high = trace.whole()
        banded = trace.bucketed  # buckets: each a span of points
        return t, v, (low if banded else None), (high if banded else None)

    def _look(self, plot: _Plot, name: str) -> tuple[str, str, int]:
        """(legend name, colour, line): download dashed, the sender's figures dotted."""
        if plot is self.latency:
            return "under load", LATENCY_COLOUR, 0
        line = 1 if name.startswith(DOWNLOAD) else 0
        if name.endswith(SENT):
            line += 2
        return name, self.colour, line

    def _latency_title(self) -> None:
        traces = self.traces
        if traces is None or "probes lost" not in traces.latency:
            return
        lost = traces.latency["probes lost"].mean or 0.0
        self.latency.set_title(f"Working latency · {lost:.1f} % of probes lost")
