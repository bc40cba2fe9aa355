"""Find computers: asks this network which computers run LinkLab's servers (in a thread) and
offers them in the Peer field, each with its name, address and engines."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QPushButton

from app.domain.plan import DEFAULT_ECHO_PORT
from app.domain.units import counted
from app.engine.serving.discovery import FoundPeer, discover
from app.ui.common.worker import Worker, once

#: port -> the computers found (the window's search; tests narrow it to their own link).
Search = Callable[[int], list[FoundPeer]]
FOUND_ROLE = Qt.ItemDataRole.UserRole + 1


def label(peer: FoundPeer) -> str:
    """How a found computer reads in the Peer list: "lab-pc2 (192.168.1.20) · iperf3", with
    the address Peer is filled with (its IPv4 address when it has one)."""
    engines = ", ".join(peer.engine_labels) or "no engine server"
    return f"{peer.name} ({peer.host}) · {engines}"


def details(peer: FoundPeer) -> str:
    """Everything it announced, for the note under the field and the item's tooltip."""
    others = [a for a in dict.fromkeys((*peer.addresses, peer.address)) if a != peer.host]
    also = f"; also {', '.join(others)}" if others else ""
    engines = peer.engine_words or "no engine server"
    echo = f", latency responder port {peer.echo_port}" if peer.echo_port else ""
    return f"{peer.name} at {peer.host}{also}: {engines}{echo}."


class PeerFinder(QObject):
    """The Find computers button and the found computers in the Peer drop-down."""

    searched = Signal(str)  # what the search found, in a sentence

    def __init__(self, combo: QComboBox, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.combo = combo
        self.search: Search = lambda port: discover(port)
        self.echo_port = DEFAULT_ECHO_PORT
        self.button = QPushButton("Find computers")
        self.button.setToolTip(
            "Ask the computers on this network (never beyond it) whether LinkLab's servers run "
            "there (linklab serve), and list them under Peer with their engines."
        )
        self.button.clicked.connect(self.find)

    def find(self) -> None:
        self.button.setEnabled(False)
        self.searched.emit("Looking for computers running LinkLab's servers…")
        search, port = self.search, self.echo_port
        worker = Worker(once(lambda: search(port)), "find-peers")
        worker.yielded.connect(self._found)
        worker.start()

    def found_peer(self, text: str) -> FoundPeer | None:
        """The found computer whose label or address text is, if any."""
        for index in range(self.combo.count()):
            value = self.combo.itemData(index, FOUND_ROLE)
            if isinstance(value, FoundPeer) and text in (self.combo.itemText(index), value.host):
                return value
        return None

    def _found(self, peers: list[FoundPeer]) -> None:
        self.button.setEnabled(True)
        combo = self.combo
        text = combo.currentText()
        combo.blockSignals(True)
        try:
            for index in reversed(range(combo.count())):
                if combo.itemData(index, FOUND_ROLE) is not None:
                    combo.removeItem(index)
            for row, peer in enumerate(peers, start=1):  # under "This computer"
                combo.insertItem(row, label(peer))
                combo.setItemData(row, peer, FOUND_ROLE)
                combo.setItemData(row, details(peer), Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(-1)
            combo.setEditText(text)
        finally:
            combo.blockSignals(False)
        # The drop-down as wide as its longest line: a name, address and engines read whole.
        metrics = combo.fontMetrics()
        widest = max(metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
        combo.view().setMinimumWidth(widest + 40)
        if not peers:
            self.searched.emit(
                f"No computer on this network answered on UDP port {self.echo_port}: start "
                f"LinkLab's servers there (linklab serve), or type its name or address."
            )
            return
        count = counted(len(peers), "computer")
        self.searched.emit(f"Found {count} running LinkLab's servers: choose one under Peer.")
