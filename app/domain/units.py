"""Human-readable numbers: bit rates that scale from bit/s to Gbit/s, sizes in bytes."""

from __future__ import annotations

import math

_RATE_UNITS = (("Tbit/s", 1e12), ("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3))


def format_rate(bps: float | None, digits: int = 3) -> str:
    """24_500_000_000 -> '24.5 Gbit/s'; None or NaN -> '—'.

    Total: any value, stored or read back, formats without raising (inf -> '∞ bit/s').
    """
    if bps is None:
        return "—"
    try:
        bps = float(bps)
    except OverflowError:  # an integer beyond any float
        bps = math.inf if bps > 0 else -math.inf
    if math.isnan(bps):
        return "—"
    if math.isinf(bps):
        return f"{'−' if bps < 0 else ''}∞ bit/s"
    units = (*_RATE_UNITS, ("bit/s", 1.0))
    for index, (unit, scale) in enumerate(units):
        if abs(bps) >= scale or index == len(units) - 1:
            shown = _significant(bps / scale, digits)
            if index and abs(float(shown)) >= 1000:  # rounded up into the next unit
                bigger, larger = units[index - 1]
                return f"{_significant(bps / larger, digits)} {bigger}"
            return f"{shown} {unit}"
    raise AssertionError("unreachable")


def format_rate_as(bps: float, like_bps: float) -> str:
    """bps in the unit and to the decimals format_rate shows like_bps in, so that the two
    read side by side: 930 kbit/s beside "1.00 Mbit/s" reads "0.93 Mbit/s"."""
    number, _, unit = format_rate(like_bps).partition(" ")
    scale = dict((*_RATE_UNITS, ("bit/s", 1.0))).get(unit, 1.0)
    return f"{bps / scale:.{len(number.partition('.')[2])}f} {unit}"


def format_received(received_bps: float | None, sent_bps: float | None) -> str:
    """What the receiver got; while only the sender's rate is known (an upload's interval
    before the run ends), that rate marked as sent: '6.2 Gbit/s sent'."""
    if received_bps is not None:
        return format_rate(received_bps)
    return f"{format_rate(sent_bps)} sent"


def plain_rate(bps: float) -> str:
    """A rate as a person states it, without trailing zeros: '1 Gbit/s', '144.4 Mbit/s'."""
    number, _, unit = format_rate(bps, 4).partition(" ")
    if "." in number and number[-1:].isdigit():
        number = number.rstrip("0").rstrip(".")
    return f"{number} {unit}"


def rate_unit(max_bps: float) -> tuple[str, float]:
    """The unit and divisor that suit values up to max_bps (for chart axes and tables)."""
    finite = isinstance(max_bps, int) or math.isfinite(max_bps)
    for unit, scale in _RATE_UNITS:
        if finite and abs(max_bps) >= scale:
            return unit, scale
    return "bit/s", 1.0


def _significant(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1e9:  # only absurd rates get here (above 1000 Tbit/s): keep them short
        return f"{value:.{max(1, digits)}g}"
    whole = len(str(int(abs(value)))) if abs(value) >= 1 else 1
    decimals = max(0, digits - whole)
    if len(str(int(abs(round(value, decimals))))) > whole:  # 99.96 rounds to 100: "100"
        decimals = max(0, decimals - 1)
    return f"{value:.{decimals}f}"


def percent_text(value: float, decimals: int = 0) -> str:
    """A share in per cent as a sentence or a table shows it: with decimals, but never read as
    nothing. Below 1 it keeps a decimal at least, and as many as its first significant digit
    needs (0.3, 0.04): 0.3 % is not 0 %. Without the sign; '—' for NaN."""
    if value != value:
        return DASH
    magnitude = abs(value)
    if magnitude == 0:
        return f"{0:.{decimals}f}"
    if magnitude < 1 and math.isfinite(magnitude):
        first = -math.floor(math.log10(magnitude))  # 0.3 -> 1, 0.04 -> 2
        decimals = max(decimals, 1, first)
        # Rounding may carry into the next digit (0.096 -> 0.10): one decimal fewer then.
        if decimals > 1 and round(magnitude, decimals) >= 10 ** -(decimals - 1):
            decimals -= 1
    return f"{magnitude:.{decimals}f}"


def relative_text(pct: float | None) -> str:
    """A relative difference in per cent as the tables show it: one decimal, with its sign
    ('+6.7', '−12.0'), and below 1 as percent_text keeps it, never read as nothing
    ('−0.01', not '-0.0'); exactly nothing without a sign ('0.0'); '—' for none."""
    if pct is None or pct != pct:
        return DASH
    shown = percent_text(pct, 1)
    return shown if pct == 0 else signed(shown, pct < 0, plus=True)


def parse_rate(text: str) -> int:
    """'100M' -> 100_000_000, '1.5G' -> 1_500_000_000, '0' -> 0 (iperf3's K/M/G are 1000s)."""
    cleaned = text.strip().lower().removesuffix("bit/s").removesuffix("bps").strip()
    scale = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}.get(cleaned[-1:], 1.0)
    number = cleaned[:-1] if scale != 1.0 else cleaned
    value = float(number)
    if value < 0 or value != value:
        raise ValueError(text)
    return round(value * scale)


def parse_size(text: str) -> int:
    """'64K' -> 65536, '2M' -> 2097152, '1408' -> 1408 (sizes are powers of 1024)."""
    cleaned = text.strip().upper().removesuffix("B")
    scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(cleaned[-1:], 1)
    number = cleaned[:-1] if scale != 1 else cleaned
    value = float(number)
    if value < 0 or value != value:
        raise ValueError(text)
    return round(value * scale)


MINUS = "−"  # U+2212: a minus sign, not a hyphen, wherever a number is shown
DASH = "—"  # nothing measured


def format_p(p: float | None) -> str:
    """A p-value as every view shows it: '< 0.001', '0.047', '—'."""
    if p is None or p != p:
        return DASH
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def signed(text: str, negative: bool, *, plus: bool = False) -> str:
    """A shown magnitude with its sign: the minus sign, or '+' when asked for."""
    return f"{MINUS}{text}" if negative else (f"+{text}" if plus else text)


def counted(n: int, word: str, plural: str | None = None, *, grouped: bool = True) -> str:
    """ "1 session", "2 sessions", "0 runs", "1,920 runs": the noun agreeing with its number
    (every count of runs, points or sessions a sentence writes is written by this).
    `grouped=False` writes the digits as a user types them ("65507 bytes")."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else plural or word + 's'}"
