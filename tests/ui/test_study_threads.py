"""A study started from the window runs in the worker's one thread: the runner's generator is
read there, with no second thread carrying its events across (the engines' own pipe readers,
this computer's servers and the CPU sampler aside, each named for what it does)."""

from __future__ import annotations

import re
import threading

import pytest
from PySide6.QtCore import QTimer

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for

#: The threads a study may start beside the worker's own, by name: an engine's stdout and
#: stderr readers, this computer's server's log reader and stall watcher, the CPU sampler, and
#: the window's own background reads (the Sessions list, read again when a session ends).
HELPERS = re.compile(r"(out|err)-\d+|[a-z0-9]+-(log|stall)|cpu-sampler|read")


@pytest.mark.usefixtures("iperf3_tool")  # measures this computer for real
def test_a_study_from_the_window_starts_one_thread_of_its_own(
    window: MainWindow, user: User
) -> None:
    before = set(threading.enumerate())  # the objects: a new thread may reuse an old ident
    seen: set[threading.Thread] = set()

    def look() -> None:
        seen.update(t for t in threading.enumerate() if t not in before)
        if window.measure.running:
            QTimer.singleShot(10, look)

    user.type("Values list", "1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "2")
    user.click("Start")
    QTimer.singleShot(0, look)
    wait_for(lambda: not window.measure.running, 60, "the study")
    look()
    names = sorted(t.name for t in seen)
    own = [name for name in names if not HELPERS.fullmatch(name)]
    assert own == ["study"], names  # the worker's, and no "study-call" beside it
    assert any(name.startswith("out-") for name in names), names  # the engines were seen
