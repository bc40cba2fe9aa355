"""Lab exercises in the main window: File › Open exercise… and New exercise…, the Exercise tab
(shown while one is open), a step set up on the Measure tab, and the step's result shown
when its session ends."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabWidget, QWidget

from app.domain.errors import LinkLabError
from app.domain.exercise import EXERCISE_SUFFIX, Exercise
from app.study.exercises import (
    read_exercise,
    ready_exercise_files,
    safe_file_name,
    write_exercise,
)
from app.ui.common.file_dialogs import open_file, save_file
from app.ui.exercise.new_dialog import NewExerciseDialog
from app.ui.exercise.view import ExerciseView
from app.ui.measure.tab import MeasureTab

TAB_TITLE = "Exercise"
READY_FOLDER = "Ready exercises"  # beside the database, in the user's data folder


class Window(Protocol):
    tabs: QTabWidget
    measure: MeasureTab

    def say(self, text: str) -> None: ...


class ExerciseController(QObject):
    def __init__(self, window: Window, view: ExerciseView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.view = view
        tabs = window.tabs
        tabs.insertTab(1, view, TAB_TITLE)
        tabs.setTabVisible(tabs.indexOf(view), False)
        view.setup_requested.connect(self._setup)
        view.closed.connect(self.close)
        view.status_message.connect(window.say)
        window.measure.session_saved.connect(lambda _sid: self._session_saved())
        window.measure.running_changed.connect(self._running)

    def add_actions(self, menu: QMenu, parent: QWidget) -> None:
        open_action = QAction("Open &exercise…", parent)
        open_action.triggered.connect(self.ask_open)
        menu.addAction(open_action)
        new_action = QAction("&New exercise…", parent)
        new_action.triggered.connect(self.ask_new)
        menu.addAction(new_action)

    # -- opening --------------------------------------------------------------------------------
    def ask_open(self) -> None:
        # LinkLab's ready exercises are there as files, the first time the dialog opens.
        context = self.view.context
        ready = ready_exercise_files(context.db_path.parent / READY_FOLDER)
        path = open_file(
            self.view,
            context.settings,
            "exercise",
            "Open exercise",
            f"LinkLab exercise (*{EXERCISE_SUFFIX})",
            first=ready,
        )
        if path:
            self.open_file(path)

    def open_file(self, path: Path) -> bool:
        try:
            exercise = read_exercise(path)
        except LinkLabError as err:
            self.window.say(err.sentence)
            return False
        self.open(exercise)
        return True

    def open(self, exercise: Exercise) -> None:
        tabs = self.window.tabs
        tabs.setTabVisible(tabs.indexOf(self.view), True)
        tabs.setCurrentWidget(self.view)
        self.view.open_exercise(exercise)
        self.window.say(f"Opened the exercise “{exercise.title}”: type your name to begin.")

    def close(self) -> None:
        self.view.answers.flush()
        self.view.exercise = None
        self.window.measure.leave_exercise()
        tabs = self.window.tabs
        tabs.setTabVisible(tabs.indexOf(self.view), False)
        tabs.setCurrentWidget(self.window.measure)

    # -- a step -------------------------------------------------------------------------------
    def _setup(self, number: int) -> None:
        exercise = self.view.exercise
        if exercise is None:
            return
        if self.window.measure.running:
            self.window.say("A study is running: let it finish (or stop it) first.")
            return
        self.window.measure.lock_exercise_step(
            exercise, number, self.view.student.text().strip(), self.view.group.text().strip()
        )
        self.window.tabs.setCurrentWidget(self.window.measure)
        self.window.say(
            f"Step {number} is set up: choose your peer and press Start. The fields the "
            f"exercise sets are greyed out."
        )

    def _running(self, running: bool) -> None:
        """The step whose study runs reads "running…" in the Exercise tab."""
        assignment = self.window.measure.setup.assignment
        exercise = self.view.exercise
        step = None
        if running and exercise is not None and assignment is not None:
            if assignment.exercise_id == exercise.id:
                step = assignment.step
        self.view.set_running(step)

    def _session_saved(self) -> None:
        if self.view.exercise is not None:
            self.view.refresh()

    # -- writing one ----------------------------------------------------------------------------
    def ask_new(self) -> None:
        dialog = NewExerciseDialog(self.view)
        if not dialog.exec():
            return
        exercise = dialog.exercise
        if exercise is None:
            return
        path = save_file(
            self.view,
            self.view.context.settings,
            "exercise",
            "Save exercise",
            f"{safe_file_name(exercise.title)}{EXERCISE_SUFFIX}",
            f"LinkLab exercise (*{EXERCISE_SUFFIX})",
        )
        if path is None:
            return
        try:
            write_exercise(path, exercise)
        except LinkLabError as err:
            self.window.say(err.sentence)
            return
        self.window.say(
            f"Saved {Path(path).name}: give it to your students; they open it with "
            f"File › Open exercise… (or a double-click)."
        )
