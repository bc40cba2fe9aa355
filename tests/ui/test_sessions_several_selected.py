"""Two sessions selected in Sessions: the pane below keeps the one it showed and says so by
name, with what the two are for, then Compare puts them side by side."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.domain.net import Protocol
from app.domain.plan import Security
from app.ui.main_window import MainWindow
from tests.ui.test_readable import store_session
from tests.ui.user import User, wait_for


def test_two_sessions_selected_say_which_one_is_shown_below(window: MainWindow, user: User) -> None:
    for day, name, security in ((1, "Open lab", Security.OPEN), (2, "WPA2 lab", Security.WPA2)):
        store_session(
            window.context.db_path,
            name,
            (Protocol.TCP,),
            when=f"2025-03-0{day}T10:00:00+00:00",
            security=security,
        )
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    names = [row[user.headers("Sessions").index("Name")] for row in user.table_rows("Sessions")]
    first, second = names.index("WPA2 lab"), names.index("Open lab")
    user.click_row("Sessions", first)
    wait_for(lambda: "WPA2 lab" in user.text("Session details"), 10, "the first session")
    user.click_row("Sessions", second, Qt.KeyboardModifier.ControlModifier)
    said = user.text("Sessions message")
    assert said == (
        "2 selected: below is still “WPA2 lab”, the one shown before; Compare puts them side "
        "by side."
    ), said
    # What it says is what is there: the first session's details, never the second's.
    assert "WPA2 lab" in user.text("Session details")
    assert "Open lab" not in user.text("Session details")
    # One of them let go: what was said of two is said no more.
    user.click_row("Sessions", second, Qt.KeyboardModifier.ControlModifier)
    assert "selected" not in user.text("Sessions message"), user.text("Sessions message")
    user.click_row("Sessions", second, Qt.KeyboardModifier.ControlModifier)
    assert user.text("Sessions message").startswith("2 selected: below is still “WPA2 lab”")
    user.click("Compare")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    assert user.text("Baseline session") in ("Open lab", "WPA2 lab")
