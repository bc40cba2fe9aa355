"""A run's working-latency probes under load gathered per second of the run (seconds since its
engine started): each second's median round trip and its probes answered and lost, as a
monitor charts them live and keeps them with the run, so that a stored monitor shows the
figures it showed live."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from app.domain.results import LatencySecond


class SecondBins:
    """Probes in the order they come, gathered per second: a second is complete when a probe
    of a later second arrives, or when the run ends (close()). A probe that comes after a
    later second began (a late answer, a probe given up as lost) counts in the second being
    gathered, whatever its time: the seconds depend only on the order the probes came in."""

    def __init__(self) -> None:
        self._second: int | None = None
        self._rtts: list[float] = []
        self._lost = 0

    def add(self, times_s: Iterable[float], rtts_ms: Iterable[float | None]) -> list[LatencySecond]:
        """Probes at times_s (seconds since the engine started; None: lost); returns the
        seconds they completed."""
        done: list[LatencySecond] = []
        for time_s, rtt in zip(times_s, rtts_ms, strict=True):
            second = max(int(time_s), 0)
            if self._second is not None and second > self._second:
                done += self.close()
            if self._second is None:
                self._second = second
            if rtt is None:
                self._lost += 1
            else:
                self._rtts.append(rtt)
        return done

    def close(self) -> list[LatencySecond]:
        """The second being gathered, complete (the run ended, or a later second began)."""
        if self._second is None:
            return []
        rtts, lost = self._rtts, self._lost
        median = statistics.median(rtts) if rtts else None
        closed = LatencySecond(self._second, median, len(rtts), lost)
        self._second, self._rtts, self._lost = None, [], 0
        return [closed] if rtts or lost else []
