"""How evenly a link was shared: Jain's fairness index (Σx)² / (n·Σx²) of the stations'
throughputs, 1 for an even share and 1/n when one station took everything (R. Jain, D. Chiu,
W. Hawe, DEC-TR-301, 1984); each station's share of the total."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["jain_index", "least_index", "shares"]


def jain_index(values: Sequence[float]) -> float | None:
    """Jain's index of the values; None when there are none or all are zero (nothing was
    shared)."""
    data = [float(v) for v in values]
    if not data or any(not math.isfinite(v) or v < 0 for v in data):
        return None
    largest = max(data)
    if largest == 0:
        return None
    data = [v / largest for v in data]  # the index has no unit: this keeps squares in range
    squares = math.fsum(v * v for v in data)
    total = math.fsum(data)
    # Rounding can leave an even share a hair above 1.
    return min(1.0, total * total / (len(data) * squares))


def least_index(n: int) -> float:
    """The index when one of n stations took everything: 1/n."""
    return 1.0 / n


def shares(values: Sequence[float]) -> list[float]:
    """Each value's fraction of their sum (0 each when the sum is 0)."""
    total = math.fsum(values)
    return [v / total if total > 0 else 0.0 for v in values]
