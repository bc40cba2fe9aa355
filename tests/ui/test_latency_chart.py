"""The live latency chart keeps the kernel's own RTT (iperf3's per-interval TCP RTT, where the
engine reports it) as a series of its own beside the probes'."""

from __future__ import annotations

from app.ui.common.latency_chart import LatencyChart


def test_the_kernels_rtt_is_a_second_series(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = LatencyChart()
    qtbot.addWidget(chart)
    chart.add_probes("idle", [-1.0, -0.5], [0.2, 0.3])
    chart.add_probes("loaded", [0.5, 1.0, 1.5], [40.0, None, 60.0])
    chart.add_probes("kernel", [1.0, 2.0], [35.0, 45.0])
    chart._draw()  # what the redraw timer does
    names = [label.text for _, label in chart.getPlotItem().legend.items]
    assert names == ["idle, before the run", "under load", "TCP's own RTT (kernel)"]
    title = chart.getPlotItem().titleLabel.text
    assert "idle median 0.25 ms" in title and "TCP's own median 40 ms" in title
    assert "loaded median 50 ms, 33.3 % lost" in title
