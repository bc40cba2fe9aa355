"""A plan of one run, as the window says it: the estimate under the form and the log's
"started" line count it as one run, never "1 runs" (app.domain.units.counted writes both)."""

from __future__ import annotations

import re

import pytest

from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


@pytest.mark.usefixtures("iperf3_tool")
def test_one_run_is_said_as_one_run(window: MainWindow, user: User) -> None:
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    assert re.fullmatch(r"about \d+ s for 1 run", user.text("Estimated time"))
    user.type("Runs per point", "2")
    assert user.text("Estimated time").endswith(" for 2 runs")
    user.type("Runs per point", "1")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the study to start")
    wait_for(lambda: not window.measure.running, 60, "the study to end")
    started = [line for line in user.text("Log").splitlines() if " started: " in line]
    assert len(started) == 1 and started[0].endswith(" started: 1 run."), started
