"""The IPv6 address belongs to the peer it was given for: a second computer found by Find
computers fills it in, and whatever way the Peer field then changes (typed over, a preset, the
window closed and opened again, a peer chosen from the history), the field holds the new
peer's own address or none, never the one of the computer named before (an IPv6 run would
measure that other computer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.testbed import NeighbourBed
from tests.ui.conftest import open_window
from tests.ui.journey import choose_the_neighbour
from tests.ui.user import User, wait_for

OTHER = "198.18.0.99"  # another computer, typed by hand: no IPv6 address given for it


@pytest.mark.netns
def test_the_ipv6_address_follows_the_peer(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    user: User,
    context: AppContext,
    neighbour: NeighbourBed,
    tmp_path: Path,
) -> None:
    choose_the_neighbour(user, context, neighbour)
    assert user.text("Peer") == neighbour.THERE4
    assert user.text("Peer IPv6 address") == neighbour.THERE6
    user.click("Check peer")
    wait_for(lambda: "answers" in user.text("Peer check"), 20, "the check")
    # A preset keeps the peer, and with it its address...
    user.menu("Presets", "802.11n study: open vs WPA2, IPv4 vs IPv6")
    assert user.text("Peer IPv6 address") == neighbour.THERE6
    # ...another peer typed over it has none of its own.
    user.type("Peer", OTHER)
    assert user.text("Peer IPv6 address") == ""
    user.choose("Peer", neighbour.THERE4)  # back: its own again
    assert user.text("Peer IPv6 address") == neighbour.THERE6

    # Closed and opened again: the form as it was, and the same rule.
    window.shutdown()
    window.close()
    window = open_window(qtbot, context, tmp_path)
    user = User(window)
    assert user.text("Peer") == neighbour.THERE4
    assert user.text("Peer IPv6 address") == neighbour.THERE6
    user.type("Peer", OTHER)
    assert user.text("Peer IPv6 address") == ""
    user.type("Peer IPv6 address", "fd00:99::9")  # the typed computer's own, given by hand
    user.choose("Peer", "This computer")
    user.choose("Peer", neighbour.THERE4)  # from the history: the address it answered with
    assert user.text("Peer IPv6 address") == neighbour.THERE6
    user.type("Peer", OTHER)
    assert user.text("Peer IPv6 address") == ""
