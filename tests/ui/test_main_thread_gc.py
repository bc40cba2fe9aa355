"""Cycles holding Qt objects are freed on the GUI thread, never in a reader's pool thread: a
widget destroyed there deadlocked the window against the GUI thread's own deletions."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from app.ui.common import main_thread_gc
from app.ui.common.background import Background, wait_all
from tests.ui.user import wait_for


class _Held(QObject):
    """A Qt object kept alive only by a reference cycle, as a closed view's often are."""

    def __init__(self) -> None:
        super().__init__()
        self.me = self


def test_a_cycle_left_behind_is_freed_on_the_gui_thread_not_in_a_reader(qapp) -> None:  # type: ignore[no-untyped-def]
    collector = main_thread_gc.install()
    assert collector is not None and main_thread_gc.install() is collector  # one per app
    assert not gc.isenabled()
    gc.collect()  # what earlier tests left: not this test's business

    freed_in: list[str] = []
    held = _Held()
    weakref.finalize(held, lambda: freed_in.append(threading.current_thread().name))
    del held  # now garbage, reachable only through its own cycle

    # A reader allocating heavily in the pool: the automatic collector would run there.
    reader = Background()
    results: list[int] = []
    reader.run(lambda: len([[n] for n in range(200_000)]), results.append, print)
    wait_all()
    wait_for(lambda: results == [200_000], 10, "the reader's result")
    assert freed_in == []  # nothing freed off the GUI thread

    # The GUI thread goes on making objects (the reader's were freed as they came): the
    # timer collects once the count is past the threshold, as the automatic collector would.
    kept = [[n] for n in range(2 * gc.get_threshold()[0])]
    wait_for(lambda: freed_in, 10, "the timer's collection")
    assert len(kept) > 0
    assert freed_in == [threading.main_thread().name]


def test_only_generations_due_are_collected() -> None:
    threshold = gc.get_threshold()
    gc.collect()
    assert main_thread_gc.collect_due((10**9, threshold[1], threshold[2])) is None
    assert main_thread_gc.collect_due((0, 10**9, 10**9)) == 0
