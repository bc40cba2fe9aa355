"""Responsiveness arithmetic: RPM, the draft's rating thresholds, the one-sided trimmed mean."""

from __future__ import annotations

import math

import pytest

from app.analysis.responsiveness import Rating, rating, responsiveness, rpm, trimmed_mean


def test_rpm_is_round_trips_per_minute() -> None:
    assert rpm(60.0) == pytest.approx(1000.0)
    assert rpm(10.0) == pytest.approx(6000.0)
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            rpm(bad)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, Rating.POOR),
        (299.9, Rating.POOR),
        (300.0, Rating.FAIR),
        (999.9, Rating.FAIR),
        (1000.0, Rating.GOOD),
        (6000.0, Rating.GOOD),
        (6000.1, Rating.EXCELLENT),
    ],
)
def test_rating_thresholds(value: float, expected: Rating) -> None:
    assert rating(value) is expected


def test_trimmed_mean_drops_only_the_slowest() -> None:
    values = [float(v) for v in range(1, 21)]  # 5 % of 20 is the one slowest value
    assert trimmed_mean(values) == pytest.approx(sum(range(1, 20)) / 19)
    # An outlier on the fast side stays in: it is what the link can do.
    assert trimmed_mean([0.1, *values[1:]]) < trimmed_mean(values)  # type: ignore[operator]
    assert trimmed_mean([]) is None
    assert trimmed_mean([5.0], 0.0) == 5.0
    with pytest.raises(ValueError):
        trimmed_mean(values, 1.0)


def test_responsiveness_of_working_round_trips() -> None:
    result = responsiveness([100.0] * 19 + [5000.0])  # the 5000 ms outlier is trimmed
    assert result is not None
    value, grade = result
    assert value == pytest.approx(600.0) and grade is Rating.FAIR
    assert responsiveness([]) is None
