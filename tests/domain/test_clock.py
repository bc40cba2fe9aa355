"""The one place LinkLab reads the time of day, with its clocks given as parameters: a
session's stamps follow the steady clock from its first reading, so a step of the computer's
clock never reorders them, and the step is reported with each stamp after it."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from app.domain.clock import STEP_S, Clock, Timeline, step_sentence

T0 = 1_800_000_000.0  # 2027-01-15, seconds since the epoch


class Clocks:
    """A computer's clock and a steady clock that a test moves on and sets."""

    def __init__(self) -> None:
        self.steady = 100.0
        self.offset = 0.0  # how far the computer's clock has been set from true time

    def clock(self) -> Clock:
        return Clock(wall=lambda: T0 + self.steady + self.offset, steady=lambda: self.steady)


def seconds(stamp: str) -> float:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_a_step_back_leaves_the_stamps_in_order_and_is_marked() -> None:
    clocks = Clocks()
    timeline = Timeline(clocks.clock())
    clocks.steady += 30
    before = timeline.stamp()
    assert before.step_s is None
    clocks.offset = -7200  # the clock is set back two hours
    clocks.steady += 30
    after = timeline.stamp()
    assert seconds(after.iso) - seconds(before.iso) == 30  # as the steady clock counted
    assert after.step_s == -7200
    assert step_sentence(after.step_s).startswith(
        "The computer's clock was set back by 2 h 0 min while this session ran"
    )


def test_a_drift_under_the_step_size_is_no_step() -> None:
    clocks = Clocks()
    timeline = Timeline(clocks.clock())
    clocks.offset = STEP_S * 0.9
    assert timeline.stamp().step_s is None
    clocks.offset = STEP_S
    assert timeline.stamp().step_s == STEP_S


@given(st.lists(st.tuples(st.floats(0, 3600), st.floats(-86400, 86400)), max_size=20))
def test_stamps_never_go_back_whatever_the_computers_clock_does(
    moves: list[tuple[float, float]],
) -> None:
    clocks = Clocks()
    timeline = Timeline(clocks.clock())
    last = seconds(timeline.stamp().iso)
    for elapsed, offset in moves:
        clocks.steady += elapsed
        clocks.offset = offset
        stamp = timeline.stamp()
        now = seconds(stamp.iso)
        assert now >= last - 0.001  # the stamps' milliseconds round
        last = now
        assert (stamp.step_s is None) == (abs(offset) < STEP_S)


def test_a_step_ahead_and_short_ones_are_said_in_their_units() -> None:
    assert "set ahead by 45 s" in step_sentence(45.2)
    assert "set back by 3 min 20 s" in step_sentence(-200)
