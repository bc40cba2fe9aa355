"""How far a station's clock is from the collector's, measured as NTP measures it (RFC 5905,
the on-wire exchange): the station sends its time t0, the collector answers with when it got
the request (t1) and when it answered (t2), the station notes t3 when the answer is back.
offset = ((t1 − t0) + (t2 − t3)) / 2 and round trip = (t3 − t0) − (t2 − t1); of several
exchanges the one with the shortest round trip is kept, as NTP's clock filter keeps it (its
offset is off by at most half its round trip)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.study.lab.class_http import call

__all__ = ["EXCHANGES", "MAX_DELAY_S", "ClockOffset", "exchange_offset", "measure_offset"]

#: Exchanges per measurement (NTP's clock filter keeps the best of its last eight).
EXCHANGES = 8
#: A round trip longer than this leaves the offset too uncertain to start together by (the
#: offset is known only to within half the round trip).
MAX_DELAY_S = 0.5


@dataclass(frozen=True)
class ClockOffset:
    """The collector's clock minus the station's (seconds), the round trip of the exchange it
    came from, how many exchanges were tried, and why there is no offset when there is none."""

    offset_s: float | None
    delay_s: float | None
    exchanges: int
    problem: str = ""

    @property
    def words(self) -> str:
        if self.offset_s is None or self.delay_s is None:
            return f"its clock offset could not be measured ({self.problem.rstrip('.')})"
        return (
            f"clock offset {self.offset_s * 1000:+.1f} ms to the collector's, measured over "
            f"{self.exchanges} exchanges ({self.delay_s * 1000:.1f} ms there and back)"
        )


def exchange_offset(t0: float, t1: float, t2: float, t3: float) -> tuple[float, float]:
    """(offset, round trip) of one exchange."""
    return ((t1 - t0) + (t2 - t3)) / 2, (t3 - t0) - (t2 - t1)


def measure_offset(
    url: str,
    token: str,
    clock: Callable[[], float] = time.time,
    exchanges: int = EXCHANGES,
) -> ClockOffset:
    """The station's offset to the collector at url."""
    best: tuple[float, float] | None = None
    problem = ""
    for _ in range(exchanges):
        t0 = clock()
        answer = call(url, token, "/v1/together/clock", json.dumps({"t0": t0}).encode())
        t3 = clock()
        data = answer.data
        if answer.status != 200 or not isinstance(data, dict):
            problem = answer.sentence or f"the collector answered {answer.status}"
            if answer.status in (401, 403, 404):
                break  # asking again cannot help
            continue
        t1, t2 = data.get("t1"), data.get("t2")
        if not all(isinstance(t, int | float) and not isinstance(t, bool) for t in (t1, t2)):
            problem = "the collector's answer holds no times"
            continue
        assert isinstance(t1, int | float) and isinstance(t2, int | float)
        found = exchange_offset(t0, float(t1), float(t2), t3)
        if best is None or found[1] < best[1]:
            best = found
    if best is None:
        return ClockOffset(None, None, exchanges, problem or "no exchange was answered")
    if best[1] > MAX_DELAY_S:
        return ClockOffset(
            None,
            None,
            exchanges,
            f"the shortest of {exchanges} exchanges took {best[1] * 1000:.0f} ms there and back, "
            f"more than {MAX_DELAY_S * 1000:.0f} ms: the network to the collector is too slow "
            f"or too busy to start together by",
        )
    return ClockOffset(best[0], max(best[1], 0.0), exchanges)
