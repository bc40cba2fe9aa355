"""The second computer as a newcomer meets it in the window: the ports a typed peer starts
from, what a wrong address or name is told and where the cursor goes, and a retry that
worked told quietly. Every control is found by its label and driven by clicks and keys."""

from __future__ import annotations

import socket

import pytest

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def ports(user: User) -> tuple[str, str]:
    return user.text("iperf3 port"), user.text("netserver port")


def run_one_second(user: User, window: MainWindow) -> None:
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 60, "the study to end")


@pytest.mark.usefixtures("iperf3_tool")
def test_a_typed_peer_starts_from_the_default_ports_and_keeps_its_own(
    window: MainWindow, user: User, iperf3_server_port: tuple[int, object]
) -> None:
    defaults = (
        str(window.context.default_port("iperf3")),
        str(window.context.default_port("netperf")),
    )
    # A study on this computer shows the ports its own servers picked: with the default
    # taken by another program, another one.
    with socket.socket() as held:
        held.bind(("127.0.0.1", int(defaults[0])))
        held.listen()
        run_one_second(user, window)
    assert "completed" in user.text("Status")
    assert user.text("iperf3 port") != defaults[0]
    # Another computer typed next starts from the defaults in Settings, not those.
    user.type("Peer", "127.0.0.1")
    assert ports(user) == defaults
    # A port typed for a peer that answers is kept with it in the history...
    port, _server = iperf3_server_port
    user.type("iperf3 port", str(port))
    run_one_second(user, window)
    assert "completed" in user.text("Status")
    user.choose("Peer", "This computer")
    user.type("Peer", "localhost")
    assert ports(user) == defaults  # ...and not given to another peer...
    user.choose("Peer", "127.0.0.1")
    assert ports(user) == (str(port), defaults[1])  # ...but back with its own.
    # Settings' defaults apply to peers with no port of their own.
    window.context.set_default_port("iperf3", 5301)
    user.type("Peer", "localhost")
    assert user.text("iperf3 port") == "5301"
