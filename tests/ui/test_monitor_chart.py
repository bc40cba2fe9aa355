"""The monitor's chart on hours of points: the whole history as each stretch's mean with its
lowest to highest shaded, and a time axis labelled on whole hours. (The window's monitor against
a real iperf3 is tests/ui/test_monitor.py.)"""

from __future__ import annotations

from app.analysis.monitor_trace import MonitorTraces
from app.domain.net import Flow, Protocol
from app.domain.results import Sample
from app.ui.monitor.chart import MonitorChart


def test_the_whole_history_is_shaded_from_lowest_to_highest_on_an_axis_of_hours(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = MonitorChart()
    qtbot.addWidget(chart)
    chart.resize(700, 500)
    chart.show()
    traces = MonitorTraces(Protocol.TCP)
    chart.start(traces, "#0072B2", latency=False)
    for second in range(1, 5 * 3600):  # five hours, 40 to 60 Mbit/s
        bps = 40e6 + (second * 7919 % 100) * 2e5
        traces.add_sample(0.0, Sample(second - 1, second, Flow.UP, received_bps=bps))
    chart.set_window(None)
    chart.redraw()
    curve = chart.throughput.curves["upload (received)"]
    assert curve.band.isVisible() and not curve.band.path().isEmpty()
    band = curve.band.path().boundingRect()
    assert band.top() < 41 and band.bottom() > 59  # Mbit/s: the lowest and highest shaded
    assert 0 < curve.count <= 2048  # the buckets drawn, not 18,000 points
    axis = chart.throughput.getPlotItem().getAxis("bottom")
    (major, _offset), _minor = axis.tickSpacing(0, 5 * 3600, 700)
    assert major % 3600 == 0  # hours: 1:00:00, 2:00:00 …
    assert axis.tickStrings([3600.0, 7200.0], 1.0, major) == ["1:00:00", "2:00:00"]
