"""Working latency in the window, used as a person uses it: tick Working latency, run a short
study against this computer, watch the probes' round trips beside the throughput, read the
latency columns and the method in the log, the results and the stored session's view."""

from __future__ import annotations

from app.ui.common.latency_chart import LatencyChart
from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def test_a_study_with_working_latency_against_this_computer(window: MainWindow, user: User) -> None:
    user.check("Working latency")
    plan_sweep(user, "1408", runs=2, seconds=2)
    assert "4 runs" not in user.text("Estimated time")  # 2 runs: the idle probes counted
    user.tab("Advanced")
    assert user.find("Latency responder port").isEnabled()
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: user.can_see("Latency chart"), 10, "the latency chart")
    chart = user.find("Latency chart", LatencyChart)
    wait_for(lambda: chart.median("idle") is not None, 30, "the idle probes on the chart")
    wait_for(lambda: chart.median("loaded") is not None, 30, "the loaded probes on the chart")
    assert user.can_see("Current run chart")  # throughput beside it
    wait_for(lambda: not window.measure.running, 60, "the study")
    assert "completed" in user.text("Status")
    assert "Latency measured with LinkLab's UDP echo on 127.0.0.1 port" in user.text("Log")
    headers = user.headers("Results")
    assert {"Idle latency ms", "Loaded latency ms", "Loaded p90 ms"} <= set(headers)
    (row,) = user.table_rows("Results")
    loaded = float(row[headers.index("Loaded latency ms")])
    assert loaded > 0
    user.tab("Latency")  # the sweep's latency by point
    # The stored session shows the same columns and says how latency was measured.
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.table_rows("Session results"), 5, "the session's table")
    (stored,) = user.table_rows("Session results")
    assert stored[1:] == row[1:]  # the live table names the series more briefly
    assert "Working latency by udp-echo" in user.text("Session details")
    user.tab("Latency")


def test_the_responder_port_is_greyed_out_without_working_latency(
    window: MainWindow, user: User
) -> None:
    user.check("Working latency", False)
    user.tab("Advanced")
    port = user.find("Latency responder port")
    assert not port.isEnabled() and "Working latency" in port.toolTip()
