"""The sweep chart's y axis, worked out without Qt: it fits what was measured, so that the
points stay readable, and takes in each expected goodput near them; one far above them (a
link rate that is probably not the path's bottleneck, as the findings say) is left above
the chart, and its legend says so with its highest figure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.analysis.expected_findings import SMALL_SHARE_PCT
from app.domain.units import format_rate, rate_unit

#: The room above the highest figure drawn.
HEADROOM = 1.15
#: An expected curve more than this many times the highest measured figure is left above
#: the chart: under it the measured points would lie flat on the axis. It is where the
#: findings doubt the link rate (measured below SMALL_SHARE_PCT % of the expected goodput).
ABOVE_FACTOR = 100.0 / SMALL_SHARE_PCT


@dataclass(frozen=True)
class SweepAxis:
    """The y axis as drawn: its top and the divisor of the figures (1e6 for Mbit/s), both in
    the figures' own unit, and the expected curves left above it with their highest."""

    top: float  # the axis's top, in shown units (figure / scale)
    unit: str  # "Mbit/s", "Gbit/s", …; "" for a figure that is no rate
    scale: float
    above: tuple[tuple[str, float], ...] = ()

    def legend_name(self, name: str) -> str:
        """An expected curve's name in the legend: itself, or, left above the chart, with
        how high it goes ('Expected (TCP · IPv4): up to 9.41 Gbit/s, above the chart')."""
        for above, highest in self.above:
            if above == name:
                return f"{name}: up to {format_rate(highest)}, above the chart"
        return name


def sweep_axis(
    measured: Iterable[float], expected: Mapping[str, Sequence[float]], *, is_rate: bool
) -> SweepAxis:
    """measured: the top of each point drawn (its mean plus its spread); expected: each
    expected curve's figures by name. The axis reads from zero to a little above the
    highest of them it takes in (0 to 1 with nothing above zero)."""
    peak = max(measured, default=0.0)
    fitted, above = peak, []
    for name, figures in expected.items():
        highest = max(figures, default=0.0)
        if peak > 0 and highest > ABOVE_FACTOR * peak:
            above.append((name, highest))
        else:
            fitted = max(fitted, highest)
    unit, scale = ("", 1.0)
    if is_rate:
        unit, scale = rate_unit(fitted) if fitted > 0 else ("Mbit/s", 1e6)
    top = (fitted / scale) * HEADROOM if fitted > 0 else 1.0
    return SweepAxis(top, unit, scale, tuple(above))
