"""Statistics against hand-checked values."""

from __future__ import annotations

import math

import pytest

from app.analysis.stats import precise_enough, summarize


def test_hand_checked_three_values() -> None:
    # mean 12, sample std sqrt(((-2)^2 + 0 + 2^2) / 2) = 2, t(0.975, 2) = 4.302653,
    # CI half-width 4.302653 * 2 / sqrt(3) = 4.96827.
    s = summarize([10, 12, 14])
    assert (s.n, s.mean, s.std, s.min, s.max, s.median) == (3, 12.0, 2.0, 10.0, 14.0, 12.0)
    assert s.ci95 == pytest.approx(4.96827, abs=1e-5)
    assert s.cv == pytest.approx(2 / 12)
    assert s.ci_low == pytest.approx(12 - 4.96827, abs=1e-5)


def test_hand_checked_paper_like_values() -> None:
    # Five throughput runs in Mbit/s; std by hand: deviations -0.4, 0.1, 0.6, -0.2, -0.1,
    # squares sum 0.58, /4 = 0.145, sqrt = 0.380789; t(0.975, 4) = 2.776445.
    s = summarize([45.2, 45.7, 46.2, 45.4, 45.5])
    assert s.mean == pytest.approx(45.6)
    assert s.std == pytest.approx(0.380789, abs=1e-6)
    assert s.ci95 == pytest.approx(2.776445 * 0.380789 / math.sqrt(5), abs=1e-6)
    assert s.median == pytest.approx(45.5)


def test_missing_values_are_left_out() -> None:
    s = summarize([None, 5.0, float("nan"), 7.0])
    assert s.n == 2 and s.mean == 6.0


def test_one_and_no_values() -> None:
    one = summarize([3.0])
    assert (one.n, one.mean, one.std, one.ci95, one.cv) == (1, 3.0, None, None, None)
    none = summarize([])
    assert none.n == 0 and none.mean is None


def test_early_stop_rule() -> None:
    tight = summarize([100.0, 100.5, 99.5, 100.2, 99.8])
    assert precise_enough(tight, 0.05, 5)
    assert not precise_enough(tight, 0.05, 6)  # not enough runs yet
    loose = summarize([50.0, 150.0, 100.0, 60.0, 140.0])
    assert not precise_enough(loose, 0.05, 5)
