"""What the system says about the link to the peer — its Wi-Fi security, its rate and medium —
asked off the GUI thread (it runs nmcli, iw or netsh): at start-up, and again each time a peer
answers Check peer."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from app.study.host.environment import DetectedLink


class _Signals(QObject):
    """Parentless: a detection thread may outlive the tab that asked."""

    found = Signal(str, str, object)  # (host, detected security or "", DetectedLink | None)


def _detect(host: str, signals: _Signals) -> None:
    from app.study.host import environment

    snapshot = environment.capture(host)
    link = environment.detected_link(snapshot)
    signals.found.emit(host, snapshot.detected_security or "", link)


class LinkDetection(QObject):
    """security_detected(str) when Wi-Fi security was found; link_detected(DetectedLink | None)
    every time, so that a rate detected for another peer can be taken back."""

    security_detected = Signal(str)
    link_detected = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals = _Signals()
        self._signals.found.connect(self._found)
        self._asked = ""
        self.answered = True  # False while the latest question waits for its answer

    def detect(self, host: str) -> None:
        """Ask about the link to host; only the latest question's answer is passed on."""
        self._asked = host
        self.answered = False
        threading.Thread(
            target=_detect, args=(host, self._signals), name="detect-link", daemon=True
        ).start()

    def _found(self, host: str, security: str, link: DetectedLink | None) -> None:
        if host != self._asked:
            return  # the user has asked about another peer since
        self.answered = True
        if security:
            self.security_detected.emit(security)
        self.link_detected.emit(link)
