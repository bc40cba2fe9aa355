"""Charts: units that scale, axes from zero, and no reference-count damage from redraws."""

from __future__ import annotations

import gc
import sys

import pytest

from app.analysis.stats import summarize
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import RunKey
from app.domain.results import Sample
from app.ui.common.charts import SweepChart, SweepPoint, x_range
from app.ui.common.live_chart import LiveChart


def test_live_chart_scales_units_and_starts_at_zero(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = LiveChart()
    qtbot.addWidget(chart)
    chart.show()
    chart.reset("run")
    for i in range(5):
        chart.add_sample(Sample(i, i + 1.0, Flow.UP, received_bps=2.5e9))
    chart.add_sample(Sample(0, 1.0, Flow.DOWN))  # unknown: skipped
    chart._draw()
    assert chart.point_count == 5
    assert "Gbit/s" in chart.getPlotItem().getAxis("left").labelText
    (low, high) = chart.getPlotItem().viewRange()[1]
    assert low == 0 and high > 2.5


def test_live_chart_names_the_senders_rate_until_the_receivers_replaces_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A UDP upload's live figures are the sender's: drawn as "sent", then replaced by what
    the receiver got when the run ends."""
    chart = LiveChart()
    qtbot.addWidget(chart)
    chart.show()
    key = RunKey(Protocol.UDP, IpVersion.V4, 0, 1)
    chart.reset("run", key)
    for i in range(3):
        chart.add_sample(Sample(i, i + 1.0, Flow.UP, sent_bps=100e6))
    chart._draw()
    assert chart.curve_names() == ["upload (sent)"]
    (_, high) = chart.getPlotItem().viewRange()[1]
    assert high > 100
    revised = [Sample(i, i + 1.0, Flow.UP, sent_bps=100e6, received_bps=20e6) for i in range(3)]
    chart.revise(RunKey(Protocol.UDP, IpVersion.V4, 0, 2), revised)  # another run: ignored
    assert chart.curve_names() == ["upload (sent)"]
    chart.revise(key, revised)
    chart._draw()
    assert chart.curve_names() == ["upload"]
    assert chart.point_count == 3
    (_, high) = chart.getPlotItem().viewRange()[1]
    assert 20 < high < 30  # scaled to what was received, not to the sender's 100 Mbit/s


def test_a_tcp_senders_live_rate_is_named_sent_not_upload(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A TCP upload's live figures are the sender's too, a socket buffer ahead of the link in
    its first second: drawn as "sent" until the receiver's replace them."""
    chart = LiveChart()
    qtbot.addWidget(chart)
    chart.show()
    key = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
    chart.reset("run", key)
    chart.add_sample(Sample(0, 1.0, Flow.UP, sent_bps=35e6))
    chart._draw()
    assert chart.curve_names() == ["upload (sent)"]
    chart.revise(key, [Sample(0, 1.0, Flow.UP, sent_bps=35e6, received_bps=29e6)])
    chart._draw()
    assert chart.curve_names() == ["upload"] and chart.curve_rates("upload") == [29e6]
    # An engine that reports only the sender (netperf, iperf 2): once the run is over, its
    # figures are TCP's goodput, as the tables count them.
    chart.revise(key, [Sample(0, 1.0, Flow.UP, sent_bps=28e6)])
    chart._draw()
    assert chart.curve_names() == ["upload"] and chart.curve_rates("upload") == [28e6]


def test_legend_shows_only_once_it_names_something(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = LiveChart()
    qtbot.addWidget(chart)
    chart.show()
    legend = chart.getPlotItem().legend
    assert not legend.isVisible()  # an empty legend would be a stray box on a blank chart
    chart.add_sample(Sample(0, 1.0, Flow.UP, sent_bps=1e6))
    chart._draw()
    assert legend.isVisible() and len(legend.items) == 1
    chart.reset("next run")
    assert not legend.isVisible()


def test_sweep_chart_series_and_points(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = SweepChart("t", "throughput", is_rate=True)
    qtbot.addWidget(chart)
    chart.set_point("IPv4 · WPA2", SweepPoint(128, 40e6, 1e6))
    chart.set_point("IPv4 · WPA2", SweepPoint(1408, 45e6, 2e6))
    chart.set_point("IPv4 · WPA2", SweepPoint(128, 41e6, 1e6))  # replaces the point
    chart.set_point("IPv6 · WPA2", SweepPoint(128, 39e6, 1e6))
    chart.redraw()
    assert chart.series_names == ["IPv4 · WPA2", "IPv6 · WPA2"]
    assert chart.point_count("IPv4 · WPA2") == 2 and chart.point_count() == 3
    assert "Mbit/s" in chart.getPlotItem().getAxis("left").labelText
    assert summarize([1.0]).n == 1


@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="True is immortal from Python 3.12 on: its reference count no longer moves, so the "
    "PySide6 6.12.0 leak this guards against (a crash on 3.11) cannot be seen there",
)
def test_redraws_do_not_damage_reference_counts(qtbot) -> None:  # type: ignore[no-untyped-def]
    """PySide6 6.12.0 loses a reference to True on every pyqtgraph repaint, which crashes
    Python 3.11 within minutes of live charting; the pinned Qt binding must not."""
    chart = LiveChart()
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    chart.show()
    for _ in range(5):  # settle: earlier tests' garbage also holds references to True
        chart._draw()
        qtbot.wait(1)
    gc.collect()
    before = sys.getrefcount(True)
    for i in range(50):
        chart.add_sample(Sample(i, i + 1.0, Flow.UP, sent_bps=1e6 * (i + 1)))
        chart._draw()
        chart.resize(600 + i % 3, 400)
        qtbot.wait(1)
    gc.collect()
    # The broken binding lost about 13 per repaint (650 here); noise is a few dozen.
    assert sys.getrefcount(True) >= before - 100


def test_charts_redraw_only_while_shown_and_changing(qtbot) -> None:  # type: ignore[no-untyped-def]
    """An idle or hidden chart keeps no timer running on the GUI thread."""
    chart = SweepChart("t", "throughput", is_rate=True)
    qtbot.addWidget(chart)
    chart.show()
    qtbot.waitExposed(chart)
    qtbot.waitUntil(lambda: not chart._timer.isActive(), timeout=2000)  # nothing to draw
    chart.set_point("a", SweepPoint(1.0, 5e6, 1e5))
    assert chart._timer.isActive()
    qtbot.waitUntil(lambda: not chart._timer.isActive(), timeout=2000)  # drawn, idle again
    assert chart.point_count() == 1
    chart.hide()
    chart.set_point("a", SweepPoint(2.0, 6e6, 1e5))
    assert not chart._timer.isActive()  # hidden: drawn when shown again
    chart.show()
    assert chart._timer.isActive()


def test_the_x_axis_sits_around_the_values_and_never_below_zero() -> None:
    assert x_range([1408]) == (704.0, 2112.0)  # one value: half of it either side
    assert x_range([0]) == (0.0, 1.0)
    low, high = x_range([128, 1408])
    assert low == 64.0 and high == 1472.0  # 5 % beyond each end
    assert x_range([10, 1000])[0] == 0.0  # the padding stops at zero
    assert x_range([-4, 4]) == (-4.4, 4.4)  # values below zero keep their side


def test_a_one_point_sweep_has_sane_axes(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = SweepChart("t", "throughput", is_rate=True)
    qtbot.addWidget(chart)
    chart.resize(640, 400)
    chart.show()
    chart.set_point("TCP · IPv4", SweepPoint(128, 47e6, 2e6))
    chart.redraw()
    (x_low, x_high), (y_low, y_high) = chart.getPlotItem().vb.viewRange()
    assert 0 < x_low < 128 < x_high and y_low == 0 and y_high > 49
    legend = chart.legend
    assert legend.isVisible() and not legend.sceneBoundingRect().intersects(chart.plot_rect())
