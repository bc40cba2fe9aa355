"""A deleted session brought back after a restart: the delete question promises a day, so
the window lists the sessions deleted within it ("Recently deleted…") and restores them with
every run, not only the last delete of the same window (Undo delete)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

NAME = "Room B12 wired, before the change"


def test_a_session_deleted_before_a_restart_comes_back_with_its_runs(
    qtbot, window: MainWindow, user: User, context: AppContext, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    db = Path(context.db_path)
    make_session(db, NAME, when="2025-03-01T10:00:00+00:00")
    make_session(db, "Kept all along", when="2025-03-02T10:00:00+00:00")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    row = next(i for i, r in enumerate(user.table_rows("Sessions")) if NAME in " ".join(r))
    user.click_row("Sessions", row)
    user.click("Open")
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's results")
    before = user.table_rows("Session results")

    def yes(box: User) -> None:
        question = QApplication.activeModalWidget()
        assert isinstance(question, QMessageBox) and "back for a day" in question.text()
        box.click("Yes")

    with user.answering(yes):
        user.click("Delete…")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session to go")
    window.shutdown()
    window.close()

    again = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(again, before_close_func=lambda w: w.shutdown())
    again.resize(1280, 720)
    again.show()
    qtbot.waitExposed(again)
    after = User(again)
    after.tab("Sessions")
    wait_for(lambda: len(after.table_rows("Sessions")) == 1, 10, "the sessions left")
    assert not after.can_see("Undo delete")  # a new window knows no last delete

    def restore(dialog: User) -> None:
        (entry,) = dialog.table_rows("Deleted sessions")
        assert NAME in entry[0] and "12 runs" in entry[0] and "can come back until" in entry[0]
        dialog.click_row("Deleted sessions", 0)
        dialog.click("Restore")

    with after.answering(restore):
        after.click("Recently deleted…")
    wait_for(lambda: len(after.table_rows("Sessions")) == 2, 10, "the session back")
    assert f"Restored “{NAME}” with every run." in after.text("Sessions message")
    row = next(i for i, r in enumerate(after.table_rows("Sessions")) if NAME in " ".join(r))
    after.click_row("Sessions", row)
    after.click("Open")
    wait_for(lambda: after.table_rows("Session results") == before, 10, "its runs, as before")

    def nothing_left(dialog: User) -> None:
        assert "nothing to restore" in dialog.visible_text()
        assert not dialog.find("Restore").isEnabled()
        dialog.click("Close")

    with after.answering(nothing_left):
        after.click("Recently deleted…")
    again.shutdown()
