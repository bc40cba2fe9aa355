"""The live run's chart: throughput against time, one curve per flow, redrawn on a timer and
handed to pyqtgraph as at most about a point a pixel (app.ui.common.decimate) with its peak
downsampling and clip-to-view on, so that a redraw costs the same however long the run."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.domain.net import Flow, Protocol
from app.domain.plan import RunKey
from app.domain.results import Sample
from app.domain.units import rate_unit
from app.ui.common.chart_style import COLOURS, LINES, add_legend, series_colour, style_plot
from app.ui.common.decimate import budget, decimated
from app.ui.common.on_demand import OnDemand
from app.ui.common.plot import Plot

#: A live curve marks each sample while it holds at most this many.
SYMBOLS_UP_TO = 120


class LiveChart(OnDemand, Plot):
    """Throughput of the run in progress, one curve per flow (up, and down for --bidir):
    what the receiver got. Where only the sender has reported so far (an upload measured
    from the sending end), its rate is drawn as its own curve, named "sent", until the
    receiver's figures replace it when the run ends: for UDP what was sent may be lost, and
    a TCP sender's first second counts its socket buffer filling, above what the link
    carried. (A TCP run whose engine reports only the sender is drawn, once over, as the
    tables count it: its sender's figures are its goodput.)

    It keeps the last MAX_POINTS samples of each flow (an hour at 1 s intervals, six minutes
    at 0.1 s), so a run of a day charts the latest stretch in bounded memory; every sample is
    in the database all the same."""

    MAX_POINTS = 3600

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style_plot(self, "Current run")
        self.setLabel("bottom", "time", units="s")
        self.setMouseEnabled(x=False, y=False)
        item = self.getPlotItem()
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        self._legend = add_legend(self)
        # Keyed by flow and whether the figures are the sender's ("sent") or the receiver's.
        self._times: dict[tuple[Flow, bool], deque[float]] = {}
        self._rates: dict[tuple[Flow, bool], deque[float]] = {}
        self._curves: dict[tuple[Flow, bool], pg.PlotDataItem] = {}
        self._key: RunKey | None = None  # the run shown
        self._symbols: dict[tuple[Flow, bool], bool] = {}  # whether a curve marks its samples
        self._drawn: dict[tuple[Flow, bool], int] = {}
        self._ranges: tuple[tuple[float, float], float] | None = None
        self._dirty = False
        self._start_timer()
        self._unit = ("Mbit/s", 1e6)
        self._colour = COLOURS[0]
        self.setLabel("left", f"throughput ({self._unit[0]})")

    def reset(self, title: str, key: RunKey | None = None) -> None:
        """A new run (key) on an empty chart, its curves in the colour of the run's series."""
        self._clear()
        self._key = key
        self._colour = series_colour(key.series) if key is not None else COLOURS[0]
        self.getPlotItem().setTitle(title)
        self._changed()

    def _clear(self) -> None:
        for curve in self._curves.values():
            self.removeItem(curve)
        self._legend.clear()
        self._curves.clear()
        self._symbols.clear()
        self._drawn.clear()
        self._ranges = None
        self._times.clear()
        self._rates.clear()

    def add_sample(self, sample: Sample, ended: Protocol | None = None) -> None:
        """One interval. Live, a sender's figure is drawn as what it is, "sent", even where
        it stands in for TCP's goodput in the tables: it runs a socket buffer ahead. ended:
        the run's protocol once it is over, when the figures are the tables' own
        (Sample.goodput_bps: a TCP sender's, where the engine reports no other, counts)."""
        rate = sample.received_bps if ended is None else sample.goodput_bps(ended)
        sent = rate is None
        if sent:
            rate = sample.sent_bps
        if rate is None:
            return
        limit = self.MAX_POINTS
        self._times.setdefault((sample.flow, sent), deque(maxlen=limit)).append(sample.end_s)
        self._rates.setdefault((sample.flow, sent), deque(maxlen=limit)).append(rate)
        self._changed()

    def revise(self, key: RunKey, samples: Sequence[Sample]) -> None:
        """The run's samples as revised when it ended (the receiver's figures joined in), in
        place of those drawn live, when that run is the one shown."""
        if key != self._key:
            return
        self._clear()
        for sample in samples:
            self.add_sample(sample, key.protocol)
        self._changed()

    @property
    def point_count(self) -> int:
        return sum(len(v) for v in self._rates.values())

    def held(self) -> tuple[object, ...]:
        """What the chart shows, for show_held to put back (a deleted session's Undo)."""
        title = self.getPlotItem().titleLabel.text
        copies = ({k: deque(v, v.maxlen) for k, v in d.items()} for d in (self._times, self._rates))
        return (title, self._key, self._colour, *copies)

    def show_held(self, held: tuple[object, ...]) -> None:
        title, key, colour, times, rates = held
        self._clear()
        self._key, self._colour = key, colour  # type: ignore[assignment]
        self._times, self._rates = times, rates  # type: ignore[assignment]
        self.getPlotItem().setTitle(str(title))
        self._changed()

    def curve_names(self) -> list[str]:
        """The names of the curves drawn (as the legend shows them)."""
        return [str(curve.name()) for curve in self._curves.values()]

    def curve_rates(self, name: str) -> list[float]:
        """The rates (bit/s) of the curve drawn under this name."""
        for key, curve in self._curves.items():
            if curve.name() == name:
                return list(self._rates[key])
        return []

    @property
    def drawn_count(self) -> int:
        """The most points handed to pyqtgraph for one curve at the last redraw."""
        return max(self._drawn.values(), default=0)

    def _draw(self) -> None:
        self._dirty = False
        # Each curve as at most about a point a pixel (its peaks kept), whatever it holds: a
        # redraw costs the same after an hour as after a minute.
        most = budget(self.getPlotItem().getViewBox().width())
        shown = {
            key: decimated(np.asarray(self._times[key]), np.asarray(self._rates[key]), most)
            for key in self._rates
            if self._rates[key]
        }
        peak = max((float(np.max(v)) for _, v in shown.values()), default=0.0)
        unit, scale = rate_unit(peak) if peak else ("Mbit/s", 1e6)
        if (unit, scale) != self._unit:
            self._unit = (unit, scale)
            self.setLabel("left", f"throughput ({unit})")
        for index, flow in enumerate((Flow.UP, Flow.DOWN)):
            for sent in (False, True):
                key = (flow, sent)
                if key not in shown:
                    continue
                few = len(self._rates[key]) <= SYMBOLS_UP_TO
                if key not in self._curves or self._symbols.get(key) != few:
                    if key in self._curves:
                        self.removeItem(self._curves.pop(key))
                    self._curves[key] = self._curve(index, flow, sent, symbols=few)
                    self._symbols[key] = few
                times, rates = shown[key]
                self._curves[key].setData(times, rates / scale)
                self._drawn[key] = len(times)
        # Throughput reads against zero: an axis zoomed onto the noise would mislead.
        last = max((float(t[-1]) for t, _ in shown.values()), default=1.0)
        full = any(len(v) == self.MAX_POINTS for v in self._times.values())
        first = min((float(t[0]) for t, _ in shown.values()), default=0.0) if full else 0.0
        self._set_ranges((first, max(last, first + 1.0)), (peak / scale) * 1.15 if peak else 1.0)

    def _curve(self, index: int, flow: Flow, sent: bool, *, symbols: bool) -> pg.PlotDataItem:
        """A flow's curve in the run's series colour: the download of a run both ways dashed,
        the sender's figures (before the receiver's arrive) dotted; each sample marked while
        there are few (a long run's thousands of marks would cost every redraw)."""
        name = "upload" if flow is Flow.UP else "download"
        name += " (sent)" if sent else ""
        pen = pg.mkPen(self._colour, width=2, style=LINES[index + (2 if sent else 0)])
        marks = {"symbol": "o" if flow is Flow.UP else "s", "symbolSize": 5} if symbols else {}
        if symbols:  # any symbol option alone makes pyqtgraph mark each point
            marks["symbolBrush"] = self._colour
        return self.plot([], [], pen=pen, name=name, **marks)

    def _set_ranges(self, x: tuple[float, float], top: float) -> None:
        """The axes' ranges, set only when they change (each setting lays the plot out)."""
        if (x, top) == self._ranges:
            return
        self._ranges = (x, top)
        self.setXRange(*x, padding=0.02)
        self.setYRange(0, top, padding=0)
