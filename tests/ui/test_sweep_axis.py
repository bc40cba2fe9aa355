"""The sweep chart's y axis fits what was measured: a 30 Mbit/s point under a 10 Gbit/s link
rate stated is read off an axis in Mbit/s, with the expected line left above the chart and
its legend saying how high it goes; an expected line near the points is drawn within."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.units import format_rate
from app.ui.common.charts import SweepChart, SweepPoint
from app.ui.common.sweep_axis import ABOVE_FACTOR, HEADROOM, sweep_axis


def test_a_rate_stated_far_above_the_path_leaves_the_points_readable(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = SweepChart("t", "throughput", is_rate=True)
    qtbot.addWidget(chart)
    chart.set_point("TCP · IPv4", SweepPoint(128, 25.1e6, 0.3e6))
    chart.set_point("TCP · IPv4", SweepPoint(1408, 29.7e6, 0.2e6))
    chart.set_expected("TCP · IPv4", [(128, 8.06e9), (1408, 9.41e9)])
    chart.redraw()
    item = chart.getPlotItem()
    assert item.getAxis("left").labelText == "throughput (Mbit/s)"
    assert item.viewRange()[1] == pytest.approx([0.0, 29.9 * HEADROOM])
    legend = [label.text for _, label in item.legend.items]
    assert legend == ["TCP · IPv4", "Expected (TCP · IPv4): up to 9.41 Gbit/s, above the chart"]
    assert chart.accessibleDescription() == "Curves: " + "; ".join(legend)
    # Near the points, the expected line is within the axis and named as it is.
    chart.set_expected("TCP · IPv4", [(128, 26e6), (1408, 31.6e6)])
    chart.redraw()
    assert item.viewRange()[1] == pytest.approx([0.0, 31.6 * HEADROOM])
    assert [label.text for _, label in item.legend.items][1] == "Expected (TCP · IPv4)"


rates = st.floats(min_value=0.0, max_value=1e12, allow_nan=False)


@given(
    st.lists(rates, max_size=6),
    st.dictionaries(
        st.sampled_from(["Expected (TCP · IPv4)", "Expected (UDP · IPv6)", "Expected (IPv4)"]),
        st.lists(rates, min_size=1, max_size=6),
        max_size=3,
    ),
)
def test_the_axis_fits_the_measured_and_says_what_it_leaves_above(
    measured: list[float], expected: dict[str, list[float]]
) -> None:
    axis = sweep_axis(measured, expected, is_rate=True)
    top = axis.top * axis.scale  # in bit/s
    peak = max(measured, default=0.0)
    assert all(0 <= m <= top for m in measured)  # every point on the chart
    if peak > 0:
        # The highest point takes at least a fifth of the height: never flat on the axis.
        assert peak / top >= 1 / (HEADROOM * ABOVE_FACTOR) - 1e-12
    above = dict(axis.above)
    for name, figures in expected.items():
        highest = max(figures)
        if name in above:
            # Left above only when far above every point, and said so with its highest.
            assert above[name] == highest > ABOVE_FACTOR * peak > 0
            assert highest > top
            assert axis.legend_name(name) == (
                f"{name}: up to {format_rate(highest)}, above the chart"
            )
        else:
            assert highest <= top and axis.legend_name(name) == name
    assert axis.unit.endswith("bit/s")
    if top > 0 and (peak > 0 or any(max(f) > 0 for f in expected.values())):
        # The unit is the one the highest figure drawn reads in: no "0.03 Gbit/s".
        drawn = max([peak, *(max(f) for n, f in expected.items() if n not in above)])
        assert 1 <= drawn / axis.scale < 1000 or axis.unit in ("bit/s", "Tbit/s")
