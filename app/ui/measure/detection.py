"""What the system says about the link to the peer — its Wi-Fi security, its rate and medium —
asked off the GUI thread (it runs nmcli, iw or netsh): at start-up, and again each time a peer
answers Check peer."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.study.host.environment import DetectedLink
from app.ui.common.worker import Worker, once


@dataclass(frozen=True)
class _Found:
    host: str
    security: str  # the detected Wi-Fi security, or ""
    link: DetectedLink | None


def _detect(host: str) -> _Found:
    from app.study.host import environment

    snapshot = environment.capture(host)
    return _Found(host, snapshot.detected_security or "", environment.detected_link(snapshot))


class LinkDetection(QObject):
    """security_detected(str) when Wi-Fi security was found; link_detected(DetectedLink | None)
    every time, so that a rate detected for another peer can be taken back."""

    security_detected = Signal(str)
    link_detected = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._asked = ""
        self.answered = True  # False while the latest question waits for its answer

    def detect(self, host: str) -> None:
        """Ask about the link to host; only the latest question's answer is passed on."""
        self._asked = host
        self.answered = False
        worker = Worker(once(lambda: _detect(host)), "detect-link")
        worker.yielded.connect(self._found)
        worker.start()

    def _found(self, found: _Found) -> None:
        if found.host != self._asked:
            return  # the user has asked about another peer since
        self.answered = True
        if found.security:
            self.security_detected.emit(found.security)
        self.link_detected.emit(found.link)
