"""What the window says is about what happens now: the status bar gives the time left as a
figure from the first run on (the plan's estimate until runs are timed), a resume too; a
resume's greyed Study page shows the plan it runs, and the form comes back afterwards; the
progress bar of a finished study empties when another plan is set up, and a start that never
began leaves it empty, not busy; the notice of a file saved goes when a measurement starts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.ui.journey import save_as
from tests.ui.test_measure import plan_sweep, watch_runs
from tests.ui.test_saved_notices import one_session_open
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3

#: A status bar naming a run: "… · 1/4 runs done · 0:06 left".
TIME_LEFT = re.compile(r" · \d+/\d+ runs done · (\d+:\d\d|\d+ h \d\d min) left$")


def test_the_time_left_is_a_figure_from_the_first_run_and_on_a_resume(
    window: MainWindow, user: User
) -> None:
    plan_sweep(user, "256, 1408", runs=2, seconds=2)
    seen = watch_runs(user)
    user.click("Start")
    wait_for(lambda: len(seen) >= 2, 60, "two runs")
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 15, "Stop")
    assert all(TIME_LEFT.search(status) for _title, status in seen), seen
    assert user.find("Progress").text() == "1 / 4 runs"  # type: ignore[attr-defined]

    # Resumed from Sessions: the greyed form shows the plan it runs, the time left a figure.
    user.type("Values list", "128, 640, 1024")
    user.type("Session name", "another plan")
    assert user.find("Progress").text() == ""  # type: ignore[attr-defined]  # not this plan's
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the stopped session")
    user.click_row("Sessions", 0)
    user.click("Resume")  # the window goes to the Measure tab
    resumed = watch_runs(user)
    wait_for(lambda: resumed, 30, "the resumed run")
    assert TIME_LEFT.search(resumed[0][1]), resumed
    user.tab("Measure")
    assert user.text("Values list") == "256, 1408"
    assert user.text("Session name") != "another plan"
    assert user.text("Runs per point") == "2"
    wait_for(lambda: len(resumed) >= 2, 60, "a second resumed run")
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 15, "Stop")
    assert all(TIME_LEFT.search(status) for _title, status in resumed), resumed
    # Over: the form the user had set up is back, the progress of the resume still shown.
    assert user.text("Values list") == "128, 640, 1024"
    assert user.text("Session name") == "another plan"
    assert re.fullmatch(r"\d / 4 runs", user.find("Progress").text())  # type: ignore[attr-defined]


def test_a_start_the_peer_refused_leaves_the_progress_bar_empty(
    window: MainWindow, user: User
) -> None:
    user.type("Peer", "127.0.0.1")
    user.type("iperf3 port", str(free_port()))  # nothing listens there
    user.click("Start")
    wait_for(lambda: not window.measure.running, 30, "the peer check")
    progress = user.find("Progress")
    assert progress.maximum() > 0 and progress.text() == ""  # type: ignore[attr-defined]


def test_the_notice_of_a_file_saved_goes_when_a_measurement_starts(
    window: MainWindow, user: User, context: AppContext, tmp_path: Path
) -> None:
    one_session_open(user, context)
    out = tmp_path / "office.csv"
    with user.answering(save_as(out)):
        user.click("Export CSV…")
    wait_for(lambda: user.can_see("Saved files"), 10, "the notice")
    user.tab("Measure")
    assert not user.can_see("Saved files")  # the notice stays with the tab it was saved from
    plan_sweep(user, "1408", runs=1, seconds=1)
    user.click("Start")
    assert not user.can_see("Saved files")
    user.tab("Sessions")
    assert not user.can_see("Saved files")  # something new began: not back on its own tab
    user.tab("Measure")
    wait_for(lambda: not window.measure.running, 60, "the study")
