"""A newcomer's journey across features: a second computer typed on the Measure tab (a
LinkLab server on this computer's loopback at a port of its own), checked there, then chosen
on the Responsiveness tab without typing it again, tested twice, and the two results compared
in Sessions: the comparison names them apart, and its figures are the two cards'."""

from __future__ import annotations

import re
import signal

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.test_cli_serve import serving
from tests.ui.test_responsiveness_history import row_of, sessions_tab
from tests.ui.test_responsiveness_tab import short_test
from tests.ui.user import User, wait_for

WAYS = ("Download", "Upload", "Both at once")
KEPT = re.compile(r"Kept in Sessions as “([^”]+)”")


def one_test(window: MainWindow, user: User) -> tuple[str, dict[str, str]]:
    """Start, wait for the result to be kept: its name and each direction's RPM as shown."""
    user.click("Start responsiveness test")
    wait_for(lambda: window.responsiveness.running, 10, "the test to start")
    wait_for(lambda: KEPT.search(user.text("Responsiveness status")), 120, "the result kept")
    wait_for(lambda: user.find("Start responsiveness test").isEnabled(), 15, "Start again")
    kept = KEPT.search(user.text("Responsiveness status"))
    assert kept is not None
    rpms = {way: user.text(f"{way} RPM").removesuffix(" RPM") for way in WAYS}
    return kept.group(1), rpms


@pytest.mark.slow
@pytest.mark.timeout(300)  # a whole journey: longer than one feature's test on a busy machine
@pytest.mark.usefixtures("iperf3_tool")  # the peer's iperf3 server and this computer's client
def test_a_peer_typed_on_measure_tested_twice_and_compared(window: MainWindow, user: User) -> None:
    port = free_port()
    # The lab's LinkLabs run their latency responders on a port of their own, as Settings
    # names it here (and so no other LinkLab on this computer answers in the peer's place).
    echo = free_port()
    user.tab("Settings")
    user.type("Latency responder", str(echo), enter=True)
    assert window.context.default_port("echo") == echo
    user.tab("Measure")
    with serving("--echo-port", str(echo), port=port) as (server, _said):
        # On Measure: the second computer typed and checked (it is remembered once it answers).
        user.type("Peer", "127.0.0.1")
        user.type("iperf3 port", str(port))
        user.click("Check peer")
        wait_for(lambda: "iperf3 answers" in user.text("Peer check"), 15, "the check")

        # On Responsiveness it is offered, with the port it answered on.
        short_test(user)
        assert "127.0.0.1" in user.options("Responsiveness peer")
        user.choose("Responsiveness peer", "127.0.0.1")
        assert user.text("Responsiveness iperf3 port") == str(port)
        first, first_rpm = one_test(window, user)
        assert user.text("Result title") == "Responsiveness to 127.0.0.1"
        assert f"LinkLab's UDP echo on 127.0.0.1 port {echo}." in user.text("Latency method")
        second, second_rpm = one_test(window, user)
        server.send_signal(signal.SIGINT)  # the peer's LinkLab stopped (Ctrl+C)
        server.wait(15)
    assert first != second, "two tests of one peer share a name"
    assert first.startswith("Responsiveness to 127.0.0.1 at ")

    # Sessions: both listed; compared, the older the baseline.
    rows = sessions_tab(user, 2)
    user.click_row("Sessions", row_of(rows, first))
    user.click_row("Sessions", row_of(rows, second), Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: user.can_see("Responsiveness differences"), 15, "the comparison")
    title = user.text("Comparison title")
    assert title.startswith(f"“{second}” against the baseline “{first}”"), title
    assert f"Comparing “{second}” with “{first}” below." in user.text("Sessions message")
    findings = user.text("Comparison findings").split("\n\n")
    assert len(findings) == len(WAYS)
    # Each direction both measured names the two results apart (one whose probes all went
    # unanswered under load on a busy machine says that instead, naming the side).
    compared = [s for s in findings if "not compared" not in s]
    assert compared, findings
    for sentence in compared:
        assert f"“{first}”" in sentence and f"“{second}”" in sentence, sentence
    # The figures are the two results' own, as their cards showed them.
    headers = user.headers("Responsiveness differences")
    table = {row[0]: dict(zip(headers, row, strict=True)) for row in user.table_rows(
        "Responsiveness differences")}  # fmt: skip
    for way in WAYS:
        assert table[way]["Baseline RPM"] == first_rpm[way]
        assert table[way]["RPM"] == second_rpm[way]
