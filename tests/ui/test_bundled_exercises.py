"""Every exercise LinkLab ships in resources/exercises opens through File › Open exercise…, the
file itself (a template whose steps name presets), just as the ready copy made from it does."""

from __future__ import annotations

from pathlib import Path

from app.resources import resource_dir
from app.study.lab.exercises import read_exercise, ready_names
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for

BUNDLED = sorted((resource_dir() / "exercises").glob("*.json"))


def test_the_bundled_files_read_as_their_ready_exercises() -> None:
    assert BUNDLED, "resources/exercises holds no exercise"
    ready = ready_names()
    for path in BUNDLED:
        # The same exercise, plans included: a step's preset is not dropped on the way.
        assert read_exercise(path) == ready[path.stem], path.name


def test_every_bundled_exercise_opens_in_the_window(window: MainWindow, user: User) -> None:
    ready = ready_names()
    for path in BUNDLED:

        def open_it(dialog: User, path: Path = path) -> None:
            # As a person would: to the folder first, then the file's name (a .json exercise
            # is one the dialog offers, not hidden by its filter).
            dialog.type("File name", str(path.parent), enter=True)
            dialog.type("File name", path.name)
            wait_for(lambda: dialog.find("Open").isEnabled(), 5, f"the dialog to find {path.name}")
            dialog.click("Open")

        with user.answering(open_it):
            user.menu("File", "Open exercise…")
        title = ready[path.stem].title
        wait_for(lambda: user.can_see("Steps"), 5, f"{path.name} to open")
        assert user.text("Exercise title") == title, path.name
        assert (
            window.status_label.text() == f"Opened the exercise “{title}”: type your name to begin."
        )
        user.click("Close exercise")
        wait_for(lambda: not user.can_see("Steps"), 5, "the exercise to close")
