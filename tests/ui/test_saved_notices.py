"""A session's own exports (its view's Export CSV/HTML/PDF…) are confirmed on screen like
Compare's: the status bar's notice names the file and its folder, with Open folder; a newer
save replaces the notice of an older one."""

from __future__ import annotations

from pathlib import Path

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.journey import confirmed, save_as
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for


def one_session_open(user: User, context: AppContext) -> None:
    """A stored session, opened in Sessions by its row, its exports at hand."""
    make_session(context.db_path, "office wifi", when="2026-01-01T08:00:00.000Z")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Export CSV…"), 10, "the session's view")


def test_a_sessions_exports_are_confirmed_each_replacing_the_last(
    window: MainWindow, user: User, context: AppContext, tmp_path: Path
) -> None:
    one_session_open(user, context)
    assert not user.can_see("Saved files")
    written: list[Path] = []
    for button, path in (
        ("Export CSV…", tmp_path / "office.csv"),
        ("Export HTML…", tmp_path / "out" / "office.html"),
        ("Export PDF…", tmp_path / "office.pdf"),
    ):
        path.parent.mkdir(exist_ok=True)
        with user.answering(save_as(path)):
            user.click(button)
        wait_for(path.exists, 30, path.name)
        wait_for(lambda p=path: p.name in user.find("Saved files").toolTip(), 10, "the notice")
        confirmed(user, path)
        said = user.find("Saved files").toolTip()
        assert not any(old.name in said for old in written), said  # replaced, not added to
        written.append(path)


def test_the_notice_belongs_to_the_tab_it_was_saved_from(
    window: MainWindow, user: User, context: AppContext, tmp_path: Path
) -> None:
    """Another tab opened: the notice is not over it. Back on Sessions the notice is there
    again (the user may still want Open folder); once closed, no tab brings it back."""
    one_session_open(user, context)
    path = tmp_path / "office.csv"
    with user.answering(save_as(path)):
        user.click("Export CSV…")
    wait_for(path.exists, 30, path.name)
    wait_for(lambda: user.can_see("Saved files"), 10, "the notice")
    for elsewhere in ("Measure", "Compare", "Settings"):
        user.tab(elsewhere)
        assert not user.can_see("Saved files"), f"the notice shown over {elsewhere}"
    user.tab("Sessions")
    assert user.can_see("Saved files"), "the notice gone from its own tab"
    assert path.name in user.find("Saved files").toolTip()
    user.click("Close saved notice")
    assert not user.can_see("Saved files")
    user.tab("Measure")
    user.tab("Sessions")
    assert not user.can_see("Saved files"), "a closed notice came back"
