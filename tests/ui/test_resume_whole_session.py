"""A session resumed from the Sessions tab is shown whole on the Measure tab, as its stored
view shows it: the points it had measured before (their runs kept) and those the resume
measures, in the Sweep chart and the results table alike."""

from __future__ import annotations

import pytest

from app.ui.common.charts import SweepChart
from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

SIZES = ("128", "640", "1408")


def by_point(rows: list[list[str]], headers: list[str]) -> dict[str, tuple[str, str]]:
    """A results table's rows by packet size: (n, mean) as shown."""
    at = {name: headers.index(name) for name in ("n", "Mean")}
    value = 1  # after the series
    return {row[value]: (row[at["n"]], row[at["Mean"]]) for row in rows}


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_resumed_session_is_shown_whole_on_the_measure_tab(
    window: MainWindow, user: User
) -> None:
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, ", ".join(SIZES), runs=1, seconds=1)
    user.tab("Advanced")
    user.type("Pause between runs", "3")  # Stop lands between two runs
    user.tab("Study")
    user.click("Start")
    progress = user.find("Progress")
    wait_for(lambda: progress.value() >= 1, 60, "the first run")  # type: ignore[attr-defined]
    user.click("Stop")
    wait_for(lambda: not window.measure.running, 30, "the study to stop")
    assert "stopped" in user.text("Status"), user.text("Log")

    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    user.click("Resume")
    wait_for(lambda: window.measure.running, 10, "the resume to start")
    wait_for(lambda: not window.measure.running, 120, "the resume to end")
    assert "completed" in user.text("Status"), user.text("Log")
    live = by_point(user.table_rows("Results"), user.headers("Results"))
    assert set(live) == set(SIZES) and all(n == "1" for n, _ in live.values()), live
    user.tab("Sweep")
    chart = user.find("Sweep chart", SweepChart)
    assert chart.point_count() == len(SIZES)

    # The stored session says the same, point by point.
    user.tab("Sessions")
    user.click("Refresh")
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's table")
    stored = by_point(user.table_rows("Session results"), user.headers("Session results"))
    assert stored == live
