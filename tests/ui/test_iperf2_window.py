"""iperf2 in the window, found by its visible labels: offered wherever an engine is chosen, the
options it lacks greyed out with the reason, its round trips, its port, its server, and a
study against this computer's own iperf 2 servers."""

from __future__ import annotations

import sys

import pytest

from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Metric
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineMissing
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


@pytest.fixture
def iperf2() -> None:
    try:
        find_tool("iperf")
    except EngineMissing as err:
        pytest.skip(f"iperf 2 is not installed: {err.sentence}")


@pytest.mark.usefixtures("iperf2")
def test_iperf2_is_chosen_and_what_it_lacks_is_greyed_out_saying_why(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    assert "iperf2" in user.options("Engine")
    user.choose("Engine", "iperf2")
    user.tab("Advanced")
    omit = user.find("Warm-up (omit)")
    assert not omit.isEnabled()
    assert "iperf2 has no warm-up" in omit.toolTip() and "iperf3" in omit.toolTip()
    for name in ("TCP window", "Parallel streams"):
        assert user.find(name).isEnabled(), name  # iperf 2 has -w and -P
    user.tab("Study")
    assert user.find("RTT").isEnabled()  # --bounceback
    user.check("RTT")
    user.choose("Protocol", "TCP and UDP")
    assert "TCP only" in user.visible_text()  # RTT over UDP is refused at its field
    user.choose("Protocol", "TCP")
    user.type("Values list", "68, 1408")
    plan = window.measure.setup.plan()
    assert plan is not None and plan.engine is Engine.IPERF2
    assert Metric.RTT in plan.metrics and plan.protocols == (Protocol.TCP,)
    assert user.find("iperf 2 port").isVisibleTo(window)


@pytest.mark.usefixtures("iperf2", "iperf3_tool")  # iperf3 too: it is chosen, then iperf2
def test_clocks_synchronised_is_iperf2s_and_a_tcp_upload_is_refused(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    user.choose("Engine", "iperf3")
    user.tab("Advanced")
    clocks = user.find("Clocks synchronised")
    assert not clocks.isEnabled()  # greyed for iperf3, saying why and what measures it
    assert "iperf3 does not measure one-way delay" in clocks.toolTip()
    assert "iperf2" in clocks.toolTip()
    user.tab("Study")
    user.choose("Engine", "iperf2")
    user.tab("Advanced")
    assert clocks.isEnabled()
    assert "synchronised" in clocks.toolTip() and "offset" in clocks.toolTip()
    user.check("Clocks synchronised")
    # An upload over TCP: only the peer sees the delay, so the form says what to choose.
    assert "iperf 2 reports one-way delay where the data arrives" in user.visible_text()
    assert window.measure.setup.plan() is None
    user.tab("Study")
    user.choose("Direction", "Download")
    user.type("Values list", "1408")
    plan = window.measure.setup.plan()
    assert plan is not None and plan.clocks_synchronised and plan.direction is Direction.DOWN
    assert "where the data arrives" not in user.visible_text()
    user.tab("Advanced")
    user.check("Clocks synchronised", on=False)
    plan = window.measure.setup.plan()
    assert plan is not None and not plan.clocks_synchronised


@pytest.mark.usefixtures("iperf2")
def test_a_study_with_iperf2_against_this_computer(window: MainWindow, user: User) -> None:
    user.tab("Measure")
    user.choose("Engine", "iperf2")
    user.choose("Protocol", "TCP and UDP")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.click("Start")
    wait_for(lambda: "completed" in user.visible_text(), timeout=90, what="the study to end")
    program = "iperf.exe" if sys.platform == "win32" else "iperf"
    assert f"{program} -c 127.0.0.1" in user.visible_text()  # the command line shown


@pytest.mark.usefixtures("iperf2")
def test_the_server_tab_runs_iperf2s_servers(window: MainWindow, user: User) -> None:
    user.tab("Server")
    user.click("Start the iperf 2 server")
    wait_for(
        lambda: "Listening on port" in user.visible_text(), what="the iperf 2 server to listen"
    )
    servers = window.servers.servers(Engine.IPERF2)
    assert [s.name for s in servers] == ["iperf 2 server", "iperf 2 UDP server"]
    assert all(s.running for s in servers)
    # What Windows' firewall asks of the program (iperf.exe), said in the log there only.
    said = "Windows Firewall may ask whether iperf.exe may accept connections"
    assert (said in user.text("Server log")) == (sys.platform == "win32")
    user.click("Stop the iperf 2 server")
    wait_for(lambda: window.servers.servers(Engine.IPERF2) == [], what="the servers to stop")
