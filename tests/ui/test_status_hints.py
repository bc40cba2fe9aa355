"""The status bar's hint about a tab's selection belongs to that tab: two sessions selected
in Sessions say so there, the sentence goes when another tab is chosen, and a notice that
follows (a monitor saved, whose session the list then reads again with the two still
selected) is never hidden by it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for


@pytest.mark.usefixtures("iperf3_tool")  # the monitor runs this computer's iperf3
def test_a_selection_hint_leaves_with_its_tab_and_never_hides_a_notice(
    window: MainWindow, user: User
) -> None:
    for name, when in (
        ("first", "2025-03-01T10:00:00+00:00"),
        ("second", "2025-03-02T10:00:00+00:00"),
    ):
        make_session(window.context.db_path, name, when=when)
    user.tab("Sessions")
    user.click("Refresh")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 5, "the session's view")
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    assert "2 selected: below is still" in user.text("Status")

    user.tab("Measure")
    assert "selected" not in user.text("Status")  # said of Sessions, left behind there
    user.tab("Monitor")
    user.click("Start monitor")
    chart = user.find("Monitor chart")
    wait_for(lambda: sum(chart.drawn("throughput").values()) >= 2, 20, "two points charted")  # type: ignore[attr-defined]
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    wait_for(lambda: "Monitor saved as session" in user.text("Status"), 5, "the notice")
    # The list is read again with the monitor in it, the two sessions still selected there.
    wait_for(lambda: len(window.sessions.model.rows) == 3, 10, "the list read again")
    wait_for(lambda: not window.sessions.reading, 10, "the list shown")
    assert len(window.sessions.selected_rows()) == 2
    assert "Monitor saved as session" in user.text("Status")
