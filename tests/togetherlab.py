"""Stations of a class measuring together, in this process: each a real TogetherStation with a
database, an outbox and a front door of its own, measuring this computer (its own iperf3
server on the loopback) by UDP at a low rate, so that several cost little CPU; its clock may be
set off from the collector's by a skew, as a lab's computers' clocks are."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.domain.exercise import Exercise
from app.domain.plan import Peer
from app.domain.stream import drive
from app.store.outbox import OutboxStatus
from app.study.frontdoor import FrontDoor
from app.study.lab.class_station import ClassPusher
from app.study.lab.together_station import SlotEnded, StationEvent, TogetherStation
from app.study.measurer import DoorMeasurer

__all__ = ["Skewed", "Station", "start_stations"]


class Skewed:
    """A clock off from this computer's by skew_s seconds (changed at will)."""

    def __init__(self, skew_s: float = 0.0) -> None:
        self.skew_s = skew_s

    def __call__(self) -> float:
        return time.time() + self.skew_s


@dataclass
class Station:
    name: str
    station: TogetherStation
    pusher: ClassPusher
    door: FrontDoor
    clock: Skewed
    events: list[StationEvent] = field(default_factory=list)
    ended: list[SlotEnded] = field(default_factory=list)
    thread: threading.Thread | None = None
    said: Callable[[StationEvent], None] | None = None  # each event, as it comes

    def take_part(self, delay_s: float = 0.0, timeout: float = 60) -> None:
        """In a thread: wait (after delay_s) for the class's start, then take part."""

        def work() -> None:
            if delay_s:
                time.sleep(delay_s)
            assignment = drive(self.station.wait(timeout), self.said)
            if assignment is not None:
                self.ended = drive(self.station.take_part(assignment), self.said)

        self.thread = threading.Thread(target=work, name=f"station {self.name}", daemon=True)
        self.thread.start()

    def join(self, timeout: float = 120) -> None:
        assert self.thread is not None
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"{self.name} did not finish"

    def close(self, flush_s: float = 10) -> OutboxStatus:
        self.station.stop()
        status = self.pusher.close(flush_s)
        self.door.loopback.stop()
        return status


def start_stations(
    root: Path,
    url: str,
    token: str,
    exercise: Exercise,
    skews: list[float],
    on_event: Callable[[str, StationEvent], None] | None = None,
) -> list[Station]:
    """One station per skew, checked in (each clock skewed so) and ready to wait."""
    found = []
    for number, skew in enumerate(skews, 1):
        name = f"Station {number}"
        db = root / f"station{number}.sqlite3"
        door = FrontDoor(db)
        door.startup()
        door.exercises().begin(exercise, name, "")
        pusher = ClassPusher(db, exercise, name, url, token)
        clock = Skewed(skew)
        events: list[StationEvent] = []

        def said(
            event: StationEvent, events: list[StationEvent] = events, name: str = name
        ) -> None:
            events.append(event)
            if on_event is not None:
                on_event(name, event)

        station = TogetherStation(
            url,
            token,
            name,
            exercise.id,
            Peer.this_computer(),
            DoorMeasurer(door),
            pusher.queue,
            clock,
        )
        pusher.start()
        drive(station.check_in(), said)
        found.append(Station(name, station, pusher, door, clock, events, said=said))
    return found
