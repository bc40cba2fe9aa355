"""Results that stay where the user left them: Sessions › Open shows the session and says so,
and a file dialog opens in the folder last used for its kind of file, not the program's."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from app.ui.main_window import MainWindow
from tests.ui.journey import save_as
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for


def test_open_shows_the_session_and_makes_room_for_it(window: MainWindow, user: User) -> None:
    make_session(window.context.db_path, "Open, IPv4", when="2025-03-01T10:00:00+00:00")
    make_session(window.context.db_path, "WPA2, IPv4", when="2025-03-01T11:00:00+00:00")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the list")
    tab = window.sessions
    tab.splitter.setSizes([600, 150])  # the session's pane squeezed, as a user may leave it
    user.click_row("Sessions", 1)
    user.click("Open")
    wait_for(lambda: tab.shown.view.session_id is not None and not tab.reading, 10, "the session")
    assert user.text("Sessions message").startswith("Showing “Open, IPv4” (")
    assert user.text("Sessions message").endswith("its charts, table and details below.")
    # The session's charts have most of the tab, once the pane shown again is laid out.
    wait_for(
        lambda: tab.splitter.sizes()[1] > 2 * tab.splitter.sizes()[0],
        5,
        "the session's pane given most of the tab",
    )
    assert user.can_see("Session throughput chart")


def test_a_save_dialog_opens_in_the_folder_last_used_for_its_kind(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    make_session(window.context.db_path, "Open, IPv4", when="2025-03-01T10:00:00+00:00")
    make_session(window.context.db_path, "WPA2, IPv4", when="2025-03-01T11:00:00+00:00")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the list")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, modifier=Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: user.find("Table CSV…").isEnabled(), 20, "the comparison")
    folder = tmp_path / "my exports"
    folder.mkdir()
    opened_in: list[str] = []

    def look_then_save(path: Path):  # type: ignore[no-untyped-def]
        def answer(dialog: User) -> None:
            window_ = dialog.window
            assert isinstance(window_, QFileDialog)
            opened_in.append(window_.directory().absolutePath())
            save_as(path)(dialog)

        return answer

    with user.answering(look_then_save(folder / "first.csv")):
        user.click("Table CSV…")
    wait_for((folder / "first.csv").exists, 10, "the first export")
    with user.answering(look_then_save(folder / "second.csv")):
        user.click("Table CSV…")
    wait_for((folder / "second.csv").exists, 10, "the second export")
    assert Path(opened_in[0]) != folder  # the first time: the home folder
    assert Path(opened_in[1]) == folder  # then where the user saved last
