"""A growing curve costs each redraw the same after an hour as after a minute: the live run's
chart, the latency chart and the monitor's hand pyqtgraph at most about a point a pixel however
many they hold, keep every peak, mark samples only while there are few, and keep the breaks of
a monitor whose peer went away. (The window's timing over an hour at 0.1 s is a benchmark:
benchmarks/hour_at_fine_interval.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PySide6.QtWidgets import QWidget

from app.analysis.monitor_trace import MonitorTraces
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import RunKey
from app.domain.results import Sample
from app.ui.common.decimate import budget, decimated
from app.ui.common.latency_chart import LatencyChart
from app.ui.common.live_chart import SYMBOLS_UP_TO, LiveChart
from app.ui.monitor.chart import MonitorChart

WIDTH = 800
SIZES = (50, 600, 3_600, 20_000)


def rate(i: int) -> float:
    """A rate that wanders, with one spike and one dip the drawing must keep."""
    spike = 9e7 if i == 2_345 else 0.0
    dip = -3e7 if i == 1_234 else 0.0
    return 4e7 + (i * 7919 % 101) * 1e5 + spike + dip


def on_screen(qtbot, chart: QWidget, height: int) -> None:  # type: ignore[no-untyped-def]
    qtbot.addWidget(chart)
    chart.resize(WIDTH, height)
    chart.show()
    qtbot.waitExposed(chart)


def test_the_live_chart_draws_a_bounded_number_of_points(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = LiveChart()
    on_screen(qtbot, chart, 400)
    most = budget(chart.getPlotItem().getViewBox().width())
    drawn = []
    for count in SIZES:
        chart.reset("run", RunKey(Protocol.TCP, IpVersion.V4, 0, 1))
        for i in range(count):
            sample = Sample(i / 10, (i + 1) / 10, Flow.UP, received_bps=rate(i))
            chart.add_sample(sample)
        chart._draw()
        held = min(count, LiveChart.MAX_POINTS)
        assert chart.point_count == held
        drawn.append(chart.drawn_count)
        (curve,) = chart._curves.values()
        x, y = curve.getData()
        rates = [rate(i) for i in range(count - held, count)]
        # Every peak still drawn: the axis and the eye see the spike and the dip.
        assert max(y) == pytest.approx(max(rates) / 1e6)
        assert min(y) == pytest.approx(min(rates) / 1e6)
        assert list(x) == sorted(x)
        marked = curve.opts["symbol"] is not None
        assert marked == (held <= SYMBOLS_UP_TO), (held, curve.opts["symbol"])
    assert drawn[0] == SIZES[0]  # few: every sample
    assert all(n <= most + 2 for n in drawn), (drawn, most)
    assert drawn[-1] == drawn[-2]  # the window full: the same however long the run goes on


def test_the_latency_chart_draws_a_bounded_number_of_points(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = LatencyChart()
    on_screen(qtbot, chart, 300)
    most = budget(chart.getPlotItem().getViewBox().width())
    for count in (100, 5_000, 30_000):
        chart.reset()
        times = [i / 100 for i in range(count)]
        rtts: list[float | None] = [5.0 + (i * 31 % 17) / 10 for i in range(count)]
        rtts[count // 2] = 250.0  # one probe that waited
        chart.add_probes("loaded", times, rtts)
        chart._draw()
        assert chart.point_count == min(count, LatencyChart.MAX_POINTS)
        assert chart.drawn_count <= max(most + 2, min(count, most))
        (_, high) = chart.getPlotItem().viewRange()[1]
        assert high >= 250.0  # the peak on the axis


def test_the_monitor_draws_a_bounded_number_of_points_and_keeps_its_breaks(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = MonitorChart()
    on_screen(qtbot, chart, 500)
    traces = MonitorTraces(Protocol.TCP, interval_s=0.1)
    chart.start(traces, "#0072B2", latency=False)
    chart.set_window(3600.0)  # the last hour at full resolution: 36,000 points at 0.1 s
    handed = []
    for minutes in (1, 10, 60):
        begin = len(traces.throughput["upload (received)"].recent.arrays()[0]) if handed else 0
        for i in range(begin, minutes * 600):
            if 12_000 <= i < 12_100:  # ten seconds without an interval: the peer gone
                continue
            sample = Sample(i / 10, (i + 1) / 10, Flow.UP, received_bps=rate(i))
            traces.add_sample(0.0, sample)
        chart.redraw()
        most = budget(chart.throughput.getPlotItem().getViewBox().width())
        handed.append(chart.handed("throughput")["upload (received)"])
        assert handed[-1] <= most + 8, (handed, most)
    assert chart.drawn("throughput")["upload (received)"] > 30_000  # all shown, few drawn
    assert chart.breaks("throughput") == 1  # the gap still a gap


@given(
    arrays(np.float64, st.integers(0, 5_000), elements=st.floats(-1e9, 1e9)),
    st.integers(10, 2_000),
    st.lists(st.integers(0, 4_999), max_size=4),
)
def test_decimating_keeps_the_order_the_peaks_and_the_breaks(
    values: np.ndarray, most: int, breaks: list[int]
) -> None:
    v = values.copy()
    for at in breaks:
        if at < len(v):
            v[at] = np.nan
    t = np.arange(len(v), dtype=float)
    dt, dv = decimated(t, v, most)
    gaps = int(np.isnan(v).sum())
    assert len(dt) == len(dv) and len(dt) <= max(len(v), most + 2 * (gaps + 1) + gaps)
    assert np.all(np.diff(dt) > 0)  # in order, none twice
    assert int(np.isnan(dv).sum()) == gaps
    finite = v[~np.isnan(v)]
    if len(finite):
        assert np.nanmax(dv) == finite.max() and np.nanmin(dv) == finite.min()
    kept = dt.astype(int)
    assert np.array_equal(dv, v[kept], equal_nan=True)  # points of the curve, not made up
