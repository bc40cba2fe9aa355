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
from app.store.outbox import OutboxStatus
from app.study.lab.exercises import (
    read_exercise,
    ready_exercise_files,
    safe_file_name,
    write_exercise,
)
from app.study.sweep.events import RunFailed, RunFinished, SessionFinished, SessionStarted
from app.ui.common.file_dialogs import open_file, save_file
from app.ui.common.tabs import show_tab
from app.ui.context import AppContext
from app.ui.exercise.class_push import ClassPush
from app.ui.exercise.new_dialog import NewExerciseDialog
from app.ui.exercise.together_station import WindowStation
from app.ui.exercise.view import ExerciseView
from app.ui.measure.tab import MeasureTab

TAB_TITLE = "Exercise"
READY_FOLDER = "Ready exercises"  # beside the database, in the user's data folder


class Window(Protocol):
    tabs: QTabWidget
    measure: MeasureTab
    context: AppContext

    def say(self, text: str) -> None: ...


class ExerciseController(QObject):
    def __init__(self, window: Window, view: ExerciseView, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.view = view
        tabs = window.tabs
        tabs.insertTab(1, view, TAB_TITLE)
        show_tab(tabs, tabs.indexOf(view), False)
        view.setup_requested.connect(self._setup)
        view.closed.connect(self.close)
        view.status_message.connect(window.say)
        window.measure.session_saved.connect(lambda _sid: self._session_saved())
        window.measure.running_changed.connect(self._running)
        self.push: ClassPush | None = None  # when the exercise names the class's collector
        self.station = WindowStation(self)  # this window, a station measuring together
        self.station.said.connect(view.together_status.setText)
        self.station.ended.connect(lambda: self._together_ended())
        view.together.toggled.connect(self._together)
        window.measure.running_changed.connect(self._study_running)
        view.answer_saved.connect(self._push)
        view.student.editingFinished.connect(self._push)

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
            # .json too: LinkLab's own exercises (resources/exercises) are such files.
            f"LinkLab exercise (*{EXERCISE_SUFFIX} *.json)",
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
        show_tab(tabs, tabs.indexOf(self.view), True)
        tabs.setCurrentWidget(self.view)
        self.view.open_exercise(exercise)
        self._collect(exercise)
        self.window.say(f"Opened the exercise “{exercise.title}”: type your name to begin.")

    def close(self) -> None:
        self.view.answers.flush()  # while the class's push is open: the last answer goes too
        self._collect(None)
        self.view.close_exercise()
        self.window.measure.leave_exercise()
        tabs = self.window.tabs
        show_tab(tabs, tabs.indexOf(self.view), False)
        tabs.setCurrentWidget(self.window.measure)

    # -- the class's collector ---------------------------------------------------------------
    def _collect(self, exercise: Exercise | None) -> None:
        """Push to the collector the exercise names (none: the hand-in file only)."""
        self._stop_together()
        if self.push is not None:
            self.push.close()
            self.push = None
        label = self.view.class_status
        self.view.together_box.setVisible(exercise is not None and exercise.collector is not None)
        if exercise is None or exercise.collector is None:
            label.hide()
            return
        self.push = ClassPush(exercise, self.window.context.db_path, self)
        self.push.status_changed.connect(self._pushed)
        label.setText(
            f"Your runs and answers go to the class at {exercise.collector.url} as you measure."
            + (
                ""
                if exercise.collector.token
                else " The exercise has no class token: ask your instructor for the file again."
            )
        )
        label.show()
        self._push()

    def _study_running(self, running: bool) -> None:
        """Push after each run the study stores (and as its session starts and ends)."""
        worker = self.window.measure.worker
        if running and worker is not None:
            worker.yielded.connect(self._study_event)
        else:
            self._push()

    def _study_event(self, event: object) -> None:
        stored = isinstance(event, SessionStarted | RunFinished | SessionFinished)
        if stored or (isinstance(event, RunFailed) and not event.will_retry):
            self._push()

    def _push(self) -> None:
        if self.push is not None and self.view.exercise is not None:
            self.push.sync(self.view.student.text())

    def _pushed(self, status: OutboxStatus) -> None:
        if self.push is not None:
            self.view.class_status.setText(f"Class at {self.push.url}: {status.words}")

    def shutdown(self) -> None:
        self._stop_together()
        if self.push is not None:
            self.push.close()
            self.push = None

    # -- measuring together ------------------------------------------------------------------
    def _together(self, on: bool) -> None:
        if not on:
            self._stop_together()
            return
        exercise, student = self.view.exercise, self.view.student.text().strip()
        problem = ""
        if exercise is None or self.push is None:
            problem = "The exercise names no class collector: ask your instructor for its file."
        elif not student:
            problem = "Type your name first: the class knows each station by its student."
        elif self.window.measure.running:
            problem = "A study is running: let it finish (or stop it), then wait for the start."
        if problem:
            self.view.together.blockSignals(True)
            self.view.together.setChecked(False)
            self.view.together.blockSignals(False)
            self.view.together_status.setText(problem)
            return
        assert exercise is not None and self.push is not None
        self.push.sync(student)
        pusher = self.push.pusher
        if pusher is None:  # an exercise without the class token
            self._stop_together()
            self.view.together_status.setText(
                "The exercise has no class token: ask your instructor for the file again."
            )
            return
        self.station.start(self.window.context.db_path, exercise, student, pusher)

    def _stop_together(self) -> None:
        self.station.stop()
        if self.view.together.isChecked():
            self.view.together.blockSignals(True)
            self.view.together.setChecked(False)
            self.view.together.blockSignals(False)

    def _together_ended(self) -> None:
        """The station stopped by itself (its collector refused it, say): the box says so."""
        self.view.together.blockSignals(True)
        self.view.together.setChecked(False)
        self.view.together.blockSignals(False)
        self.view.refresh()

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
