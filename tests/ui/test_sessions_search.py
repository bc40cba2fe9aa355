"""The Sessions search as a person types it: it matches what the rows show (name, peer and
conditions in words), never the stored fields behind them ("medium", "detected" are keys of
every session's conditions), or the start of an id; and the count says what the rows show."""

from __future__ import annotations

from app.domain.plan import Conditions, Medium, Security
from app.ui.main_window import MainWindow
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

DETECTED = ("Link rate detected at 1G", "Detected WPA2", "detected again")


def listed(user: User) -> list[str]:
    """Each row as a person reads it: its cells in one line."""
    return [" · ".join(row) for row in user.table_rows("Sessions")]


def search(user: User, text: str, sentence: str) -> None:
    user.type("Search sessions", text)
    wait_for(lambda: user.text("Sessions message") == sentence, 10, repr(sentence))


def test_the_search_matches_what_the_rows_show_and_says_so(window: MainWindow, user: User) -> None:
    db = window.context.db_path
    # Security detected (stored as a "security_detected" key) and a medium, for every one.
    conditions = Conditions(security=Security.WPA2, security_detected=True, medium=Medium.N)
    ids = [
        make_session(db, f"Lab session {day}", when=f"2025-03-{day:02d}T10:00:00+00:00",
                     conditions=conditions)
        for day in range(1, 13)
    ]  # fmt: skip
    for day, name in enumerate(DETECTED, start=13):
        make_session(db, name, when=f"2025-03-{day:02d}T10:00:00+00:00", conditions=conditions)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 15, 10, "the sessions")
    assert user.text("Sessions message") == "15 sessions."

    # The three that show it, and the count says three.
    search(user, "detected", "3 sessions matching 'detected' in the name, peer or conditions.")
    rows = listed(user)
    assert len(rows) == 3 and all("detected" in row.lower() for row in rows)
    assert {row[1] for row in user.table_rows("Sessions")} == set(DETECTED)
    # A word of the stored conditions that no row shows matches none.
    search(user, "medium", "0 sessions matching 'medium' in the name, peer or conditions.")
    assert user.table_rows("Sessions") == []
    # What the conditions column shows, in any case: every session stated on 802.11n.
    search(user, "802.11N", "15 sessions matching '802.11N' in the name, peer or conditions.")
    assert all("802.11n" in row for row in listed(user))
    # The start of an id (as `linklab` names a session) finds it, and the count says how.
    prefix = ids[4][:8]
    search(
        user,
        prefix,
        f"1 session matching {prefix!r} in the name, peer or conditions "
        "(1 by the start of its id).",
    )
    assert [row[1] for row in user.table_rows("Sessions")] == ["Lab session 5"]
    search(user, "", "15 sessions.")
