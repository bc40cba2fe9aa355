"""A mean and its spread are printed to one precision over any figures: the spread to two
significant digits, the mean to the same decimal place, both rounded right, in one unit; and
every table that prints a mean beside its spread (the reports', the lab report's, the
window's results, the command line's points) prints it so. "3.20 ± 0.1000" no more."""

from __future__ import annotations

import math
import re
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from app.domain.precision import (
    ALIKE_DIGITS,
    ALONE_DIGITS,
    MEAN_DIGITS,
    SPREAD_DIGITS,
    fixed,
    mean_and_spread,
    places,
    precision,
)
from app.domain.units import DASH, MINUS
from app.report.html_parts import number

means = st.floats(-1e7, 1e7, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-7)
spreads = st.floats(1e-6, 1e7, allow_nan=False)
rates = st.floats(1.0, 1e12, allow_nan=False)


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def value(text: str) -> Decimal:
    return Decimal(text.replace(MINUS, "-").replace("+", ""))


def significant(text: str) -> int:
    """The significant digits a number is written with (its leading zeros not counted)."""
    return len(text.replace(MINUS, "").replace(".", "").lstrip("0"))


def pair(text: str) -> tuple[str, str]:
    mean, spread = text.split(" ± ")
    return mean, spread.split(" ")[0]


@given(means, spreads)
def test_the_mean_and_its_spread_share_one_precision(mean: float, spread: float) -> None:
    shown_mean, shown_spread = pair(mean_and_spread(mean, spread))
    # One decimal place for both: the reader sees how far the mean is known.
    assert decimals(shown_mean) == decimals(shown_spread)
    # Each rounded right: within half a unit of its last place.
    unit = Decimal(10) ** -decimals(shown_spread)
    assert abs(value(shown_mean) - Decimal(mean)) <= unit / 2 + Decimal("1e-9")
    assert abs(value(shown_spread) - Decimal(spread)) <= unit / 2 + Decimal("1e-9")
    # The spread to two significant digits, unless the mean's digits or the units stop it.
    if decimals(shown_spread) == places(spread, SPREAD_DIGITS) and decimals(shown_spread) > 0:
        assert significant(shown_spread) == SPREAD_DIGITS, shown_spread
    assert significant(shown_mean) <= max(MEAN_DIGITS, len(str(int(abs(mean))))) + 1
    assert not shown_mean.startswith(f"{MINUS}0") or value(shown_mean) != 0


@given(means)
def test_a_mean_without_a_spread_keeps_three_significant_digits(mean: float) -> None:
    shown, spread = pair(mean_and_spread(mean, None))
    assert spread == DASH
    assert decimals(shown) == places(mean, ALONE_DIGITS)


@given(means)
def test_runs_all_alike_keep_four_significant_digits(mean: float) -> None:
    """As found: an SD of exactly 0 showed "27.7 ± 0.0" beside another session's "27.7397 ±
    0.0006": runs that agree say more than one run, never less than four digits of it."""
    alike, zero = pair(mean_and_spread(mean, 0.0))
    # The zero to the mean's places, as any spread ("1.100 ± 0.000", not "± 0").
    assert decimals(alike) == places(mean, ALIKE_DIGITS) and zero == fixed(0.0, decimals(alike))
    assert significant(alike) >= ALIKE_DIGITS or decimals(alike) == 0 or value(alike) == 0


@given(
    means,
    st.one_of(
        st.just(0.0),
        st.floats(1e-300, 1e-9),  # float noise beside runs all alike
        st.floats(0.0, 1e15, allow_nan=False),
    ),
)
def test_any_spread_even_none_or_noise_has_the_means_decimals(mean: float, spread: float) -> None:
    """As found: an SD of float noise printed "1.60000 ± 0.00000" and an SD of 0 "1.10 ± 0".
    Both sides to the same places, each parsed back within its rounding, and a spread that
    would show as zero gives the mean the four digits of runs all alike."""
    shown_mean, shown_spread = pair(mean_and_spread(mean, spread))
    assert decimals(shown_mean) == decimals(shown_spread), (shown_mean, shown_spread)
    unit = Decimal(10) ** -decimals(shown_spread)
    assert abs(value(shown_mean) - Decimal(mean)) <= unit / 2 + Decimal("1e-9")
    assert abs(value(shown_spread) - Decimal(spread)) <= unit / 2 + Decimal("1e-9")
    if value(shown_spread) == 0:
        assert decimals(shown_mean) == places(mean, ALIKE_DIGITS), shown_mean


@given(rates, st.floats(0.001, 0.9))
def test_a_rate_and_its_spread_are_in_the_means_unit(mean: float, share: float) -> None:
    text = mean_and_spread(mean, mean * share, rate=True)
    found = re.fullmatch(r"(\S+) ± (\S+) (\S+)", text)
    assert found, text
    shown_mean, shown_spread, unit = found.groups()
    assert unit.endswith("bit/s") and decimals(shown_mean) == decimals(shown_spread)
    chosen = precision(mean, mean * share, rate=True)
    assert (chosen.unit == unit and abs(value(shown_mean)) < 1000) or unit == "Tbit/s"


@given(st.floats(1e-6, 1e6, allow_nan=False))
def test_a_figure_alone_keeps_three_significant_digits_after_rounding(figure: float) -> None:
    shown = number(figure, 1.0)
    assert significant(shown) <= ALONE_DIGITS or decimals(shown) == 0, shown
    assert abs(value(shown) - Decimal(figure)) <= Decimal(10) ** -decimals(shown) / 2 + Decimal(
        "1e-12"
    )


def test_the_seams_the_issue_met() -> None:
    assert mean_and_spread(3.2, 0.09999) == "3.20 ± 0.10"
    assert number(0.09999, 1.0) == "0.100"  # not "0.1000"
    assert mean_and_spread(402e6, 93.7e6, rate=True) == "402 ± 94 Mbit/s"
    assert mean_and_spread(0.0113, 0.00757) == "0.0113 ± 0.0076"
    assert mean_and_spread(-0.004, 0.3) == "0.00 ± 0.30"  # never "−0.00"
    assert mean_and_spread(1.6, 2.4e-16) == "1.600 ± 0.000"  # not "1.60000 ± 0.00000"
    assert mean_and_spread(1.1, 0.0) == "1.100 ± 0.000"  # not "1.10 ± 0"
    assert mean_and_spread(941.2e6, 0.0, rate=True) == "941.2 ± 0.0 Mbit/s"
    assert mean_and_spread(27.739e6, 0.0, rate=True) == "27.74 ± 0.00 Mbit/s"  # not 27.7 ± 0.0
    assert math.isclose(float(pair(mean_and_spread(2.0e9, 3.54e8, rate=True))[1]), 0.35)
