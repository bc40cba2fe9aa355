"""Turning engine-printed values into measurements.

`measured` reads what a text format printed (unknown, negative or non-finite is None). `figure`
reads a value where an engine states a figure, and refuses what is no number: a number written
as text ("12") reads as that number, as every text format writes them; true, "Infinity", NaN,
a list or a negative rate or count fails the run (ImpossibleValue) rather than leaving the
figure empty in a run counted as good. Where an engine writes a negative number to mean
"unknown" (netperf's -1, iperf3's interval loss count when datagrams come out of order), the
caller says so and it reads as unknown.
"""

from __future__ import annotations

import json
import math
import re

from app.engine.errors import ImpossibleValue

_BYTE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_BIT_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
#: A decimal number as engines write one; no "inf", "nan", "0x10" or "1_0".
DECIMAL = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_LARGEST_COUNT = 2**63


def figure(
    value: object, engine: str, what: str, *, negative_unknown: bool = False
) -> float | None:
    """A figure the engine stated: a finite number (or a decimal written as text); None when it
    is absent (None, or empty text). Anything else raises ImpossibleValue naming `what`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            number = math.inf
    elif isinstance(value, str) and DECIMAL.match(value.strip()):
        number = float(value.strip())
    if number is None or math.isnan(number) or math.isinf(number):
        raise ImpossibleValue(engine, what, _shown(value))
    if number < 0:
        if negative_unknown:
            return None
        raise ImpossibleValue(engine, what, _shown(value))
    return number


def figure_int(
    value: object, engine: str, what: str, *, negative_unknown: bool = False
) -> int | None:
    """A count the engine stated (see figure); one beyond 2**63 is refused."""
    number = figure(value, engine, what, negative_unknown=negative_unknown)
    if number is None:
        return None
    if negative_unknown and _LARGEST_COUNT <= number <= 2**64:
        # A negative count written as an unsigned one: iperf3 3.12's server states a
        # reordered interval's -1 lost datagrams as 1.8446744073709552e+19 in its JSON.
        return None
    if number > _LARGEST_COUNT:
        raise ImpossibleValue(engine, what, _shown(value))
    return round(number)


def _shown(value: object) -> str:
    """The value as the engine wrote it (JSON spelling), short enough for a sentence."""
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:39]}…"


def measured(value: object) -> float | None:
    """A finite, non-negative number, or None (engines print -1 or omit what they do not know)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number


def measured_int(value: object) -> int | None:
    number = measured(value)
    if number is None or number > 2**63:
        return None
    return round(number)


def scaled_bytes(amount: str, unit: str) -> int | None:
    """'2.85', 'GBytes' -> bytes (iperf3 prints transfer sizes in powers of 1024)."""
    number = measured(amount)
    prefix = unit[:-5] if unit.endswith("Bytes") else None
    if number is None or prefix is None or prefix.upper() not in _BYTE_UNITS:
        return None
    return measured_int(number * _BYTE_UNITS[prefix.upper()])


def scaled_bits(amount: str, unit: str) -> float | None:
    """'24.5', 'Gbits/sec' -> bit/s (rates are in powers of 1000)."""
    number = measured(amount)
    prefix = unit[: -len("bits/sec")] if unit.endswith("bits/sec") else None
    if number is None or prefix is None or prefix.upper() not in _BIT_UNITS:
        return None
    return measured(number * _BIT_UNITS[prefix.upper()])
