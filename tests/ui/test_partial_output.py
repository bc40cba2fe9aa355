"""A run stopped part way keeps the engine's output until then as its raw output (the guide's
"the output until then"), whether Stop (Esc) or closing the window stopped it: the database
reopened holds, with the partial run, the engine's lines of the intervals it kept."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.partial_output import assert_output_holds_the_intervals, stopped_run
from tests.ui.test_closing import close_answering_yes
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3


def start_a_long_run(user: User) -> None:
    """One run of 30 s started, once three of its intervals are charted."""
    plan_sweep(user, "1408", runs=1, seconds=30)
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 3, 30, "three intervals")  # type: ignore[attr-defined]


def test_stop_mid_run_keeps_the_engine_output_until_then(window: MainWindow, user: User) -> None:
    start_a_long_run(user)
    # What Stop says it does, before and after: the run in progress is kept, as closing says.
    assert "the run in progress is kept unfinished" in user.find("Stop").toolTip()
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 10, "Stop")
    run, samples = stopped_run(window.context.db_path)
    assert_output_holds_the_intervals(run, samples)
    said = user.text("Status")
    kept = (
        "no run had finished, and the run in progress is kept unfinished with the "
        f"{len(samples)} intervals it measured; Resume in Sessions measures it again."
    )
    assert said == f"Session {run.session_id[:8]} stopped: {kept}", said
    assert said in user.text("Log")


def test_closing_mid_run_keeps_the_engine_output_until_then(window: MainWindow, user: User) -> None:
    start_a_long_run(user)
    close_answering_yes(window, user)
    assert_output_holds_the_intervals(*stopped_run(window.context.db_path))
