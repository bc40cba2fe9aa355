"""The Monitor's hint fits the form: with a peer chosen (This computer, the first start's, or
one typed) it says what Start monitor will measure and with whom, never "Choose the peer"."""

from __future__ import annotations

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for

CHOOSE = "Choose the peer on the left, then Start monitor."


def test_the_monitor_hint_asks_for_a_peer_only_without_one(window: MainWindow, user: User) -> None:
    user.tab("Measure")
    user.tab("Monitor")
    assert user.text("Peer") == "This computer"  # the first start's peer: already chosen
    assert user.text("Monitor status") == (
        "Start monitor measures one flow with this computer's servers until Stop monitor."
    )
    user.type("Peer", "lab-peer.example")
    wait_for(
        lambda: (
            user.text("Monitor status")
            == "Start monitor measures one flow with lab-peer.example until Stop monitor."
        ),
        5,
        "the hint to name the peer",
    )
    user.choose("Peer", "This computer")
    wait_for(lambda: "this computer's servers" in user.text("Monitor status"), 5, "the hint")
    assert CHOOSE not in user.visible_text()
