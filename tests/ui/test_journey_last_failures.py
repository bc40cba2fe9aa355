"""A sweep whose last runs fail, as a newcomer meets it: six runs at one point, the server
refusing all but the first (LinkLab's own decision about it, with the engine a stand-in).
The Log says the sweep goes on only while runs are left, and of the last that it was the
last; the status counts the runs that failed and never says the sweep stopped after
failures in a row, in the window, in Sessions after the window is opened again, and on the
command line (its figures read back by tests/sentences.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.domain.errors import LinkLabError
from app.domain.plan import Engine, RunKey
from app.engine.drivers.fake import FakeDriver
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import PeerVanished
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import linklab
from tests.sentences import check_session
from tests.ui.conftest import open_window
from tests.ui.shown_sentences import plain, shown_status
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def vanish_after_the_first(key: RunKey, attempt: int) -> LinkLabError | None:
    return None if key.repetition == 1 else PeerVanished("127.0.0.1", 13)


@pytest.mark.usefixtures("iperf3_tool")
def test_failures_up_to_the_last_run_are_counted_not_called_a_stop(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    user: User,
    context: AppContext,
    tmp_path: Path,
) -> None:
    real = context.drivers
    context.drivers = {**DRIVERS, Engine.IPERF3: FakeDriver(fail=vanish_after_the_first)}
    plan_sweep(user, "1408", runs=6, seconds=1)
    user.tab("Advanced")
    user.type("Failures in a row allowed", "5")
    user.tab("Study")
    user.type("Session name", "last ones failed")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the sweep to start")
    wait_for(lambda: not window.measure.running, 60, "the sweep to end")
    errors = [line for line in user.text("Log").splitlines() if "Error: " in line]
    failures, end = errors[:-1], errors[-1]
    assert len(failures) == 5, errors
    assert all(line.endswith("The sweep goes on.") for line in failures[:-1]), failures
    assert failures[-1].endswith("It was the sweep's last run."), failures[-1]
    assert "completed with failures" in end and "5 of 6 runs failed" in end, end
    assert "Stopped after" not in user.text("Log")

    window.shutdown()
    window.close()
    context.drivers = real  # the next start of LinkLab has its engines again
    again = open_window(qtbot, context, tmp_path)
    after = User(again)
    after.tab("Sessions")
    wait_for(lambda: len(after.table_rows("Sessions")) == 1, 10, "the session")
    listed = dict(zip(after.headers("Sessions"), after.table_rows("Sessions")[0], strict=True))
    assert listed["Status"] == "completed with failures"
    after.click_row("Sessions", 0)
    wait_for(lambda: after.can_see("Session details"), 10, "the session's view")
    status = shown_status(plain(after.text("Session details")))
    assert status.startswith("completed with failures (5 of 6 runs failed. The first failure: ")
    db = str(context.db_path)
    data = json.loads(linklab("sessions", "show", "last ones failed", "--json", "--db", db).stdout)
    runs = linklab("export", data["session_id"], "--format", "csv", "--out", "-", "--db", db)
    check_session(data, runs.stdout)
    assert status == f"{data['status_text']} ({data['status_reason']})"
    again.shutdown()
