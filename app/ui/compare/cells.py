"""The difference table's cells in the findings' own words: signed differences, those of
percentages in percentage points, and the interval of each difference."""

from __future__ import annotations

from app.analysis.compare import PERCENT_METRICS, ComparedPoint, format_value, level_text
from app.domain.units import DASH, signed


def difference_cell(metric: str, value: float | None) -> str:
    """A difference as the findings say it: signed ("+707 kbit/s", "−2.3 pp"), differences of
    percentages in percentage points."""
    if value is None:
        return DASH
    if metric in PERCENT_METRICS:
        return signed(f"{abs(value):.3g} pp", value < 0, plus=value > 0)
    return signed(format_value(metric, value), value < 0, plus=value > 0)


def interval_text(metric: str, point: ComparedPoint) -> str:
    """The interval of the difference in the difference's own words, its unit said once
    where both ends share it, as the findings say it ('+1.47 … +6.68 Gbit/s (98.3 %)',
    '−900 kbit/s … +1.20 Mbit/s (95 %)'); '—' when the point cannot be tested."""
    if point.ci_low is None or point.ci_high is None or point.ci_level is None:
        return DASH
    low, high = difference_cell(metric, point.ci_low), difference_cell(metric, point.ci_high)
    low_amount, _, low_unit = low.rpartition(" ")
    if low_amount and low_unit == high.rpartition(" ")[2]:
        low = low_amount
    return f"{low} … {high} ({level_text(point.ci_level)})"
