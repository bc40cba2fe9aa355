"""One damaged row in the window: the Sessions list shows every session, the one whose plan
cannot be read marked “cannot be read” with what to do, the one with a damaged name shown
untitled and marked; the two readable ones beside them are compared and exported through the
window, and the exported file holds their runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.study.files.exchange import read_exchange
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.store.test_damaged_rows import DAMAGED_PART, UNREADABLE, _damage, _make
from tests.ui.journey import save_as
from tests.ui.user import User, wait_for


def _row(user: User, status: str) -> int:
    rows = user.table_rows("Sessions")
    (found,) = [n for n, row in enumerate(rows) if row[6] == status]
    return found


def compare_and_export(
    user: User, window: MainWindow, rows: tuple[int, int], exported: Path
) -> set[str]:
    """Two rows of the Sessions list compared (on the Compare tab), then exported for another
    computer through its dialog; the ids of the sessions the written file holds."""
    user.click_row("Sessions", rows[0])
    user.click_row("Sessions", rows[1], Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    assert window.tabs.currentWidget() is window.compare_tab
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 1, 15, "the comparison")
    user.tab("Sessions")
    with user.answering(save_as(exported)):
        user.click("Export for another computer…")
    wait_for(lambda: exported.is_file(), 15, "the exported file")
    sessions = read_exchange(exported).sessions
    assert all(len(s.runs) == 3 for s in sessions)
    return {s.record.id for s in sessions}


@pytest.fixture
def ids(context: AppContext) -> dict[str, str]:
    """The window's database before it starts: three sessions, one unreadable, one whose
    name is damaged."""
    made = _make(context.db_path)  # first, damaged, last: three runs each
    _damage(context.db_path, made["damaged"], UNREADABLE["duration_s is text"][0])
    _damage(context.db_path, made["last"], DAMAGED_PART["a name of bytes"][0])
    return made


def test_the_list_shows_every_session_beside_a_damaged_one(
    ids: dict[str, str], window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 3, 15, "every session")
    assert user.text("Sessions message").startswith("3 sessions (1 cannot be read")
    names = sorted(row[1] for row in user.table_rows("Sessions"))
    assert names == ["Untitled session", "damaged", "first"]

    # The one that cannot be read: what cannot, and what to do, where its view would be.
    user.click_row("Sessions", _row(user, "cannot be read"))
    said = user.text("Sessions message")
    assert said.startswith(f"Session {ids['damaged'][:8]} (“damaged”) cannot be read")
    assert "duration_s must be a number" in said and "--recover-to NEW.sqlite3" in said
    assert said in user.visible_text()  # in place of the session's charts and table
    for button in ("Compare", "Export for another computer…", "Rename…", "Delete…"):
        assert not user.find(button).isEnabled(), button

    # The damaged name: the session is shown, its name said to be unreadable.
    user.click_row("Sessions", _row(user, "completed (damaged)"))
    wait_for(lambda: "its name cannot be read" in user.text("Sessions message"), 10, "the note")
    wait_for(lambda: user.can_see("Export PDF…"), 10, "the session's view")

    # The two readable ones: compared, then exported for another computer.
    both = (_row(user, "completed"), _row(user, "completed (damaged)"))
    exported = compare_and_export(user, window, both, tmp_path / "two.linklab")
    assert exported == {ids["first"], ids["last"]}
    # The file is written before the sentence confirming it comes round the event loop.
    wait_for(lambda: "Exported 2 sessions" in user.text("Sessions message"), 10, "the sentence")
