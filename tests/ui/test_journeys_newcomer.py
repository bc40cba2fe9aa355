"""The newcomer's journeys across features, in the real window with real engines, each to the
files it produced, opened and checked: a second computer found on the network (answering only
by IPv6 link-local, as on a point-to-point link) chosen, a TCP and UDP sweep measured there,
its series compared within it and exported as chart, table, HTML and PDF report, each opened
and checked by its pixels; and a first start measuring this computer, exported the same way."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QScrollArea

from app.engine.serving.discovery import (
    FoundPeer,
    announcement,
    discover,
    parse_announcement,
    serve_facts,
)
from app.ui.main_window import MainWindow
from tests.artifacts import CHROMIUM, NO_CHROMIUM, NO_POPPLER, PDFTOPPM
from tests.testbed import NeighbourBed, unavailable_reason
from tests.ui.journey import (
    check_csv,
    check_png,
    compare_session,
    confirmed,
    export_chart_and_table,
    save_as,
)
from tests.ui.test_export_journey import check_html, check_pdf
from tests.ui.user import User, wait_for

#: What a person must see whole on the Study page after choosing a found computer.
STUDY_CONTROLS = [
    "Peer",
    "Find computers",
    "Check peer",
    "iperf3 port",
    "Peer IPv6 address",
    "Engine",
    "Direction",
    "Protocol",
    "IP version",
    "Sweep",
    "Values list",
    "Command",
    "Start",
]


def whole(user: User, name: str) -> bool:
    widget = user.find(name)
    return user.on_screen(widget).size() == widget.size() and widget.width() > 0


def measure(user: User, window: MainWindow, name: str, protocol: str = "TCP") -> None:
    user.choose("Protocol", protocol)
    user.choose("IP version", "IPv4 and IPv6")
    user.type("Values list", "128, 1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", name)
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 120, "the study to end")
    assert "completed" in user.text("Status") and "fail" not in user.text("Status"), user.text(
        "Log"
    )


def exported_and_checked(user: User, window: MainWindow, name: str, folder: Path) -> None:
    compare_session(user, window, name)
    (pair,) = user.table_rows("Pairs compared")
    assert "IPv4" in pair[0] and "IPv6" in pair[0]
    png, table = export_chart_and_table(user, folder)
    check_png(png)
    (session,) = [s for s in window.context.door().sessions().readable() if s.name == name]
    runs = window.context.door().sessions().runs(session.id)
    assert check_csv(table, runs) == 2  # one row per packet size


@pytest.fixture
def neighbour() -> Iterator[NeighbourBed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with NeighbourBed(point_to_point=True) as bed:
        yield bed


@pytest.mark.netns
@pytest.mark.skipif(PDFTOPPM is None, reason=NO_POPPLER)
@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
@pytest.mark.usefixtures("iperf3_tool")
def test_a_found_computer_is_measured_and_its_chart_and_table_exported(
    window: MainWindow, user: User, neighbour: NeighbourBed, tmp_path: Path
) -> None:
    neighbour.serve("--no-netserver")
    searches: list[list[FoundPeer]] = []

    def search(port: int) -> list[FoundPeer]:
        # The search goes out on the link to the second computer only.
        searches.append(discover(port, interfaces=[neighbour.here]))
        return searches[-1]

    window.context.find_peers = search
    user.click("Find computers")
    wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 10, "the search")
    (found,) = searches[-1]
    # No IPv4 broadcast reaches it: its answer came by IPv6 (link-local multicast)...
    assert ":" in found.address, found
    # ...and still the list offers its IPv4 address, and the form takes it and its IPv6 one.
    offered = f"{socket.gethostname()} ({neighbour.THERE4}) · iperf3"
    assert offered in user.options("Peer")
    user.choose("Peer", offered)
    assert user.text("Peer") == neighbour.THERE4  # its address in the field
    assert user.text("Peer IPv6 address") == neighbour.THERE6
    assert user.text("iperf3 port") == "5201"
    command = user.text("Command")
    assert f"-c {neighbour.THERE4}" in command and "No command yet" not in command, command
    assert "IPv6 address, but IPv4" not in user.text("Peer check")
    assert all(whole(user, name) for name in STUDY_CONTROLS)
    measure(user, window, "Found computer", protocol="TCP and UDP")
    log = user.text("Log")
    assert neighbour.THERE4 in log and neighbour.THERE6 in log  # every series went there
    # Its series compared within it: like with like, one difference per pair.
    compare_session(user, window, "Found computer")
    pairs = [row[0] for row in user.table_rows("Pairs compared")]
    assert len(pairs) == 4, pairs
    png, table = export_chart_and_table(user, tmp_path)
    check_png(png)
    (session,) = [
        s for s in window.context.door().sessions().readable() if s.name == "Found computer"
    ]
    runs = window.context.door().sessions().runs(session.id)
    assert check_csv(table, runs) == 4 * 2  # every pair at both packet sizes
    # The reports a student hands in: opened, rendered, nothing at an edge, every point in.
    html, pdf = tmp_path / "found.html", tmp_path / "found.pdf"
    for path, button in ((html, "HTML report…"), (pdf, "PDF report…")):
        with user.answering(save_as(path)):
            user.click(button)
        wait_for(path.exists, 60, path.name)
        confirmed(user, path)
    check_html(html, tmp_path / "html")
    text = check_pdf(pdf, tmp_path / "pdf")
    assert "Significant" in text and "1408" in text and "128" in text


@pytest.mark.usefixtures("iperf3_tool")
def test_a_first_start_measures_this_computer_and_exports_chart_and_table(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    assert user.text("Peer") == "This computer"  # the first start's default
    assert not window.context.door().sessions().readable()  # nothing measured yet
    measure(user, window, "First look")
    exported_and_checked(user, window, "First look", tmp_path)


LONG_NAME = "physics-lab-workstation-seventeen-by-the-door.example.org"


def long_found() -> FoundPeer:
    """A computer with a long name and long addresses, as its announcement gives it."""
    facts = serve_facts(LONG_NAME, {"iperf3": 5201, "netperf": 12865, "iperf2": 5001}, 5200, "1")
    facts["addresses"] = [
        "10.200.113.254",
        "2001:db8:85a3:1234:5678:8a2e:370:7334",
        "fd17:625c:f037:2:a00:27ff:fe4e:66a1",
    ]
    found = parse_announcement(announcement(facts), "fe80::a00:27ff:fe4e:66a1%enp0s31f6")
    assert found is not None
    return found


@pytest.mark.usefixtures("iperf3_tool")
@pytest.mark.parametrize("size", [(1280, 800), (1280, 720)])
def test_choosing_a_found_computer_with_long_addresses_keeps_the_study_page_whole(
    window: MainWindow, user: User, size: tuple[int, int]
) -> None:
    window.resize(*size)
    window.context.find_peers = lambda port: [long_found()]
    user.click("Find computers")
    wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 10, "the search")
    (offered,) = [o for o in user.options("Peer") if LONG_NAME in o]
    assert "(10.200.113.254)" in offered
    user.choose("Peer", offered)
    assert user.text("Peer") == "10.200.113.254"
    assert user.text("Peer IPv6 address") == "2001:db8:85a3:1234:5678:8a2e:370:7334"
    assert "-c 10.200.113.254" in user.text("Command")
    page = window.measure.setup.pages.currentWidget()
    assert isinstance(page, QScrollArea)
    content = page.widget()
    assert content is not None
    # The page keeps its pane's width: nothing hides past a right edge that cannot scroll.
    wait_for(lambda: content.width() <= page.viewport().width(), 5, "the page to fit")
    cut = [name for name in STUDY_CONTROLS if not whole(user, name)]
    assert not cut, f"cut off after choosing the found computer: {cut}"
    # A found computer the form must refuse for an IPv4 series (it announced no address but
    # the link-local one its answer came from), marked red: the field's restyling must not
    # size it to its longest item, even once the window is laid out again.
    bare = parse_announcement(
        announcement({**serve_facts(LONG_NAME[:40], {}, 5200, "1")}),
        "fe80::a00:27ff:fe4e:66a1%enp0s31f6",
    )
    assert bare is not None
    window.context.find_peers = lambda port: [replace(bare, addresses=())]
    user.click("Find computers")
    wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 10, "the search")
    (offered,) = [o for o in user.options("Peer") if "fe80::" in o]
    user.choose("Peer", offered)
    wait_for(lambda: "No command yet" in user.text("Command"), 5, "the refusal")
    for again in ((size[0], size[1] - 40), size):  # a relayout, as any resize makes
        window.resize(*again)
        wait_for(lambda a=again: window.size().toTuple() == a, 5, "the window's size")
    wait_for(lambda: content.width() <= page.viewport().width(), 5, "the page to fit")
    cut = [name for name in STUDY_CONTROLS if not whole(user, name)]
    assert not cut, f"cut off with the found computer refused: {cut}"
