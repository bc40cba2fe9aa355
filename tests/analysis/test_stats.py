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


def test_t_interval_factor_matches_scipy() -> None:
    # The CI of a point is computed without SciPy (see t_interval_factor); SciPy is the judge.
    from scipy import special

    from app.analysis.stats import t_interval_factor

    for df in [*range(1, 121), 199, 200, 201, 500, 999, 1000, 2000]:
        expected = float(special.stdtrit(df, 0.975))
        assert t_interval_factor(df) == pytest.approx(expected, rel=1e-12), df
    with pytest.raises(ValueError):
        t_interval_factor(0)


def test_summary_matches_numpy_and_scipy_over_random_data() -> None:
    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from scipy import stats

    finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)

    @settings(max_examples=200, deadline=None)
    @given(st.lists(finite, min_size=2, max_size=60))
    def check(values: list[float]) -> None:
        s = summarize(values)
        data = np.array(values)
        scale = max(1.0, float(np.max(np.abs(data))))
        assert s.mean == pytest.approx(float(np.mean(data)), abs=1e-12 * scale)
        assert s.median == pytest.approx(float(np.median(data)), abs=1e-12 * scale)
        std = float(np.std(data, ddof=1))
        assert s.std == pytest.approx(std, rel=1e-9, abs=1e-9 * scale)
        t = float(stats.t.ppf(0.975, len(values) - 1))
        assert s.ci95 == pytest.approx(t * std / math.sqrt(len(values)), rel=1e-9, abs=1e-9 * scale)
        assert (s.min, s.max) == (min(values), max(values))

    check()
