"""The times a SessionStore writes: each session it begins or resumes on its own time
(app.domain.clock's Timeline), so that its runs never end before they begin, and where the
computer's clock was set meanwhile, how far it was from them (clock_step_s, schema 14) kept
with the session and the run."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping
from typing import Any

from app.domain.clock import CLOCK as CLOCK  # re-exported: a store's default clock
from app.domain.clock import Clock as Clock  # re-exported: what a store is given
from app.domain.clock import Stamp, Timeline, iso_from_epoch


class Stamps:
    """The sessions and runs one store keeps the time of."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._timelines: dict[str, Timeline] = {}  # sessions begun or resumed here
        self._run_sessions: dict[int, str] = {}  # runs begun here, and their session

    def begin(self, session_id: str) -> str:
        """The session begins (or resumes) here, now: its time starts; the stamp of now."""
        timeline = self._timelines[session_id] = Timeline(self.clock)
        return iso_from_epoch(timeline.start.wall)

    def run_begun(
        self, conn: sqlite3.Connection, run_id: int, session_id: str, stamp: Stamp
    ) -> int:
        """A run's row was begun at the stamp: its step kept, its later stamps on its
        session's time. Returns the run's id."""
        self.mark(conn, session_id, run_id, stamp)
        self._run_sessions[run_id] = session_id
        return run_id

    def now(self, session_id: str | None, given: str | None = None) -> Stamp:
        """Now, on the session's own time where this store keeps it, else the computer's;
        a time given (an import's) as it is."""
        if given:
            return Stamp(given)
        timeline = self._timelines.get(session_id) if session_id is not None else None
        return timeline.stamp() if timeline is not None else Stamp(self.clock.now())

    def session_now(self, conn: sqlite3.Connection, session_id: str) -> str:
        """Now for a session's row (its end), its step kept."""
        stamp = self.now(session_id)
        self.mark(conn, session_id, None, stamp)
        return stamp.iso

    def started(self, run_id: int, steady: float | None) -> str | None:
        """When a run's engine started, by this process's steady clock, on its session's
        time; None where not known (no steady time, or a session whose time this store does
        not keep: the start given is kept then)."""
        timeline = self._timelines.get(self._run_sessions.get(run_id, ""))
        if steady is None or timeline is None:
            return None
        return iso_from_epoch(timeline.at(steady))

    @staticmethod
    def mark(conn: sqlite3.Connection, session_id: str, run_id: int | None, stamp: Stamp) -> None:
        """Keep a stamp's step with the run and (the largest seen) with its session."""
        if stamp.step_s is None:
            return
        conn.execute(
            "UPDATE sessions SET clock_step_s = ? WHERE id = ? "
            "AND (clock_step_s IS NULL OR abs(clock_step_s) < abs(?))",
            (stamp.step_s, session_id, stamp.step_s),
        )
        if run_id is not None:
            conn.execute("UPDATE runs SET clock_step_s = ? WHERE id = ?", (stamp.step_s, run_id))

    def run_now(self, conn: sqlite3.Connection, run_id: int) -> str:
        """Now for a run's row (its end so far), its step kept."""
        session_id = self._run_sessions.get(run_id)
        stamp = self.now(session_id)
        if session_id is not None:
            self.mark(conn, session_id, run_id, stamp)
        return stamp.iso


def clock_mark(row: sqlite3.Row | Mapping[str, Any]) -> float | None:
    """A row's clock mark (clock_step_s, schema 14), as a number of seconds; None in an older
    file that is only read, or where a hand-written value is no finite number."""
    value = row["clock_step_s"] if "clock_step_s" in row.keys() else None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None
