"""A database nothing can be saved to, in the window: a file that is not SQLite at all, and a
data folder that refuses writes (a read-only bind mount, which refuses root too). The banner
above the tabs says what is wrong and what to do, Start is off saying why, nothing is written
to the file; a read-only folder's sessions are still listed, opened, compared and exported,
and choosing another file in Settings makes Start work again."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.readonly import read_only, unavailable
from tests.store.test_damaged_rows import _make
from tests.ui.journey import save_as
from tests.ui.test_damaged_rows_window import compare_and_export
from tests.ui.user import User, wait_for


def _window(qtbot, context: AppContext, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    window = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(window, before_close_func=lambda w: w.shutdown())
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def chosen_context(tmp_path: Path, context: AppContext) -> Iterator[AppContext]:
    """A context whose database is the one Settings name (so that another can be chosen)."""
    settings = QSettings(str(tmp_path / "chosen.ini"), QSettings.Format.IniFormat)
    chosen = AppContext(settings)
    yield chosen


def test_a_file_that_is_not_sqlite_gets_a_banner_and_no_start(
    qtbot,
    chosen_context: AppContext,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    notes = tmp_path / "linklab.sqlite3"
    notes.write_text("Lab notes, not a database.\n" * 2000, encoding="utf-8")
    before = hashlib.sha256(notes.read_bytes()).hexdigest()
    chosen_context.set_db_path(notes)
    window = _window(qtbot, chosen_context, tmp_path)
    user = User(window)
    wait_for(lambda: user.can_see("Database problem"), 15, "the banner")
    said = user.text("Database problem")
    assert f"The file {notes} is damaged or is not a LinkLab database" in said
    assert "does not start like an SQLite file" in said and "Use another file…" in said
    start = user.find("Start")
    assert not start.isEnabled() and start.toolTip() == f"Start is off: {said}"
    user.tab("Sessions")
    wait_for(lambda: said in user.text("Sessions message"), 10, "the Sessions tab's note")

    # What the banner says to do: another file, chosen in Settings; then Start works.
    fresh = tmp_path / "fresh.sqlite3"
    user.tab("Settings")
    with user.answering(save_as(fresh)):
        user.click("Use another file…")
    wait_for(lambda: not user.can_see("Database problem"), 15, "the banner to go")
    user.tab("Measure")
    assert user.find("Start").isEnabled()
    window.shutdown()
    assert hashlib.sha256(notes.read_bytes()).hexdigest() == before  # never written


@pytest.mark.skipif(bool(unavailable()), reason=unavailable() or "-")
def test_a_read_only_folder_is_read_and_start_says_why_not(
    qtbot,
    tmp_path: Path,
    context: AppContext,  # type: ignore[no-untyped-def]
) -> None:
    source = tmp_path / "data"
    source.mkdir()
    ids = _make(source / "linklab.sqlite3")
    with read_only(source, tmp_path / "mounted") as folder:
        settings = QSettings(str(tmp_path / "ro.ini"), QSettings.Format.IniFormat)
        here = AppContext(settings, db_path=folder / "linklab.sqlite3")
        window = _window(qtbot, here, tmp_path)
        user = User(window)
        wait_for(lambda: user.can_see("Database problem"), 15, "the banner")
        said = user.text("Database problem")
        assert f"The data folder {folder} is read-only" in said
        assert "cannot save new ones there" in said
        start = user.find("Start")
        assert not start.isEnabled() and "is read-only" in start.toolTip()

        user.tab("Sessions")
        wait_for(lambda: len(user.table_rows("Sessions")) == 3, 15, "the sessions")
        names = [row[1] for row in user.table_rows("Sessions")]
        user.click_row("Sessions", names.index("first"))
        wait_for(lambda: user.can_see("Export PDF…"), 10, "the session's view")
        both = (names.index("first"), names.index("last"))
        exported = compare_and_export(user, window, both, tmp_path / "both.linklab")
        assert exported == {ids["first"], ids["last"]}
        window.shutdown()
        assert sorted(p.name for p in folder.iterdir()) == ["linklab.sqlite3"]
