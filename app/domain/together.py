"""A class measuring together: the instructor's short plan (protocol, direction, seconds,
rounds, and whether each station measures alone first), the schedule the collector hands out
(one start time per slot, on the collector's clock) and the names of what can go wrong for a
station, so that no station is ever counted as a zero share without its reason."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.domain.errors import BadOption
from app.domain.net import Direction, Protocol
from app.domain.plan import Plan
from app.domain.units import counted

__all__ = [
    "MAX_ROUNDS",
    "MAX_SECONDS",
    "MIN_SECONDS",
    "Slot",
    "SlotKind",
    "StationStatus",
    "TogetherPlan",
    "plan_from_step",
    "slot_from_dict",
    "slot_to_dict",
]

MIN_SECONDS = 2
MAX_SECONDS = 120
MAX_ROUNDS = 20
MAX_BITRATE_BPS = 10_000_000_000
#: The directions a class can measure together (both at once would mix two links' shares).
DIRECTIONS = (Direction.UP, Direction.DOWN)


class SlotKind(StrEnum):
    """One measurement of the schedule: every station at once, or one station by itself."""

    TOGETHER = "together"
    ALONE = "alone"


class StationStatus(StrEnum):
    """What became of one station in one slot. Only OK counts in the index; every other
    status comes with its reason in words."""

    OK = "ok"
    WAITING = "waiting"  # its slot has not begun, or it has not reported yet
    RUNNING = "running"  # its figures so far arrived; its run has not ended
    LATE = "late"  # could not start in time
    FAILED = "failed"  # its measurement failed (the engine's sentence)
    DROPPED = "dropped"  # it went silent mid-run
    SILENT = "silent"  # nothing was ever heard from it for this slot
    NO_CLOCK = "no clock"  # its clock offset could not be measured: left out from the start
    AWAY = "away"  # it had stopped waiting when the round was started

    @property
    def counted(self) -> bool:
        return self is StationStatus.OK


@dataclass(frozen=True)
class TogetherPlan:
    """What every station measures at once: one run of seconds, repeated for rounds, against
    its own server of the class's pool."""

    protocol: Protocol = Protocol.TCP
    direction: Direction = Direction.UP
    seconds: int = 5
    rounds: int = 3
    alone: bool = False  # each station measures by itself, one after another, first
    bitrate_bps: int = 0  # UDP's target rate per station; 0: as fast as it can

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise BadOption(
                "A class measures together one way at a time: choose upload or download."
            )
        if not MIN_SECONDS <= self.seconds <= MAX_SECONDS:
            raise BadOption(
                f"A round together lasts {MIN_SECONDS} to {MAX_SECONDS} s: choose seconds in "
                f"that range."
            )
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise BadOption(f"Choose 1 to {counted(MAX_ROUNDS, 'round')} together.")
        if not 0 <= self.bitrate_bps <= MAX_BITRATE_BPS:
            raise BadOption("A UDP target rate is 0 (as fast as it can) to 10 Gbit/s.")

    @property
    def words(self) -> str:
        """ "TCP upload, 5 s a round, 3 rounds together, each station alone first" """
        way = "upload" if self.direction is Direction.UP else "download"
        rounds = f"{counted(self.rounds, 'round')} together"
        alone = ", each station alone first" if self.alone else ""
        rate = ""
        if self.protocol is Protocol.UDP and self.bitrate_bps:
            rate = f" at {self.bitrate_bps / 1e6:g} Mbit/s"
        return (
            f"{self.protocol.value.upper()} {way}{rate}, {self.seconds} s a round, {rounds}{alone}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol.value,
            "direction": self.direction.value,
            "seconds": self.seconds,
            "rounds": self.rounds,
            "alone": self.alone,
            "bitrate_bps": self.bitrate_bps,
        }

    @classmethod
    def from_dict(cls, data: object) -> TogetherPlan:
        """The plan as a collector receives or stores it; BadOption naming the first fault."""
        if not isinstance(data, dict):
            raise BadOption("The plan to measure together is not an object.")
        try:
            protocol = Protocol(data.get("protocol", "tcp"))
            direction = Direction(data.get("direction", "up"))
        except ValueError:
            raise BadOption(
                "The plan to measure together names a protocol or direction LinkLab does not "
                "know: choose TCP or UDP, upload or download."
            ) from None
        numbers = {
            k: data.get(k, d) for k, d in (("seconds", 5), ("rounds", 3), ("bitrate_bps", 0))
        }
        for name, value in numbers.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadOption(f"The plan's {name} is not a whole number.")
        alone = data.get("alone", False)
        if not isinstance(alone, bool):
            raise BadOption("The plan's alone is not true or false.")
        return cls(
            protocol,
            direction,
            numbers["seconds"],
            numbers["rounds"],
            alone,
            numbers["bitrate_bps"] if protocol is Protocol.UDP else 0,
        )


def plan_from_step(plan: Plan, alone: bool = False) -> TogetherPlan:
    """The plan an exercise step names: its first protocol, its direction, its seconds per run
    and its repetitions as rounds."""
    direction = plan.direction if plan.direction in DIRECTIONS else Direction.UP
    return TogetherPlan(
        plan.protocols[0],
        direction,
        min(max(plan.duration_s, MIN_SECONDS), MAX_SECONDS),
        min(max(plan.repetitions, 1), MAX_ROUNDS),
        alone,
        plan.bitrate_bps if plan.protocols[0] is Protocol.UDP else 0,
    )


@dataclass(frozen=True)
class Slot:
    """One measurement of the schedule: its place, its kind, the round it belongs to (a
    together round's number; every alone slot is round 0), the stations in it, and when it
    starts on the collector's clock (seconds since 1970)."""

    number: int
    kind: SlotKind
    round: int
    stations: tuple[str, ...]
    start_at: float

    @property
    def label(self) -> str:
        if self.kind is SlotKind.ALONE:
            return f"{self.stations[0]} alone"
        return f"round {self.round} together"


def slot_to_dict(slot: Slot) -> dict[str, Any]:
    return {
        "number": slot.number,
        "kind": slot.kind.value,
        "round": slot.round,
        "stations": list(slot.stations),
        "start_at": slot.start_at,
    }


def slot_from_dict(data: object) -> Slot:
    if not isinstance(data, dict):
        raise BadOption("A slot of the schedule is not an object.")
    try:
        stations = data["stations"]
        if not isinstance(stations, list) or not all(isinstance(s, str) for s in stations):
            raise TypeError
        number, round_, start = data["number"], data["round"], data["start_at"]
        if not isinstance(number, int) or not isinstance(round_, int):
            raise TypeError
        if isinstance(start, bool) or not isinstance(start, int | float):
            raise TypeError
        return Slot(number, SlotKind(data["kind"]), round_, tuple(stations), float(start))
    except (KeyError, TypeError, ValueError):
        raise BadOption(
            "A slot of the schedule is not one LinkLab wrote: update LinkLab on both computers."
        ) from None
