"""The live latency chart: the round trips of the run in progress's latency probes, idle ones
before the engine started (negative times) and loaded ones while it runs, with the medians in
the title. Redrawn on a timer, like the throughput chart beside it, each curve as at most about
a point a pixel."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.ui.common.chart_style import COLOURS, add_legend, style_plot
from app.ui.common.decimate import budget, decimated
from app.ui.common.on_demand import OnDemand
from app.ui.common.plot import Plot

TITLE = "Latency (ms)"
PHASES = {
    "idle": ("idle, before the run", COLOURS[2]),
    "loaded": ("under load", COLOURS[1]),
    # The kernel's own view: the TCP sender's smoothed RTT, where the engine reports it
    # (iperf3 with --json-stream, on Linux), one value per interval.
    "kernel": ("TCP's own RTT (kernel)", COLOURS[3]),
}
TITLE_WORDS = {"idle": "idle", "loaded": "loaded", "kernel": "TCP's own"}


class LatencyChart(OnDemand, Plot):
    """Probe round trips against time, one curve per phase; lost probes are counted in the
    title. It keeps the last MAX_POINTS probes of each phase (200 s at 10 ms)."""

    MAX_POINTS = 20_000

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style_plot(self, TITLE)
        self.setLabel("bottom", "time", units="s")
        self.setLabel("left", "round trip (ms)")
        self.setMouseEnabled(x=False, y=False)
        item = self.getPlotItem()
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        self._legend = add_legend(self)
        self._times: dict[str, deque[float]] = {}
        self._rtts: dict[str, deque[float]] = {}
        self._lost: dict[str, int] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._drawn: dict[str, int] = {}
        self._idle_line = pg.InfiniteLine(
            angle=0, pen=pg.mkPen(COLOURS[2], width=1, style=Qt.PenStyle.DashLine)
        )
        self._idle_line.setVisible(False)
        self.addItem(self._idle_line)
        self._dirty = False
        self._start_timer()

    def reset(self) -> None:
        for curve in self._curves.values():
            self.removeItem(curve)
        self._legend.clear()
        self._curves.clear()
        self._drawn.clear()
        self._times.clear()
        self._rtts.clear()
        self._lost.clear()
        self._idle_line.setVisible(False)
        self.getPlotItem().setTitle(TITLE)
        self._changed()

    def add_probes(
        self, phase: str, times_s: Sequence[float], rtts_ms: Sequence[float | None]
    ) -> None:
        times = self._times.setdefault(phase, deque(maxlen=self.MAX_POINTS))
        rtts = self._rtts.setdefault(phase, deque(maxlen=self.MAX_POINTS))
        for t, rtt in zip(times_s, rtts_ms, strict=True):
            if rtt is None:
                self._lost[phase] = self._lost.get(phase, 0) + 1
                continue
            times.append(t)
            rtts.append(rtt)
        self._changed()

    @property
    def point_count(self) -> int:
        return sum(len(v) for v in self._rtts.values())

    @property
    def drawn_count(self) -> int:
        """The most points handed to pyqtgraph for one curve at the last redraw."""
        return max(self._drawn.values(), default=0)

    def median(self, phase: str) -> float | None:
        values = self._rtts.get(phase)
        return float(np.median(np.asarray(values))) if values else None

    def _draw(self) -> None:
        self._dirty = False
        most = budget(self.getPlotItem().getViewBox().width())
        words = []
        peak = 0.0
        for phase, (name, colour) in PHASES.items():
            if not self._rtts.get(phase):
                continue
            if phase not in self._curves:
                self._curves[phase] = self.plot([], [], pen=pg.mkPen(colour, width=1.5), name=name)
            shown = decimated(np.asarray(self._times[phase]), np.asarray(self._rtts[phase]), most)
            self._curves[phase].setData(*shown)
            self._drawn[phase] = len(shown[0])
            peak = max(peak, float(np.max(shown[1])))  # the peaks are among those drawn
            median = self.median(phase)
            lost = self._lost.get(phase, 0)
            total = lost + len(self._rtts[phase])
            loss = f", {100 * lost / total:.1f} % lost" if lost else ""
            words.append(f"{TITLE_WORDS[phase]} median {median:.3g} ms{loss}")
        idle = self.median("idle")
        self._idle_line.setVisible(idle is not None)
        if idle is not None:
            self._idle_line.setValue(idle)
        self.getPlotItem().setTitle(f"{TITLE} · {'; '.join(words)}" if words else TITLE)
        # Round trips read against zero, like throughput: the growth under load is the story.
        self.setYRange(0, peak * 1.15 if peak else 1.0, padding=0)
