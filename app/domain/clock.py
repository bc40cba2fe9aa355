"""The time of day as LinkLab stamps sessions and runs: the computer's clock read beside the
steady clock, so that a step of the computer's clock (set by hand, or by NTP after a start
with a wrong clock) is seen and marked instead of followed.

A session's stamps in the process that runs it are its first reading of the computer's clock
moved on by the steady clock (time.monotonic, which no one can set): they keep their order
and their distances, so a run never ends before it begins, whatever the computer's clock
does meanwhile. Where the computer's clock has moved away from them by STEP_S or more, the
stamp carries that difference (its mark), and the store keeps it with the run and the
session, so that views and reports say their times follow the session's own clock.

The computer's clock is read here only (Clock.wall), so a test can step it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

#: A difference between the two clocks of this much is a step: NTP slews the computer's clock
#: by at most half a millisecond a second, and time.monotonic follows the slewing.
STEP_S = 2.0


def iso(moment: dt.datetime) -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2026-11-21T11:48:42.123Z."""
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_from_epoch(seconds: float) -> str:
    return iso(dt.datetime.fromtimestamp(seconds, dt.UTC))


@dataclass(frozen=True)
class Reading:
    """Both clocks read at once: the computer's (seconds since the epoch) and the steady one."""

    wall: float
    steady: float


@dataclass(frozen=True)
class Stamp:
    """A time to store, and how far the computer's clock was from it (None: within STEP_S)."""

    iso: str
    step_s: float | None = None


class Clock:
    """Where LinkLab reads the time of day: the computer's clock and the steady one, each a
    function a test may replace."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        steady: Callable[[], float] = time.monotonic,
    ) -> None:
        self.wall = wall
        self.steady = steady

    def read(self) -> Reading:
        return Reading(self.wall(), self.steady())

    def now(self) -> str:
        """The computer's clock as a stamp (for what no session's time covers)."""
        return iso_from_epoch(self.wall())


#: The clock of this process.
CLOCK = Clock()


class Timeline:
    """The stamps of one session in this process: its first reading of the computer's clock,
    moved on by the steady clock."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.start = clock.read()

    def at(self, steady: float) -> float:
        """A steady-clock time of this process on the session's time (seconds since the epoch)."""
        return self.start.wall + (steady - self.start.steady)

    def stamp(self) -> Stamp:
        """Now, on the session's time, with the computer's clock's step from it."""
        now = self._clock.read()
        at = self.at(now.steady)
        step = now.wall - at
        return Stamp(iso_from_epoch(at), step if abs(step) >= STEP_S else None)


def _span(seconds: float) -> str:
    whole = round(abs(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def step_sentence(step_s: float) -> str:
    """What a session's clock mark means, in one sentence (views, reports, the command line)."""
    way = "ahead" if step_s > 0 else "back"
    return (
        f"The computer's clock was set {way} by {_span(step_s)} while this session ran: its "
        f"times follow the session's own clock from its start, not the computer's, and its "
        f"durations are measured by LinkLab's steady clock."
    )
