"""A session whose database holds impossible figures (inf, 1e308, 500 % loss, text in a number's
column, as an older LinkLab or an edit by hand leaves them) opens in the Sessions view: its
table shows "—" where a figure is impossible, its charts draw, and nothing raises."""

from __future__ import annotations

import sqlite3

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.report.test_impossible_figures import EDITS, make_session
from tests.ui.user import User, wait_for


def test_the_sessions_view_opens_a_session_with_impossible_figures(
    window: MainWindow, user: User, context: AppContext
) -> None:
    make_session(context.db_path)
    conn = sqlite3.connect(context.db_path)
    with conn:
        for statement in EDITS:
            conn.execute(statement)
    conn.close()
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 2, 10, "the session's table")
    shown = " ".join(" ".join(row) for row in user.table_rows("Session results"))
    assert "∞" not in shown and "inf" not in shown.lower()
    assert "901" in shown and "903" in shown  # the possible runs' means, in Mbit/s
    text = user.visible_text()
    assert "∞" not in text and "Infinity" not in text
