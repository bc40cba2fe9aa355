"""The status bar says what is wrong only while it is: a peer where nothing answered, once the
peer is corrected or answers, and a field Start refused, once it is valid, leave the status
bar (on every tab; it is the window's), as they leave the line under the field."""

from __future__ import annotations

import pytest

from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.process.servers import ServerOptions
from app.engine.process.tools import Tool
from app.ui.main_window import MainWindow
from tests.ui.journey import nothing_answers
from tests.ui.user import User, wait_for

TABS = ("Measure", "Sessions", "Compare", "Responsiveness")


def refused_at_start(window: MainWindow, user: User) -> str:
    user.type("Peer", "127.0.0.1")
    user.type("Values list", "1408")
    user.click("Start")
    wait_for(lambda: "Nothing answered" in user.text("Peer check"), 30, "the check")
    wait_for(lambda: not window.measure.running, 10)
    said = user.text("Status")
    assert said.startswith("Nothing answered at 127.0.0.1"), said
    for tab in TABS:  # still true, and said wherever the user looks
        user.tab(tab)
        assert user.text("Status") == said
    user.tab("Measure")
    return said


def status_cleared(user: User) -> None:
    for tab in TABS:
        user.tab(tab)
        assert "Nothing answered" not in user.text("Status"), tab
    user.tab("Measure")


@pytest.mark.usefixtures("iperf3_tool")
def test_a_refusal_goes_once_the_peer_is_corrected(window: MainWindow, user: User) -> None:
    with nothing_answers(window.context):
        refused_at_start(window, user)
        user.type("Peer", "localhost")  # another peer: nothing is known of it yet
    assert "Nothing answered" not in user.text("Peer check")
    status_cleared(user)


def test_a_refusal_goes_once_the_peer_answers(
    window: MainWindow, user: User, iperf3_tool: Tool
) -> None:
    with nothing_answers(window.context):
        refused_at_start(window, user)
    # The same peer, its server started since: Check peer hears it, and the error goes.
    server = iperf3_server(iperf3_tool, ServerOptions(window.context.default_port("iperf3")))
    server.start()
    try:
        user.click("Check peer")
        wait_for(lambda: "iperf3 answers" in user.text("Peer check"), 30, "the check")
    finally:
        server.stop()
    status_cleared(user)


@pytest.mark.usefixtures("iperf3_tool")
def test_a_field_start_refused_goes_once_it_is_valid(window: MainWindow, user: User) -> None:
    user.type("Values list", "12x")
    user.click("Start")
    said = user.text("Status")
    assert said.startswith("Fix Values"), said
    user.type("Seconds per run", "2")  # another field: the values are still wrong
    assert user.text("Status") == said
    user.type("Values list", "1408")
    status_cleared(user)
    assert user.text("Status") == ""


@pytest.mark.usefixtures("iperf3_tool")
def test_a_monitor_refused_is_said_at_the_peer_and_goes_with_it(
    window: MainWindow, user: User
) -> None:
    user.type("Peer", "127.0.0.1")
    user.tab("Monitor")
    with nothing_answers(window.context):
        user.click("Start monitor")
        wait_for(lambda: "Nothing answered" in user.text("Status"), 30, "the check")
        wait_for(lambda: not window.measure.running, 10)
        assert user.text("Peer check") == user.text("Status") == user.text("Monitor status")
        user.type("Peer", "localhost")
    assert "Nothing answered" not in user.text("Peer check")
    status_cleared(user)
    # The Monitor page's own line too: it says what Start monitor will do now.
    user.tab("Monitor")
    hint = "Start monitor measures one flow with localhost until Stop monitor."
    assert user.text("Monitor status") == hint


@pytest.mark.usefixtures("iperf3_tool")
def test_a_monitor_peer_that_does_not_resolve_goes_once_it_is_corrected(
    window: MainWindow, user: User
) -> None:
    user.tab("Monitor")
    user.type("Peer", "no-such-host.invalid")
    user.click("Start monitor")
    wait_for(lambda: "could not be resolved" in user.text("Monitor status"), 30, "the check")
    wait_for(lambda: not window.measure.running, 10)
    said = user.text("Monitor status")
    assert user.text("Peer check") == said
    user.tab("Study")  # the same peer, another field: what was said of it still holds
    user.type("Seconds per run", "2")
    user.tab("Monitor")
    assert user.text("Monitor status") == said
    user.type("Peer", "127.0.0.1")
    assert "could not be resolved" not in user.text("Peer check")
    assert "could not be resolved" not in user.text("Status")
    hint = "Start monitor measures one flow with 127.0.0.1 until Stop monitor."
    assert user.text("Monitor status") == hint
