"""What the system says about the link to the peer — its Wi-Fi (connected and how, or why it
cannot be read), its adapter's medium, a Wi-Fi PHY rate or a wired adapter's speed — asked off
the GUI thread (it asks the Native Wifi API, netsh, iw or nmcli): at start-up, whenever the
peer in the form settles on another host, and again each time a peer answers Check peer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.study.host.environment import DetectedLink
from app.study.host.wifi_query import WifiTools
from app.study.host.wifi_reading import WifiReading
from app.ui.common.worker import Worker, once


@dataclass(frozen=True)
class _Found:
    host: str
    security: str  # the detected Wi-Fi security, or ""
    link: DetectedLink | None
    wifi: WifiReading | None  # what asking about the interface's Wi-Fi gave
    unreached: str  # why no way to the peer was found ("the name … could not be resolved")


def _detect(host: str, tools: WifiTools) -> _Found:
    from app.study.host import environment

    snapshot = environment.capture(host, tools=tools)
    unreached = ""
    if host.strip() and snapshot.local_address is None:
        unreached = environment.no_route_reason(host)
    return _Found(
        host,
        snapshot.detected_security or "",
        environment.detected_link(snapshot),
        snapshot.wifi_reading,
        unreached,
    )


class LinkDetection(QObject):
    """security_detected(str) when Wi-Fi security was found; link_detected(DetectedLink | None,
    str: why no way to the peer was found, or "") and wifi_read(WifiReading | None) every
    time, so that what was found for another peer can be taken back."""

    security_detected = Signal(str)
    link_detected = Signal(object, str)
    wifi_read = Signal(object)

    def __init__(
        self, parent: QObject | None = None, tools: Callable[[], WifiTools] = WifiTools
    ) -> None:
        super().__init__(parent)
        self._asked = ""
        self._tools = tools
        self.answered = True  # False while the latest question waits for its answer

    @property
    def asked(self) -> str:
        """The host of the latest question."""
        return self._asked

    def detect(self, host: str) -> None:
        """Ask about the link to host; only the latest question's answer is passed on."""
        self._asked = host
        self.answered = False
        tools = self._tools()
        worker = Worker(once(lambda: _detect(host, tools)), "detect-link")
        worker.yielded.connect(self._found)
        worker.start()

    def _found(self, found: _Found) -> None:
        if found.host != self._asked:
            return  # the user has asked about another peer since
        self.answered = True
        self.wifi_read.emit(found.wifi)
        if found.security:
            self.security_detected.emit(found.security)
        self.link_detected.emit(found.link, found.unreached)
