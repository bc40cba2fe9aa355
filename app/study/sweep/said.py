"""What a sweep has said and not yet yielded: events said in any thread (a concurrent series'
run, the latency probes' threads) kept in order until the thread that reads the sweep's
generator reaches its next yield."""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator

from app.study.sweep.events import StudyEvent

__all__ = ["Said"]


class Said:
    """Events said, waiting for the reading thread."""

    def __init__(self) -> None:
        self._pending: collections.deque[StudyEvent] = collections.deque()
        self._arrived = threading.Event()
        self._reader: int | None = None

    def read_here(self) -> None:
        """The calling thread is the one that reads (and yields) the events."""
        self._reader = threading.get_ident()

    def say(self, event: StudyEvent) -> None:
        """From any thread: yielded, in order, at the reading thread's next yield."""
        self._pending.append(event)
        self._arrived.set()

    def so_far(self) -> Iterator[StudyEvent]:
        """The events said so far, in order; nothing in any other thread than the reading
        one (a concurrent series' run leaves its events for that thread to yield)."""
        if threading.get_ident() != self._reader:
            return
        while self._pending:
            yield self._pending.popleft()

    def wait(self, timeout: float) -> None:
        """Until an event is said (or timeout seconds pass)."""
        self._arrived.wait(timeout)
        self._arrived.clear()
