"""Reading off the GUI thread: a function runs in Qt's thread pool and its result (or the
sentence of its error) comes back to a slot on the GUI thread. A newer request makes an older
one's result stale: only the latest is delivered, so a fast typist never sees old searches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6 as Shiboken
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.domain.errors import LinkLabError
from app.ui.common import main_thread_gc


class _Relay(QObject):
    done = Signal(int, object)  # (request number, result)
    failed = Signal(int, str)  # (request number, sentence)


class _Job(QRunnable):
    def __init__(self, number: int, work: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self._number = number
        self._work = work
        self._relay = relay

    def run(self) -> None:  # in a pool thread
        try:
            result = self._work()
        except LinkLabError as err:
            self._deliver(self._relay.failed, err.sentence)
            return
        self._deliver(self._relay.done, result)

    def _deliver(self, signal: Any, payload: object) -> None:
        try:
            signal.emit(self._number, payload)
        except RuntimeError:
            # The view that asked was closed while this read ran (its relay went with it):
            # nobody is left to show the result to.
            if Shiboken.isValid(self._relay):
                raise


class Background(QObject):
    """One reader for one view: run() replaces whatever it was reading before."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        main_thread_gc.install()  # a pool thread must never be the one to free a widget
        self._relay = _Relay(self)
        self._relay.done.connect(self._done)
        self._relay.failed.connect(self._failed)
        self._number = 0
        self._pending: dict[int, tuple[Callable[[Any], None], Callable[[str], None]]] = {}

    @property
    def busy(self) -> bool:
        """Whether the latest request has not come back yet."""
        return self._number in self._pending

    def run(
        self, work: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[str], None]
    ) -> None:
        self._number += 1
        self._pending = {self._number: (done, failed)}  # older requests: stale
        QThreadPool.globalInstance().start(_Job(self._number, work, self._relay))

    def _done(self, number: int, result: object) -> None:
        callbacks = self._pending.pop(number, None)
        if callbacks is not None:
            callbacks[0](result)

    def _failed(self, number: int, sentence: str) -> None:
        callbacks = self._pending.pop(number, None)
        if callbacks is not None:
            callbacks[1](sentence)


def wait_all(timeout_ms: int = 10_000) -> None:
    """Let pending reads finish (closing the window)."""
    QThreadPool.globalInstance().waitForDone(timeout_ms)
