"""A student's window as a station of a class measuring together: Wait for Start together
ticked on the Exercise tab (the exercise names the class's collector), the station asks the
collector for its server, measures its clock's offset and checks in, then takes part in each
Start together the instructor presses, in a worker of its own, its runs kept as sessions and
its figures sent through the exercise's outbox; what it does is said on the tab."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.domain.exercise import Exercise
from app.domain.plan import Peer
from app.engine.drivers.registry import main_server
from app.study.frontdoor import FrontDoor
from app.study.lab.class_station import ClassPusher, my_server
from app.study.lab.together_station import (
    Scheduled,
    SlotEnded,
    StationEvent,
    StationWaits,
    TogetherStation,
)
from app.study.lab.together_words import station_words
from app.study.measurer import DoorMeasurer
from app.ui.common.worker import Stop, Work, Worker

__all__ = ["WindowStation"]


def _work(db_path: Path, exercise: Exercise, student: str, pusher: ClassPusher) -> Work:
    def work(stop: Stop) -> Generator[StationEvent, None, None]:
        token = pusher.sender.token
        host, port, _engine = my_server(pusher.url, token, student)
        driver = main_server()
        peer = Peer(host, {driver.port_key: port})
        measurer = DoorMeasurer(FrontDoor(db_path))
        station = TogetherStation(
            pusher.url, token, student, exercise.id, peer, measurer, pusher.queue
        )
        stop.on_request(station.stop)
        try:
            while not station.stopping:
                assignment = yield from station.wait()
                if assignment is None:
                    break
                yield from station.take_part(assignment)
        finally:
            measurer.close()

    return work


class WindowStation(QObject):
    """This window taking part in the class's Starts together, until stopped."""

    said = Signal(str)  # what the station does, in a sentence
    ended = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._worker: Worker | None = None
        self._last = ""  # what the last slot measured, in words

    @property
    def running(self) -> bool:
        return self._worker is not None

    def start(self, db_path: Path, exercise: Exercise, student: str, pusher: ClassPusher) -> None:
        self.stop()
        worker = Worker(_work(db_path, exercise, student, pusher), "together-station")
        worker.yielded.connect(self._event)
        worker.failed.connect(self.said.emit)
        worker.finished.connect(lambda: self._finished(worker))
        self._worker = worker
        self.said.emit(f"Checking in with the class at {pusher.url}…")
        worker.start()

    def _event(self, event: StationEvent) -> None:
        """Said on the tab; after a round, what it measured stays in sight while it waits."""
        words = station_words(event)
        if isinstance(event, SlotEnded):
            self._last = words
        elif isinstance(event, StationWaits) and self._last:
            words = f"{self._last} {words}"
        elif isinstance(event, Scheduled):
            self._last = ""
        self.said.emit(words)

    def _finished(self, worker: Worker) -> None:
        if self._worker is worker:
            self._worker = None
            self.ended.emit()

    def stop(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()
