"""Reading off the GUI thread: a function runs in a worker and its result (or the
sentence of its error) comes back to a slot on the GUI thread. A newer request makes an older
one's result stale: only the latest is delivered, so a fast typist never sees old searches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from app.ui.common.worker import Worker, once

#: The reads started and not yet ended, for wait_all().
_READING: set[Worker] = set()


class Background(QObject):
    """One reader for one view: run() replaces whatever it was reading before."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
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
        number = self._number
        self._pending = {number: (done, failed)}  # older requests: stale
        worker = Worker(once(work), "read")
        # Connected to this reader, not to the view's callbacks: a view closed while the read
        # runs takes its reader with it, and the result then reaches nobody.
        worker.yielded.connect(self._done)
        worker.failed.connect(self._failed)
        worker.setProperty("number", number)
        _READING.add(worker)
        worker.finished.connect(lambda: _READING.discard(worker))
        worker.start()

    def _done(self, result: object) -> None:
        callbacks = self._pending.pop(self._sender_number(), None)
        if callbacks is not None:
            callbacks[0](result)

    def _failed(self, sentence: str) -> None:
        callbacks = self._pending.pop(self._sender_number(), None)
        if callbacks is not None:
            callbacks[1](sentence)

    def _sender_number(self) -> int:
        return int(self.sender().property("number"))


def wait_all(timeout_ms: int = 10_000) -> None:
    """Let pending reads finish (closing the window)."""
    for worker in list(_READING):
        worker.wait(timeout_ms)
