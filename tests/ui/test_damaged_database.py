"""A damaged database at start-up: the window says so above the tabs, what to do, and keeps
Start off with that reason; the sessions that can be read are still listed."""

from __future__ import annotations

from pathlib import Path

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.store.test_recover import RUNS, _damaged
from tests.ui.user import User, wait_for


def test_the_window_opens_a_damaged_database_read_only(  # type: ignore[no-untyped-def]
    qtbot, context: AppContext, tmp_path: Path
) -> None:
    _damaged(context.db_path)
    window = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    user = User(window)
    try:
        wait_for(lambda: user.can_see("Database problem"), 15, "the banner")
        banner = user.text("Database problem")
        assert "failed its integrity check" in banner and "--recover-to" in banner
        start = window.measure.start_button
        assert not start.isEnabled() and "--recover-to" in start.toolTip()
        user.tab("Sessions")
        wait_for(lambda: len(user.table_rows("Sessions")) == len(RUNS), 10, "the sessions")
    finally:
        window.shutdown()
