"""Gentle retries: exponential backoff with full jitter, under a cap."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.study.sweep.outcomes import RetryPolicy


def test_ceiling_doubles_up_to_the_cap() -> None:
    policy = RetryPolicy(first_wait_s=1.0, max_wait_s=8.0)
    assert [policy.ceiling(a) for a in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert policy.ceiling(10**9) == 8.0  # no overflow, however many attempts


@given(
    st.integers(min_value=1, max_value=10**6),
    st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
    st.floats(min_value=0.0, max_value=60.0),
    st.floats(min_value=0.0, max_value=600.0),
)
def test_wait_lies_between_zero_and_the_ceiling(
    attempt: int, draw: float, first: float, cap: float
) -> None:
    policy = RetryPolicy(first_wait_s=first, max_wait_s=cap)
    wait = policy.wait(attempt, lambda: draw)
    assert 0.0 <= wait <= policy.ceiling(attempt) <= cap


def test_full_jitter_spreads_over_the_whole_range() -> None:
    """Not a fixed share of the ceiling: waits cover 0 up to it, evenly."""
    policy = RetryPolicy(first_wait_s=1.0, max_wait_s=8.0)
    rng = random.Random(20261123)
    waits = [policy.wait(3, rng.random) for _ in range(4000)]
    assert all(0.0 <= w < 4.0 for w in waits)
    assert min(waits) < 0.05 and max(waits) > 3.95
    assert statistics.fmean(waits) == pytest.approx(2.0, abs=0.1)
    quarters = [sum(1 for w in waits if q <= w < q + 1) / len(waits) for q in range(4)]
    assert all(0.22 < share < 0.28 for share in quarters)


def test_waits_differ_between_clients() -> None:
    policy = RetryPolicy()
    assert len({policy.wait(2) for _ in range(20)}) > 1
