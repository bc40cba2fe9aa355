"""Formatting is total: any stored value, however absurd, formats without raising."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.units import format_rate, format_received, parse_rate, parse_size, rate_unit


@given(st.one_of(st.none(), st.floats(), st.integers(-(10**400), 10**400)), st.integers(0, 30))
def test_format_rate_takes_anything(value: float | None, digits: int) -> None:
    text = format_rate(value, digits)
    assert isinstance(text, str) and text


@given(st.one_of(st.floats(), st.integers(-(10**400), 10**400)))
def test_rate_unit_takes_any_number(value: float) -> None:
    unit, scale = rate_unit(value)
    assert unit.endswith("bit/s") and scale >= 1


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "—"),
        (math.nan, "—"),
        (math.inf, "∞ bit/s"),
        (-math.inf, "−∞ bit/s"),
        (1e308, "1e+296 Tbit/s"),
        (-5.0, "-5.00 bit/s"),
        (0.0, "0 bit/s"),
        (24.5e9, "24.5 Gbit/s"),
        (1234e12, "1234 Tbit/s"),
    ],
)
def test_format_rate_edges(value: float | None, text: str) -> None:
    assert format_rate(value) == text


def test_rate_unit_of_non_finite_is_plain() -> None:
    assert rate_unit(math.nan) == ("bit/s", 1.0)
    assert rate_unit(math.inf) == ("bit/s", 1.0)


def test_parsers_still_refuse_nonsense() -> None:
    for bad in ("nan", "-1", "x"):
        with pytest.raises(ValueError):
            parse_rate(bad)
        with pytest.raises(ValueError):
            parse_size(bad)


def test_format_received_marks_the_senders_rate_as_sent() -> None:
    assert format_received(1.84e9, 6.2e9) == format_rate(1.84e9)
    assert format_received(None, 6.2e9) == f"{format_rate(6.2e9)} sent"
    assert format_received(None, None) == f"{format_rate(None)} sent"
