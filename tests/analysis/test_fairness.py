"""Jain's fairness index, against its definition and its known values (R. Jain, D. Chiu,
W. Hawe, DEC-TR-301): 1 for an even share, 1/n when one of n takes everything, the same for
any unit, and k/n when k of n share evenly and the rest get nothing."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.analysis.fairness import jain_index, least_index, shares

#: Throughputs in bit/s: nothing, or a thousandth of a bit/s up to 100 Gbit/s.
rate = st.one_of(st.just(0.0), st.floats(min_value=1e-3, max_value=1e11))
rates = st.lists(rate, min_size=1, max_size=40)


@given(rates)
def test_the_index_is_between_one_over_n_and_one(values: list[float]) -> None:
    index = jain_index(values)
    if not any(values):
        assert index is None  # nothing was shared
        return
    assert index is not None
    assert least_index(len(values)) - 1e-12 <= index <= 1.0
    assert index == pytest.approx(
        math.fsum(values) ** 2 / (len(values) * math.fsum(v * v for v in values))
    )
    assert jain_index([5e-324, 5e-324]) == 1.0  # below any rate, the index still holds


@given(rates, st.floats(min_value=1e-3, max_value=1e3))
def test_the_index_does_not_depend_on_the_unit(values: list[float], factor: float) -> None:
    index = jain_index(values)
    scaled = jain_index([v * factor for v in values])
    if index is None:
        assert scaled is None or not any(values)
    else:
        assert scaled == pytest.approx(index, rel=1e-9)


@given(st.integers(1, 50), st.integers(0, 50), st.floats(min_value=1, max_value=1e10))
def test_k_of_n_sharing_evenly_give_k_over_n(k: int, rest: int, rate: float) -> None:
    values = [rate] * k + [0.0] * rest
    assert jain_index(values) == pytest.approx(k / (k + rest))


def test_what_is_not_a_throughput_has_no_index() -> None:
    assert jain_index([]) is None
    assert jain_index([1.0, -1.0]) is None
    assert jain_index([1.0, math.nan]) is None
    assert shares([0.0, 0.0]) == [0.0, 0.0]
    assert shares([1.0, 3.0]) == [0.25, 0.75]
