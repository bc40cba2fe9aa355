"""The window's one way to work off the GUI thread: a generator runs in a thread of its own, each
value it yields reaches the GUI thread as the queued `yielded` signal, Stop is seen between events,
and the end is `finished` (after `failed` with the sentence of a LinkLabError that ended it).

Written here rather than taken from superqt, whose GeneratorWorker has the same shape: it runs
on Qt's global thread pool, as many threads as cores, which a monitor (it runs until Stop) and
a study would hold and starve every background read of; it turns any exception into its
`errored` signal, where a bug must surface; and a study needs Stop to reach a run blocked in
an engine at once (`Stop.on_request`), not only at the next event. Each work here has a thread
of its own, and only a LinkLabError is a failure."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from app.domain.errors import LinkLabError
from app.ui.common import main_thread_gc

T = TypeVar("T")


class Stop:
    """Thread-safe: asked on the GUI thread, read by the work in its thread. A work that ends
    itself when asked (it registered how with on_request) is read to its end, its last events
    included; any other is closed at the next event."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requested = False
        self._hooks: list[Callable[[], None]] = []

    @property
    def requested(self) -> bool:
        with self._lock:
            return self._requested

    @property
    def ends_itself(self) -> bool:
        with self._lock:
            return bool(self._hooks)

    def request(self) -> None:
        with self._lock:
            self._requested = True
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    def on_request(self, hook: Callable[[], None]) -> None:
        """hook() when Stop is asked (at once when it already was), from the thread that
        asks: it ends the work's blocking call in progress."""
        with self._lock:
            self._hooks.append(hook)
            asked = self._requested
        if asked:
            hook()

    def later(self) -> Callable[[Callable[[], None]], None]:
        """For a work that ends itself but has not yet made what stops it (a study is started
        in the work's thread): said now, and the returned function is given that stop once it
        exists (called at once when Stop was asked meanwhile; a stop is called at most twice)."""
        lock = threading.Lock()
        stops: list[Callable[[], None]] = []

        def hook() -> None:
            with lock:
                now = list(stops)
            for stop in now:
                stop()

        def given(stop: Callable[[], None]) -> None:
            with lock:
                stops.append(stop)
            if self.requested:
                stop()

        self.on_request(hook)
        return given


#: A work: given its Stop, the generator of its events.
Work = Callable[[Stop], Generator[Any, None, Any]]

#: Workers started and not yet seen ended on the GUI thread: nobody needs to keep one alive.
_RUNNING: set[Worker] = set()


class Worker(QObject):
    """One work in one thread. Parentless, so that closing the view that started it never
    destroys it while it runs; it deletes itself once ended."""

    yielded = Signal(object)  # a value the work yielded (its typed events), in order
    failed = Signal(str)  # the sentence of the LinkLabError that ended the work
    finished = Signal()  # the work ended (after its last event and any failure)

    def __init__(self, work: Work, name: str) -> None:
        super().__init__()
        main_thread_gc.install()  # a work's thread must never be the one to free a widget
        self.stop_token = Stop()
        self._work = work
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.finished.connect(self._ended)  # first: the thread is joined before owners hear

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        _RUNNING.add(self)
        self._thread.start()

    def stop(self) -> None:
        """Thread-safe: the work stops between events, or at once where it said how."""
        self.stop_token.request()

    def wait(self, timeout_ms: int | None = None) -> bool:
        """Wait for the thread to end (closing the window); True when it has."""
        if self._thread.ident is None:
            return True
        self._thread.join(None if timeout_ms is None else timeout_ms / 1000)
        return not self._thread.is_alive()

    def _run(self) -> None:  # in the worker's thread
        stop = self.stop_token
        try:
            events = self._work(stop)
            try:
                for event in events:
                    self.yielded.emit(event)
                    if stop.requested and not stop.ends_itself:
                        break
            finally:
                events.close()  # a generator left between events tidies in its finally
        except LinkLabError as err:
            self.failed.emit(err.sentence)
        finally:
            self.finished.emit()

    def _ended(self) -> None:  # on the GUI thread
        # The thread emitted finished as its last act: joined, it holds no reference that
        # could free this object there.
        self._thread.join()
        _RUNNING.discard(self)
        self.deleteLater()


def once(call: Callable[[], T]) -> Work:
    """A work of one step: its one event is what call() returns."""

    def work(_stop: Stop) -> Generator[T, None, None]:
        yield call()

    return work


def wire(
    worker: Worker,
    handlers: dict[type, Callable[[Any], None]],
    *,
    failed: Callable[[str], None],
    finished: Callable[[], None],
) -> None:
    """Connect a page to a worker: each event to the handler of its type (events of a type the
    page has no handler for are not its concern), the failure's sentence and the end."""

    def dispatch(event: object) -> None:
        for kind in type(event).__mro__:
            handler = handlers.get(kind)
            if handler is not None:
                handler(event)
                return

    worker.yielded.connect(dispatch)
    worker.failed.connect(failed)
    worker.finished.connect(finished)
