"""What a growing curve hands to pyqtgraph: at most a fixed number of points however many it
holds, the lowest and the highest of each stretch of consecutive points (so that every peak a
line through all of them would reach is still drawn), breaks (NaN) kept where they are.

pyqtgraph's own automatic downsampling starts only past five points a pixel, so a chart of a
few thousand points drew every one of them (and its symbol) on each redraw: the cost of a
redraw grew with the run. Bounded here, it does not."""

from __future__ import annotations

import math

import numpy as np

#: At least this many points are drawn of a curve (a narrow chart still shows its shape).
FEWEST_DRAWN = 200


def budget(width_px: float) -> int:
    """How many points a curve across width_px pixels is drawn with: about one a pixel."""
    return max(FEWEST_DRAWN, int(width_px))


def _peaks(v: np.ndarray, most: int) -> np.ndarray:
    """The indices of the lowest and highest of each stretch of values, in order."""
    n = len(v)
    if n <= most:
        return np.arange(n)
    per = math.ceil(n / max(1, most // 2))
    whole = n - n % per
    stretches = v[:whole].reshape(-1, per)
    starts = np.arange(0, whole, per)
    kept = [starts + np.argmin(stretches, axis=1), starts + np.argmax(stretches, axis=1)]
    if whole < n:  # the last, shorter stretch
        rest = v[whole:]
        kept.append(whole + np.array([np.argmin(rest), np.argmax(rest)]))
    # Sorted, and once each: a flat stretch has its lowest and highest at one point.
    return np.unique(np.concatenate(kept))


def decimated(t: np.ndarray, v: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """At most about `most` of the points (t, v), in order: all of them when there are no more;
    else the lowest and highest of each stretch. A NaN in v (a break in the line) stays, and
    each stretch between breaks gets its share of the points."""
    n = len(v)
    if n <= most:
        return t, v
    breaks = np.flatnonzero(np.isnan(v))
    if not len(breaks):
        kept = _peaks(v, most)
        return t[kept], v[kept]
    pieces_t, pieces_v = [], []
    begin = 0
    for end in [*breaks.tolist(), n]:
        if end > begin:
            share = max(2, most * (end - begin) // n)
            kept = begin + _peaks(v[begin:end], share)
            pieces_t.append(t[kept])
            pieces_v.append(v[kept])
        if end < n:
            pieces_t.append(t[end : end + 1])
            pieces_v.append(v[end : end + 1])
        begin = end + 1
    return np.concatenate(pieces_t), np.concatenate(pieces_v)
