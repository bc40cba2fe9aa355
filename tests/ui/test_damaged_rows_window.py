"""One damaged row in the window: the Sessions list shows every session, the one whose plan
cannot be read marked “cannot be read” with what to do, the one with a damaged name shown
untitled and marked; the two readable ones beside them are compared and exported through the
window, and the exported file holds their runs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.study.files.exchange import read_exchange
from app.ui.main_window import MainWindow
from tests.store.test_damaged_rows import DAMAGED_PART, UNREADABLE, _damage, _make
from tests.ui.test_compare_flow import save_as
from tests.ui.user import User, wait_for


def _row(user: User, status: str) -> int:
    rows = user.table_rows("Sessions")
    (found,) = [n for n, row in enumerate(rows) if row[6] == status]
    return found


def test_the_list_shows_every_session_beside_a_damaged_one(
    qtbot,
    context,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    ids = _make(context.db_path)  # first, damaged, last: three runs each
    _damage(context.db_path, ids["damaged"], UNREADABLE["duration_s is text"][0])
    _damage(context.db_path, ids["last"], DAMAGED_PART["a name of bytes"][0])
    window = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(window, before_close_func=lambda w: w.shutdown())
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    user = User(window)

    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 3, 15, "every session")
    assert user.text("Sessions message").startswith("3 sessions (1 cannot be read")
    rows = user.table_rows("Sessions")
    names = sorted(row[1] for row in rows)
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
    first = _row(user, "completed")
    last = _row(user, "completed (damaged)")
    user.click_row("Sessions", first)
    user.click_row("Sessions", last, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    assert window.tabs.currentWidget() is window.compare_tab
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 1, 15, "the comparison")
    user.tab("Sessions")
    exported = tmp_path / "two.linklab"
    with user.answering(save_as(exported)):
        user.click("Export for another computer…")
    wait_for(lambda: exported.is_file(), 15, "the exported file")
    wait_for(lambda: "Exported 2 sessions" in user.text("Sessions message"), 10, "the note")
    sessions = {s.record.id: s for s in read_exchange(exported).sessions}
    assert set(sessions) == {ids["first"], ids["last"]}
    assert all(len(s.runs) == 3 for s in sessions.values())
    window.shutdown()
