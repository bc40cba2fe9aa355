"""One curve over time in bounded memory, however long it runs: its latest points at full
resolution (an hour at 0.1 s intervals, ten at 1 s) and its whole history in a fixed number of
buckets (lowest, highest and mean of the points in each), whose span doubles whenever the
history outgrows them; its latest points can be held provisionally and taken back. Times are
seconds since the curve's start."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RECENT_POINTS = 36_000
HISTORY_BUCKETS = 2048
FIRST_SPAN_S = 1.0


class Ring:
    """The last `size` (time, value) points, oldest first."""

    def __init__(self, size: int = RECENT_POINTS) -> None:
        self.size = size
        # Filled, not zeros: the memory is taken at the start rather than page by page as the
        # ring fills (np.zeros leaves untouched pages to the operating system).
        self._t = np.full(size, 0.0)
        self._v = np.full(size, 0.0)
        self._next = 0
        self.count = 0  # points held (at most size)
        self.total = 0  # points ever added

    def add(self, t: float, value: float) -> None:
        self._t[self._next] = t
        self._v[self._next] = value
        self._next = (self._next + 1) % self.size
        self.count = min(self.count + 1, self.size)
        self.total += 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.since(-np.inf)

    def since(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """The points from time t on, oldest first: copies of those only (a window of minutes
        out of hours costs its own points, not the whole ring's)."""
        if self.count < self.size:
            parts = [(0, self.count)]
        else:  # wrapped: the older part from _next to the end, then from the start
            parts = [(self._next, self.size), (0, self._next)]
        times, values = [], []
        for begin, end in parts:
            first = begin + int(np.searchsorted(self._t[begin:end], t))
            times.append(self._t[first:end])
            values.append(self._v[first:end])
        return np.concatenate(times), np.concatenate(values)

    @property
    def first_t(self) -> float | None:
        if not self.count:
            return None
        return float(self._t[0 if self.count < self.size else self._next])


class Buckets:
    """The whole history as at most `size` buckets from time 0, each `span` seconds wide."""

    def __init__(self, size: int = HISTORY_BUCKETS, span: float = FIRST_SPAN_S) -> None:
        self.size = size
        self.span = span
        self._low = np.full(size, np.inf)
        self._high = np.full(size, -np.inf)
        self._sum = np.full(size, 0.0)
        self._n = np.full(size, 0, dtype=np.int64)

    def add(self, t: float, value: float) -> None:
        index = int(max(t, 0.0) // self.span)
        while index >= self.size:
            self._merge_pairs()
            index = int(max(t, 0.0) // self.span)
        self._low[index] = min(self._low[index], value)
        self._high[index] = max(self._high[index], value)
        self._sum[index] += value
        self._n[index] += 1

    def _merge_pairs(self) -> None:
        half = self.size // 2
        for values, pair, empty in (
            (self._low, np.minimum, np.inf),
            (self._high, np.maximum, -np.inf),
            (self._sum, np.add, 0.0),
            (self._n, np.add, 0),
        ):
            merged = pair(values[0::2], values[1::2])
            values[:half] = merged
            values[half:] = empty
        self.span *= 2

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(mid-times, means, lows, highs) of the buckets holding any point."""
        held = np.nonzero(self._n)[0]
        times = (held + 0.5) * self.span
        means = self._sum[held] / self._n[held]
        return times, means, self._low[held], self._high[held]


@dataclass(frozen=True)
class _Held:
    """A curve as it was before points were held: enough to take them back."""

    ring: tuple[int, int, int]  # the ring's next slot, count and total
    buckets: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]
    figures: tuple[float, int, float | None, float | None, float | None, float | None]

    @classmethod
    def of(cls, trace: Trace) -> _Held:
        ring, history = trace.recent, trace.history
        return cls(
            (ring._next, ring.count, ring.total),
            (
                history._low.copy(),
                history._high.copy(),
                history._sum.copy(),
                history._n.copy(),
                history.span,
            ),
            (trace._sum, trace._n, trace.last, trace.last_t, trace.low, trace.high),
        )

    def restore(self, trace: Trace) -> None:
        ring, history = trace.recent, trace.history
        ring._next, ring.count, ring.total = self.ring
        low, high, total, n, span = self.buckets
        history._low, history._high, history._sum, history._n, history.span = (
            low.copy(),
            high.copy(),
            total.copy(),
            n.copy(),
            span,
        )
        trace._sum, trace._n, trace.last, trace.last_t, trace.low, trace.high = self.figures


@dataclass
class Trace:
    """One curve: its recent points, its history, and its running mean since the start. Its
    latest points can be held provisionally (hold()): withdrawn again (withdraw()) when better
    figures for the same intervals come, or kept (keep())."""

    recent: Ring
    history: Buckets
    _sum: float = 0.0
    _n: int = 0
    last: float | None = None  # the latest value
    last_t: float | None = None  # and its time
    low: float | None = None  # the lowest and highest since the start
    high: float | None = None
    _held: _Held | None = None

    @classmethod
    def new(cls, recent_points: int = RECENT_POINTS, buckets: int = HISTORY_BUCKETS) -> Trace:
        return cls(Ring(recent_points), Buckets(buckets))

    def add(self, t: float, value: float, *, counted: bool = True) -> None:
        """A point drawn; counted=False: drawn, but kept out of the figures (an interval
        cut short, whose rate is of a fraction of a second)."""
        self.recent.add(t, value)
        self.history.add(t, value)
        if not counted:
            return
        self._sum += value
        self._n += 1
        self.last, self.last_t = value, t
        self.low = value if self.low is None else min(self.low, value)
        self.high = value if self.high is None else max(self.high, value)

    @property
    def mean(self) -> float | None:
        return self._sum / self._n if self._n else None

    @property
    def count(self) -> int:
        return self._n

    # -- points held provisionally -----------------------------------------------------------
    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self) -> None:
        """The points added from now on are provisional (once; until withdraw() or keep())."""
        if self._held is None:
            self._held = _Held.of(self)

    def withdraw(self) -> None:
        """Take back the points added since hold(), as if they never came."""
        held, self._held = self._held, None
        if held is not None:
            held.restore(self)

    def keep(self) -> None:
        """The points added since hold() are the curve's for good."""
        self._held = None

    def window(self, since: float) -> tuple[np.ndarray, np.ndarray]:
        """The points from `since` on at full resolution (the history's buckets where the
        recent points do not reach back that far)."""
        t, v = self.recent.since(since)
        first = self.recent.first_t
        if first is not None and since < first and self.recent.total > self.recent.count:
            ht, hv, _low, _high = self.history.arrays()
            older = (ht >= since) & (ht < first)
            t, v = np.concatenate([ht[older], t]), np.concatenate([hv[older], v])
        return t, v

    @property
    def bucketed(self) -> bool:
        """Whether the whole monitor is drawn from its buckets (else point by point)."""
        return self.recent.total > self.recent.count or self.recent.count > self.history.size

    def whole(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(times, values, lows, highs) over the whole monitor: every point while there are
        no more of them than buckets, else the history's buckets."""
        if not self.bucketed:
            t, v = self.recent.arrays()
            return t, v, v, v
        return self.history.arrays()
