"""Python's cycle collector run on the GUI thread only.

Left automatic, the collector runs in whichever thread happens to allocate: a worker's thread
(a background read, a study) may then be the one to free a cycle that holds widgets, and a
widget destroyed there, while the GUI thread deletes its own objects, deadlocks the two on a
Qt lock (the GUI thread holding Python's lock). So the automatic collector is switched off
and the same generational collection is run on a timer in the GUI thread, where widgets may
be destroyed."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500


class MainThreadCollector(QObject):
    """Collects what the automatic collector would, at most every INTERVAL_MS, in the GUI
    thread. One per application: install() is idempotent."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        gc.disable()
        self._timer.start()

    def check(self) -> int | None:
        return collect_due(self.threshold)


def collect_due(threshold: tuple[int, int, int]) -> int | None:
    """Collect the generations whose counts passed their thresholds, as the automatic
    collector would; the oldest generation collected, or None when none was due."""
    count0, count1, count2 = gc.get_count()
    if count0 <= threshold[0]:
        return None
    generation = 0
    if count1 > threshold[1]:
        generation = 2 if count2 > threshold[2] else 1
    gc.collect(generation)
    return generation


def install() -> MainThreadCollector | None:
    """Run the cycle collector on the GUI thread from now on (no application: nothing)."""
    app = QCoreApplication.instance()
    if app is None:
        return None
    existing = app.findChild(MainThreadCollector)
    if existing is not None:
        return existing
    return MainThreadCollector(app)
