"""A mean shown with its spread (a standard deviation, a confidence interval's half-width) to
one precision: the spread to two significant digits, the mean, its range and its interval to
the same decimal place, in one unit. "3.20 ± 0.10", "402 ± 94 Mbit/s", "0.0113 ± 0.0076":
digits finer than the spread are run-to-run noise, and a mean to two decimals beside a spread
to four ("3.20 ± 0.1000") says the numbers are more or less certain than they are. Exports
meant as data (CSV, JSON) keep every digit; this is for what a person reads."""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.domain.units import DASH, MINUS, rate_unit

#: A spread is shown to this many significant digits.
SPREAD_DIGITS = 2
#: A figure without a spread (a single run) to this many.
ALONE_DIGITS = 3
#: Runs all alike (a spread of 0, or one too small to show beside the mean's digits) say more
#: than a single run does: their mean to this many, so that an SD of exactly 0 does not read
#: coarser than a tiny one ("27.74 ± 0.00" beside "27.7397 ± 0.0006", not "27.7 ± 0.0").
ALIKE_DIGITS = 4
#: A mean keeps at most this many significant digits, however small its spread.
MEAN_DIGITS = 6


def places(value: float, digits: int) -> int:
    """The decimal places that show value to `digits` significant digits once rounded
    (0.09996 to two digits is 0.10: two places, not three); never fewer than none (a whole
    number keeps its units: 5340, not 5300)."""
    if value == 0 or not math.isfinite(value):
        return 0
    exponent = math.floor(math.log10(abs(value)))
    found = digits - 1 - exponent
    if abs(round(value, found)) >= 10.0 ** (exponent + 1):  # the rounding carried a digit
        found -= 1
    return max(0, found)


def fixed(value: float, decimals: int, *, plus: bool = False) -> str:
    """value to that many decimal places, with the minus sign (never "−0.00")."""
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0:
        return text
    if value < 0:
        return f"{MINUS}{text}"
    return f"+{text}" if plus else text


@dataclass(frozen=True)
class Precision:
    """How the figures of one mean are shown: divided by scale, to `decimals` places, then
    the unit (when asked for)."""

    decimals: int
    scale: float = 1.0
    unit: str = ""

    def number(self, value: float | None, *, plus: bool = False) -> str:
        """The figure in this precision, without the unit; '—' for none."""
        if value is None or not math.isfinite(value):
            return DASH
        return fixed(value / self.scale, self.decimals, plus=plus)

    def text(self, value: float | None, *, plus: bool = False) -> str:
        """The figure in this precision, with the unit: '0.35 Gbit/s'."""
        shown = self.number(value, plus=plus)
        return f"{shown} {self.unit}" if self.unit and shown != DASH else shown

    def with_spread(self, mean: float | None, spread: float | None) -> str:
        """'3.20 ± 0.10', '2.00 ± 0.35 Gbit/s' (the unit once); '1.600 ± 0.000' for runs all
        alike (the zero to the mean's places, as any spread), '± —' without a spread (a
        single run)."""
        if mean is None or not math.isfinite(mean):
            return DASH
        text = f"{self.number(mean)} ± {self.number(spread)}"
        return f"{text} {self.unit}" if self.unit else text


def precision(
    mean: float | None, spread: float | None, *, scale: float = 1.0, rate: bool = False
) -> Precision:
    """The precision of a mean and its spread, both in the same unit: divided by scale (a
    table's unit), or for a rate in the unit that suits the mean. Without a spread (a single
    run) the mean's own three significant digits; with none (runs all alike) or one too small
    to show beside the mean's digits, four."""
    unit = ""
    if rate:
        unit, scale = rate_unit(abs(mean) if mean else abs(spread or 0.0))
    found = _precision(mean, spread, scale, unit)
    if rate and mean and abs(float(found.number(mean))) >= 1000 and unit != "Tbit/s":
        # Rounded up into the next unit: 999.7 Mbit/s shown as 1.00 Gbit/s, not 1000.
        found = _precision(mean, spread, *_larger(unit, scale))
    return found


def _larger(unit: str, scale: float) -> tuple[float, str]:
    bigger, larger = rate_unit(scale * 1000)
    return larger, bigger


def _precision(mean: float | None, spread: float | None, scale: float, unit: str) -> Precision:
    shown = None if mean is None or not math.isfinite(mean) else mean / scale
    if spread is None or not math.isfinite(spread):
        return Precision(places(shown or 0.0, ALONE_DIGITS), scale, unit)
    alike = Precision(places(shown or 0.0, ALIKE_DIGITS), scale, unit)
    if spread == 0:
        return alike
    decimals = places(spread / scale, SPREAD_DIGITS)
    if shown:
        decimals = min(decimals, max(places(shown, MEAN_DIGITS), 0))
    if float(fixed(spread / scale, decimals)) == 0:
        # Runs alike but for float noise (an SD of 1e-15): "1.600 ± 0.000", as runs all
        # alike, not the mean to its sixth digit beside a row of zeros ("1.60000 ± 0.00000").
        return alike
    return Precision(decimals, scale, unit)


def mean_and_spread(
    mean: float | None, spread: float | None, *, scale: float = 1.0, rate: bool = False
) -> str:
    """A mean and its spread in one precision: '3.20 ± 0.10', '402 ± 94 Mbit/s'."""
    return precision(mean, spread, scale=scale, rate=rate).with_spread(mean, spread)
