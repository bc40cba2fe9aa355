"""The medium detected for a second computer, as a newcomer meets it across a restart: the
Study page says Ethernet was detected from the veth adapter on first use and again once the
window is closed and opened, and every session stores it as detected, never as stated; a medium
the user chose stays the user's after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import linklab
from tests.testbed import NeighbourBed
from tests.ui.conftest import open_window
from tests.ui.journey import choose_the_neighbour
from tests.ui.test_journey_link_rate import detection_settled, start_and_finish
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def stored_medium(context: AppContext, name: str) -> tuple[str, str]:
    """The medium a session stored and what detected it ("" when stated), as the command
    line shows them."""
    shown = linklab("sessions", "show", name, "--json", "--db", str(context.db_path))
    conditions = json.loads(shown.stdout)["conditions"]
    return conditions["medium"], conditions["medium_detected_by"]


def reopened(qtbot, window: MainWindow, context: AppContext, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """The window closed and LinkLab started again: a new window on the settings as read
    back from their file, as a new process reads them."""
    window.shutdown()
    window.close()
    context.settings.sync()
    settings = QSettings(context.settings.fileName(), QSettings.Format.IniFormat)
    return open_window(qtbot, AppContext(settings, db_path=context.db_path), tmp_path)


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_a_detected_medium_stays_detected_after_a_restart(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    user: User,
    context: AppContext,
    neighbour: NeighbourBed,
    tmp_path: Path,
) -> None:
    detected = f"Medium Ethernet detected from {neighbour.here}, a wired adapter."

    choose_the_neighbour(user, context, neighbour)
    assert detection_settled(window, user, neighbour.THERE4).startswith(detected)
    assert user.text("Medium") == "Ethernet"
    plan_sweep(user, "1408", runs=1, seconds=2)
    user.type("Session name", "first use")
    start_and_finish(window, user)

    # Closed and opened again: the last plan comes back, its medium still the detected one.
    window = reopened(qtbot, window, context, tmp_path)
    user = User(window)
    assert detection_settled(window, user, neighbour.THERE4).startswith(detected)
    assert user.text("Medium") == "Ethernet"
    user.type("Session name", "after restart")
    start_and_finish(window, user)

    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    listed = {row[1]: row[5] for row in user.table_rows("Sessions")}
    assert listed == {"first use": "Ethernet (detected)", "after restart": "Ethernet (detected)"}
    for name in listed:
        assert stored_medium(context, name) == ("Ethernet", neighbour.here + ", a wired adapter")

    # The user's own medium: stated, and still stated after a restart.
    user.tab("Measure")
    user.tab("Study")
    user.choose("Medium", "other")
    assert not user.can_see("Detected link") or "Medium" not in user.text("Detected link")
    window = reopened(qtbot, window, context, tmp_path)
    user = User(window)
    said = detection_settled(window, user, neighbour.THERE4)
    assert user.text("Medium") == "other" and "Medium" not in said
    user.type("Session name", "stated other")
    start_and_finish(window, user)
    assert stored_medium(context, "stated other") == ("other", "")
    window.shutdown()
