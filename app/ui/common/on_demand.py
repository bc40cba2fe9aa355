"""Charts that redraw on a timer (~10 Hz) only while they have something new to show and are
on screen, never per sample (Friture's display timer)."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QHideEvent, QShowEvent

REDRAW_MS = 100


class OnDemand:
    """A chart redraws on a timer only while it has something new to show and is on screen:
    an idle or hidden chart costs the GUI thread nothing."""

    _timer: QTimer
    _dirty: bool

    def _start_timer(self) -> None:
        self._timer = QTimer(self)  # type: ignore[arg-type]
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._tick)

    def _changed(self) -> None:
        self._dirty = True
        if self.isVisible() and not self._timer.isActive():  # type: ignore[attr-defined]
            self._timer.start()

    def _tick(self) -> None:
        if not self._dirty:
            self._timer.stop()
            return
        self._draw()

    def _draw(self) -> None:
        raise NotImplementedError

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)  # type: ignore[misc]
        if self._dirty:
            self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)  # type: ignore[misc]
        self._timer.stop()
