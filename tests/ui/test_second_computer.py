"""The second computer as a newcomer meets it in the window: the ports a typed peer starts
from, what a wrong address or name is told and where the cursor goes, and a retry that
worked told quietly. Every control is found by its label and driven by clicks and keys."""

from __future__ import annotations

import socket

import pytest
from PySide6.QtWidgets import QApplication, QComboBox

from app.domain.errors import LinkLabError
from app.domain.plan import Engine, RunKey
from app.engine.drivers.fake import FakeDriver
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import ConnectionRefused
from app.engine.serving.discovery import discover, discover_request, parse_announcement
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.testbed import NeighbourBed
from tests.ui.journey import nothing_answers
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


def peer_has_focus(user: User) -> bool:
    combo = user.find("Peer", QComboBox)
    return QApplication.focusWidget() in (combo, combo.lineEdit())


@pytest.mark.usefixtures("iperf3_tool")
def test_an_address_where_nothing_answers_is_said_first_and_the_cursor_goes_back_to_it(
    window: MainWindow, user: User
) -> None:
    with nothing_answers(window.context):
        user.type("Peer", "127.0.0.1")
        user.type("Values list", "1408")
        user.click("Start")
        wait_for(lambda: "Nothing answered" in user.text("Peer check"), 20, "the check")
    said = user.text("Peer check")
    assert said.index("Nothing answered at 127.0.0.1") < said.index("start an iperf3 server")
    assert "no computer there replied at all" in said
    wait_for(lambda: not window.measure.running, 10)
    wait_for(lambda: peer_has_focus(user), 5, "the cursor in the peer field")


@pytest.mark.usefixtures("iperf3_tool")
def test_an_unknown_name_puts_the_cursor_in_the_peer_field(window: MainWindow, user: User) -> None:
    user.type("Peer", "no-such-host.invalid")
    user.type("Values list", "1408")
    user.click("Start")
    wait_for(lambda: "could not be resolved" in user.text("Peer check"), 20, "the check")
    wait_for(lambda: peer_has_focus(user), 5, "the cursor in the peer field")
    # Check peer says the same, and puts the cursor there too.
    user.type("iperf3 port", "5999")
    user.click("Check peer")
    wait_for(lambda: "could not be resolved" in user.text("Peer check"), 20, "the check")
    wait_for(lambda: peer_has_focus(user), 5, "the cursor in the peer field")


@pytest.mark.usefixtures("iperf3_tool")
def test_a_retry_that_works_is_a_quiet_note_and_one_that_fails_an_error(
    window: MainWindow, user: User
) -> None:
    # LinkLab's own decision about a refusal: the engine's part is a stand-in that is refused
    # once (as a server still ending the test before refuses), at the second run.
    def refuse(key: RunKey, attempt: int) -> LinkLabError | None:
        if key.repetition == 2 and (attempt == 1 or key.value_index == 1):
            return ConnectionRefused("::1", 51531, "iperf3 server", "iperf3 -s")
        return None

    window.context.drivers = {**DRIVERS, Engine.IPERF3: FakeDriver(fail=refuse)}
    user.type("Values list", "128, 1408")
    user.type("Runs per point", "2")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 60, "the study to end")
    log = user.text("Log").splitlines()
    notes = [line for line in log if "did not start at once" in line]
    assert len(notes) == 2  # each point's first try (a refusal is retried once)
    assert all("Error" not in line and "trying again" in line for line in notes)
    errors = [line for line in log if "Error:" in line]
    # The retry at 128 B worked: no error. At 1408 B the last try failed too: that one is.
    assert len(errors) == 2, log
    # Refused by a server that answered the run before: it stopped, and the sentence says so.
    assert "port 51531 stopped during run 4: it answered run 3" in errors[0]
    assert "Restart it on the peer" in errors[0]
    assert "completed with failures" in errors[1]


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_find_computers_offers_a_second_computer_with_its_engines(
    window: MainWindow, user: User, neighbour: NeighbourBed
) -> None:
    neighbour.serve("--no-netserver", "--port", "5301")
    # The search goes out on the link to the second computer only (not this machine's LAN).
    window.context.find_peers = lambda port: discover(port, interfaces=[neighbour.here])
    user.click("Find computers")
    wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 10, "the search")
    name = socket.gethostname()  # the namespace shares this computer's host name
    offered = f"{name} ({neighbour.THERE4}) · iperf3"
    assert offered in user.options("Peer")
    user.choose("Peer", offered)
    note = user.text("Peer check")
    assert note.startswith(f"{name} at {neighbour.THERE4}; also ")
    assert neighbour.THERE6 in note and "iperf3 port 5301, latency responder port 5200" in note
    assert user.text("iperf3 port") == "5301"  # the port it announced
    assert user.text("Peer IPv6 address") == neighbour.THERE6  # for the IPv6 series
    user.type("Peer", "localhost")  # another computer: not that one's IPv6 address
    assert user.text("Peer IPv6 address") == ""
    user.choose("Peer", offered)
    # Start measures it there, and its address (not the label) is what was measured.
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 60, "the study to end")
    assert "completed" in user.text("Status"), user.text("Log")
    assert window.context.peer_history()[0] == neighbour.THERE4


@pytest.mark.usefixtures("iperf3_tool")
def test_a_search_that_finds_nothing_says_what_to_do(window: MainWindow, user: User) -> None:
    window.context.find_peers = lambda port: discover(port, 0.3, interfaces=["lo"])
    user.click("Find computers")
    wait_for(lambda: "No computer" in user.text("Peer check"), 10, "the search")
    assert "start LinkLab's servers there (linklab serve)" in user.text("Peer check")
    assert user.options("Peer")[0] == "This computer"


@pytest.mark.usefixtures("iperf3_tool")
def test_the_server_tab_answers_another_computers_search(window: MainWindow, user: User) -> None:
    user.tab("Server")
    port = free_port()
    user.type("iperf3 server port", str(port))
    user.click("Start the iperf3 server")
    wait_for(lambda: "Listening on port" in user.text("iperf3 server status"), 10, "the server")
    echo_port = window.context.default_port("echo")
    assert f"Latency responder listening on UDP port {echo_port}" in user.text("Server log")
    # What another computer's search gets (asked here over the loopback, which a search on
    # the network never uses).
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(5)
        sock.sendto(discover_request(), ("127.0.0.1", echo_port))
        found = parse_announcement(sock.recv(4096), "127.0.0.1")
    assert found is not None and found.engines == {"iperf3": port}
    assert found.name == socket.gethostname()
    user.click("Stop the iperf3 server")
    wait_for(lambda: "Stopped" in user.text("iperf3 server status"), 10, "the server to stop")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", echo_port))  # the responder stopped with the last server
