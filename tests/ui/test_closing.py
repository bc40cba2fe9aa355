"""Closing the window while something measures asks first, and says what becomes of the run in
progress as it then becomes: a study's is kept unfinished with the intervals it measured (Resume
measures it again), a monitor's as a run of its intervals; both are in the database after the
close, with those intervals."""

from __future__ import annotations

import pytest

from app.domain.records import SessionStatus
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.conftest import engine_children
from tests.ui.test_measure import plan_sweep
from tests.ui.test_monitor import charted
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3


def close_answering_yes(window: MainWindow, user: User) -> str:
    """Close the window as its title bar's button does, answer Yes; what the question said."""
    said: list[str] = []

    def answer(dialog: User) -> None:
        said.append(dialog.visible_text())
        dialog.click("Yes")

    with user.answering(answer):
        window.close()
    wait_for(lambda: not window.isVisible(), 15, "the window to close")
    assert not engine_children()
    return said[0]


def stored(window: MainWindow) -> tuple[SessionStatus, list[tuple[str, int]]]:
    """The one session's status, and its runs' (status, intervals kept)."""
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        runs = store.runs(session.id, partial=True)
        return session.status, [(run.status, len(store.samples(run.id))) for run in runs]


def test_closing_mid_run_keeps_the_run_in_progress_as_it_says(
    window: MainWindow, user: User
) -> None:
    plan_sweep(user, "1408", runs=1, seconds=30)
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 2, 20, "two intervals")  # type: ignore[attr-defined]
    question = close_answering_yes(window, user)
    assert "dropped" not in question
    assert "the run in progress is kept unfinished with the intervals it measured" in question
    assert "Resume in Sessions measures it again" in question
    status, runs = stored(window)
    assert status is SessionStatus.STOPPED
    ((run_status, intervals),) = runs
    assert run_status == "partial" and intervals >= 2  # kept, with its intervals


def test_closing_mid_monitor_keeps_its_run_as_a_run_of_its_intervals(
    window: MainWindow, user: User
) -> None:
    user.tab("Monitor")
    user.click("Start monitor")
    wait_for(lambda: charted(user) >= 2, 20, "two intervals")
    question = close_answering_yes(window, user)
    assert "Stop it and close LinkLab?" in question and "dropped" not in question
    assert "the run in progress is kept as a run of the intervals it measured" in question
    status, runs = stored(window)
    assert status is SessionStatus.COMPLETED
    ((run_status, intervals),) = runs
    assert run_status == "ok" and intervals >= 2
