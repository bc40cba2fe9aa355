"""Delete, then Undo delete, of the session the Measure tab shows: at the delete its charts,
results table and progress let go of it all alike; after Undo they show it again as before."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QProgressBar

from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def measure_shows(user: User) -> dict[str, object]:
    """What the Measure tab shows of the last session, as a person reads it."""
    user.tab("Measure")
    user.tab("Current run")
    live = user.find("Current run chart")
    shown: dict[str, object] = {
        "live points": live.point_count,  # type: ignore[attr-defined]
        "live title": live.getPlotItem().titleLabel.text,  # type: ignore[attr-defined]
        "progress": user.find("Progress", QProgressBar).text(),
        "results": user.table_rows("Results"),
    }
    user.tab("Sweep")
    sweep = user.find("Sweep chart")
    sweep.redraw()  # type: ignore[attr-defined]
    shown["sweep points"] = sweep.point_count()  # type: ignore[attr-defined]
    shown["sweep series"] = sweep.series_names  # type: ignore[attr-defined]
    return shown


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_undo_delete_brings_the_measure_tab_back_as_it_was(window: MainWindow, user: User) -> None:
    user.tab("Measure")
    plan_sweep(user, "128, 1408", runs=1, seconds=1)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the sweep")
    before = measure_shows(user)
    assert before["sweep points"] == 2 and len(before["results"]) == 2, before  # type: ignore[arg-type]
    assert before["progress"] == "2 / 2 runs" and before["live points"], before

    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    with user.answering(lambda box: box.click("Yes")):
        user.click("Delete…")
    wait_for(lambda: not user.table_rows("Sessions"), 10, "the session to go")
    gone = measure_shows(user)
    # All alike: nothing of the deleted session is left on the Measure tab.
    assert gone["sweep points"] == 0 and gone["results"] == [] and gone["live points"] == 0
    assert gone["live title"] == "Current run" and "2 / 2" not in str(gone["progress"])

    user.tab("Sessions")
    user.click("Undo delete")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session back")
    assert measure_shows(user) == before
