"""Turning engine-printed values into measurements: unknown, negative or non-finite is None."""

from __future__ import annotations

import math

_BYTE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_BIT_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


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
