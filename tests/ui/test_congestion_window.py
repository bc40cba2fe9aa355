"""A sweep over TCP congestion control measured and compared the way a person does it: chosen
in Sweep with its names typed in the values list, shown as named points on the sweep chart and
in the results table, and compared in the Compare tab like any other point."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def measure(user: User, window: MainWindow, name: str) -> None:
    user.tab("Measure")
    user.choose("Sweep", "Congestion control")
    user.type("Values list", "reno, cubic")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", name)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, f"the {name} session")
    assert "completed" in user.text("Status")


def axis_names(chart: object) -> list[str]:
    """The names the chart's x axis shows under its points."""
    ticks = chart.getPlotItem().getAxis("bottom")._tickLevels  # type: ignore[attr-defined]
    return [text for _, text in ticks[0]] if ticks else []


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_congestion_control_sweep_is_charted_and_compared_by_name(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    user.choose("Sweep", "Congestion control")
    assert user.text("Values list") == "cubic, reno"  # the field's examples, to start from
    measure(user, window, "cc one")
    assert [row[1] for row in user.table_rows("Results")] == ["reno", "cubic"]
    assert axis_names(window.measure.study_charts.sweep_chart) == ["reno", "cubic"]
    measure(user, window, "cc two")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 5, "both sessions")
    user.click_row("Sessions", 0)
    view = window.sessions.shown.view
    wait_for(lambda: view.session_id is not None, 10, "the session to be shown")
    view.throughput_chart.redraw()
    assert axis_names(view.throughput_chart) == ["reno", "cubic"]
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 1, 10, "the sessions to be read")
    rows = user.table_rows("Differences")
    assert [row[2] for row in rows] == ["reno", "cubic"]  # named, in the sweep's order
    assert axis_names(window.compare_tab.chart) == ["reno", "cubic"]
