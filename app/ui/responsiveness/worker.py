"""A responsiveness test through the front door in a worker thread; its progress events and
result come back to the GUI thread as queued signals, the result kept in the database first."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread, Signal

from app.domain.errors import LinkLabError
from app.domain.plan import Peer
from app.engine.errors import StoppedByUser
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.results import ResponsivenessEvent, ResponsivenessSettings
from app.study.responsiveness.run import ResponsivenessTest


class ResponsivenessWorker(QThread):
    """Runs one test. The worker never touches a widget and the GUI never waits for it."""

    progressed = Signal(object)  # a ResponsivenessEvent
    measured = Signal(object)  # the ResponsivenessResult
    kept = Signal(object)  # the KeptResult it was stored as
    not_kept = Signal(str)  # why it could not be stored (the result is still shown)
    stopped = Signal()
    failed = Signal(str)  # the sentence that says what to do

    def __init__(self, door: FrontDoor, peer: Peer, settings: ResponsivenessSettings) -> None:
        super().__init__()
        self.door = door
        self.peer = peer
        self.settings = settings
        self._lock = threading.Lock()
        self._test: ResponsivenessTest | None = None
        self._stop_requested = False

    def stop(self) -> None:
        """Thread-safe; the test ends within about a second."""
        with self._lock:
            self._stop_requested = True
            test = self._test
        if test is not None:
            test.stop()

    def run(self) -> None:  # QThread entry point, in the worker thread
        test = self.door.responsiveness(self.peer, self._emit, self.settings)
        with self._lock:
            self._test = test
            stop = self._stop_requested
        if stop:
            test.stop()
        try:
            result = test.run()
        except StoppedByUser:
            self.stopped.emit()
        except LinkLabError as err:
            self.failed.emit(err.sentence)
        else:
            # Stored before it is shown: the card and the Sessions list appear together.
            try:
                kept = self.door.results().keep(result, self.settings)
            except LinkLabError as err:
                self.measured.emit(result)
                self.not_kept.emit(err.sentence)
            else:
                self.measured.emit(result)
                self.kept.emit(kept)

    def _emit(self, event: ResponsivenessEvent) -> None:
        self.progressed.emit(event)
