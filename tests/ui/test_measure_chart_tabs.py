"""The Measure tab's charts by point, as a person meets them: a tab for each metric the plan
measures, none for what it does not, and an empty chart that says when its points come
instead of a blank plot."""

from __future__ import annotations

import pytest

from app.ui.common.charts import SweepChart
from app.ui.main_window import MainWindow
from app.ui.measure.study_charts import COMING
from tests.ui.test_measure import plan_sweep
from tests.ui.user import Unreachable, User, wait_for


def tab_shown(user: User, text: str) -> bool:
    try:
        user.tab(text)
    except Unreachable:
        return False
    return True


def sweep_to_points(window: MainWindow, user: User, tab: str, chart: SweepChart) -> None:
    """Start on the Study page, the sweep to its end, and the chart on its tab with its two
    points, its sentence given way to them."""
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 90, "the sweep")
    assert "completed" in user.text("Status"), user.text("Log")
    user.tab(tab)
    wait_for(lambda: chart.point_count() == 2, 5, "both points")
    wait_for(lambda: chart.empty_note == "", 5, "the sentence to give way to the points")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_each_chart_tab_is_there_for_what_the_plan_measures(window: MainWindow, user: User) -> None:
    user.choose("Protocol", "UDP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, "128, 1408")
    user.check("CPU", True)
    user.check("Working latency", False)
    # Before Start: the charts of what the plan measures, each saying when its points come.
    user.tab("Sweep")
    chart = user.find("Sweep chart", SweepChart)
    wait_for(lambda: chart.empty_note == COMING, 5, "the empty chart's sentence")
    assert COMING in user.visible_text()
    assert tab_shown(user, "CPU")
    assert not tab_shown(user, "RTT") and not tab_shown(user, "Latency")
    # Ticking Working latency gives its tab; unticking takes it away again.
    user.tab("Study")
    user.check("Working latency", True)
    assert tab_shown(user, "Latency")
    user.tab("Study")
    user.check("Working latency", False)
    assert not tab_shown(user, "Latency")
    sweep_to_points(window, user, "Sweep", chart)
    assert COMING not in user.visible_text()
    # UDP gives no round-trip time: no RTT tab, never a blank one.
    assert not tab_shown(user, "RTT")

    # Nor for TCP with iperf3: round-trip time comes from netperf's request/response test.
    user.tab("Study")
    user.choose("Protocol", "TCP")
    assert not user.find("RTT").isEnabled()
    assert not tab_shown(user, "RTT")


@pytest.mark.netperf
def test_ticking_rtt_gives_its_chart_and_its_points(
    window: MainWindow, user: User, netperf_tool: object
) -> None:
    user.choose("Engine", "netperf")
    user.choose("Protocol", "TCP")
    user.check("Working latency", False)
    plan_sweep(user, "128, 1408")
    assert not tab_shown(user, "RTT")
    user.tab("Study")
    user.check("RTT")
    assert tab_shown(user, "RTT")
    rtt = user.find("RTT chart", SweepChart)
    wait_for(lambda: rtt.empty_note == COMING, 5, "the empty chart's sentence")
    sweep_to_points(window, user, "RTT", rtt)
