"""The main window: Measure, Responsiveness, Sessions, Compare, Server and Settings tabs, presets
menu, status bar."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import platformdirs
from PySide6.QtCore import QByteArray, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.domain.errors import BadOption
from app.domain.exercise import EXERCISE_SUFFIX
from app.study.sweep.describe import changes, extent_text
from app.study.sweep.presets import Preset, list_presets, save_preset
from app.ui.classroom.tab import ClassTab
from app.ui.common import main_thread_gc
from app.ui.common.saved import dismiss_saved
from app.ui.common.widgets import WrappedLabel, scroll_when_small
from app.ui.common.worker import Worker, once
from app.ui.compare.tab import CompareTab
from app.ui.context import AppContext
from app.ui.exercise.controller import ExerciseController
from app.ui.exercise.view import ExerciseView
from app.ui.measure.charted import ChartedSession
from app.ui.measure.tab import MeasureTab
from app.ui.responsiveness.tab import ResponsivenessTab
from app.ui.server.local_servers import LocalServers
from app.ui.server.tab import ServerTab
from app.ui.sessions.tab import SessionsTab
from app.ui.settings.tab import SettingsTab


def user_preset_dir() -> Path:
    return platformdirs.user_data_path("LinkLab", appauthor=False) / "presets"


#: The window's size at its first start, on a screen with room for it.
DEFAULT_SIZE = QSize(1280, 800)
#: What a window system adds around the window (title bar, borders): unknown before the window
#: is shown, so an allowance keeps the first size's title bar and status bar on screen.
FRAME_ALLOWANCE = QSize(16, 40)


def first_size(available: QSize) -> QSize:
    """The first start's size: the default, or less on a screen whose usable area (its
    availableGeometry: without taskbars) is smaller, frame included."""
    room = available - FRAME_ALLOWANCE
    return QSize(min(DEFAULT_SIZE.width(), room.width()), min(DEFAULT_SIZE.height(), room.height()))


def closing_question(*, monitor: bool) -> tuple[str, str]:
    """The title and question of closing the window while a study or a monitor runs: what
    becomes of what it measured (the runner's Stop keeps the run in progress, unfinished in
    a study, as a run of its intervals in a monitor)."""
    if monitor:
        return (
            "Stop the monitor?",
            "A monitor is running. Stop it and close LinkLab? Everything it measured is "
            "saved: the run in progress is kept as a run of the intervals it measured so far, "
            "and the monitor is listed in Sessions.",
        )
    return (
        "Stop the study?",
        "A study is running. Stop it and close LinkLab? Every finished run is saved, and the "
        "run in progress is kept unfinished with the intervals it measured so far; Resume in "
        "Sessions measures it again.",
    )


class MainWindow(QMainWindow):
    def __init__(
        self,
        context: AppContext | None = None,
        parent: QWidget | None = None,
        *,
        preset_dir: Path | None = None,
        open_files: Sequence[Path] = (),
    ) -> None:
        super().__init__(parent)
        main_thread_gc.install()  # widgets freed by the cycle collector only on this thread
        self.setWindowTitle(f"LinkLab {__version__}")
        self.context = context or AppContext()
        self.preset_dir = preset_dir or user_preset_dir()
        self.servers = LocalServers(self.context.loopback, lambda: self.context.drivers)
        self.measure = MeasureTab(self.context, self.servers)
        self.responsiveness = ResponsivenessTab(self.context)
        self.responsiveness.study_running = lambda: self.measure.running
        self.measure.other_test_running = lambda: self.responsiveness.running
        self.sessions = SessionsTab(self.context)
        self.server_tab = ServerTab(self.context, self.servers)
        self.settings_tab = SettingsTab(self.context)
        self.compare_tab = CompareTab(self.context)
        self.class_tab = ClassTab(self.context)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.measure, "Measure")
        self.tabs.addTab(self.responsiveness, "Responsiveness")
        self.tabs.addTab(self.sessions, "Sessions")
        self.tabs.addTab(self.compare_tab, "Compare")
        self.tabs.addTab(scroll_when_small(self.server_tab), "Server")
        self.tabs.addTab(self.class_tab, "Class")
        self.tabs.addTab(scroll_when_small(self.settings_tab), "Settings")
        # A lab exercise's guided view: a tab shown while an exercise is open.
        self.exercises = ExerciseController(self, ExerciseView(self.context), self)
        # Above the tabs, shown only when the database failed its start-up check.
        self.banner = QLabel()
        self.banner.setObjectName("database_banner")
        self.banner.setAccessibleName("Database problem")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            "QLabel { background: #fdecea; color: #611a15; border: 1px solid #f5c6cb; "
            "padding: 8px; }"
        )
        self.banner.hide()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.banner)
        column.addWidget(self.tabs)
        self.setCentralWidget(central)
        self.status_label = WrappedLabel()  # a long sentence wraps at words, never cut
        self.status_label.setObjectName("status_text")
        self.status_label.setAccessibleName("Status")
        self.statusBar().addWidget(self.status_label, 1)
        self.measure.status_message.connect(self.status_label.setText)
        self.measure.status_withdrawn.connect(self._withdraw)
        self.compare_tab.status_message.connect(self.status_label.setText)
        self.responsiveness.status_message.connect(self.status_label.setText)
        self.class_tab.status_message.connect(self.status_label.setText)
        self.measure.session_saved.connect(lambda _sid: self.sessions.refresh())
        # A file saved before is old news once a measurement starts: its notice goes.
        for tab in (self.measure, self.responsiveness):
            tab.running_changed.connect(lambda on: dismiss_saved(self) if on else None)
        self.responsiveness.result_kept.connect(lambda _id: self.sessions.refresh())
        self.responsiveness.show_requested.connect(self._show_result)
        self.sessions.resume_requested.connect(self._resume)
        self.sessions.compare_requested.connect(self._compare)
        self.sessions.status_message.connect(self.status_label.setText)
        self._hint = ""  # the Sessions tab's hint in the status bar, while it holds
        self.sessions.hint_changed.connect(self._hint_changed)
        self._charted = ChartedSession(self.measure)
        self.sessions.sessions_deleted.connect(self._charted.forget)
        self.sessions.sessions_restored.connect(self._charted.bring_back)
        self.sessions.sessions_deleted.connect(self.compare_tab.forget_sessions)
        self.sessions.exchange.job_finished.connect(self._import_handed_over)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.context.settings_changed.connect(self.measure.engines_changed)
        self._build_menus()
        self.resize(first_size(self.screen().availableGeometry().size()))
        self._restore_layout()
        self._shut_down = False
        self._guide: QWidget | None = None
        self.handed_over_count = 0  # second launches that brought this window to the front
        self._handed_over: list[Path] = []
        self._checked_db = self.context.db_path
        self._check_database(self._start_up)
        self.context.settings_changed.connect(self._settings_changed)
        if open_files:  # `linklab FILE...`: imported once the event loop runs, window shown
            files = list(open_files)
            QTimer.singleShot(0, self, lambda: self.open_handed_over(files))

    def _check_database(self, work: Callable[[], str]) -> None:
        """The database checked in the background (work), the banner and Start following."""
        self.context.unwritable = None
        self._checker = Worker(once(work), "startup")
        self._checker.yielded.connect(self._started_up)
        self._checker.failed.connect(self._started_up)
        self._checker.start()

    def _start_up(self) -> str:
        """Off the GUI thread: servers a LinkLab that is gone left running stopped, the
        whole-file check of the database, and sessions left running by a LinkLab that is gone
        marked interrupted; "" when it went well (a LinkLabError's sentence comes as the
        worker's failure)."""
        door = self.context.door()
        door.startup()
        if door.db_path == self._checked_db:  # else another file was chosen meanwhile
            self.context.unwritable = door.unwritable  # only read for the rest of the session
        return ""

    def _checked_again(self) -> str:
        """Off the GUI thread: the database part of _start_up, for another file chosen."""
        door = self.context.door()
        door.check_database()
        if door.db_path == self._checked_db:
            self.context.unwritable = door.unwritable
        return ""

    def _settings_changed(self) -> None:
        if self.context.db_path != self._checked_db:  # another file: checked as at start-up
            self._checked_db = self.context.db_path
            self._check_database(self._checked_again)

    def _started_up(self, problem: str) -> None:
        unwritable = self.context.unwritable
        self.measure.database_checked()
        self.banner.setVisible(bool(unwritable))
        if unwritable:
            self.banner.setText(unwritable)
            self.status_label.setText(
                "Nothing can be saved to the database: see the note above the tabs."
            )
            if self.tabs.currentWidget() is self.sessions:
                self.sessions.refresh()
        elif problem:
            self.status_label.setText(problem)
            self.sessions.show_error(problem)
        elif self.tabs.currentWidget() is self.sessions:
            self.sessions.refresh()

    # -- menus -----------------------------------------------------------------------------
    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        import_action = QAction("&Import sessions…", self)
        import_action.setShortcut(QKeySequence.StandardKey.Open)
        import_action.triggered.connect(self._ask_import)
        file_menu.addAction(import_action)
        file_menu.addSeparator()
        self.exercises.add_actions(file_menu, self)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.presets_menu = self.menuBar().addMenu("&Presets")
        self.presets_menu.aboutToShow.connect(self._fill_presets)
        self._fill_presets()
        help_menu = self.menuBar().addMenu("&Help")
        guide = QAction("LinkLab &guide", self)
        guide.setShortcut(QKeySequence(Qt.Key.Key_F1))
        guide.triggered.connect(self.show_guide)
        help_menu.addAction(guide)
        about = QAction("About LinkLab", self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)

    def _fill_presets(self) -> None:
        self.presets_menu.clear()
        try:
            presets = list_presets(self.preset_dir)
        except BadOption as err:
            self.status_label.setText(err.sentence)
            presets = []
        own = False
        for preset in presets:
            if preset.user and not own:
                own = True
                self.presets_menu.addSection("Your presets")
            action = QAction(preset.title, self)
            action.setToolTip(preset.description)
            action.setStatusTip(preset.description)
            action.triggered.connect(lambda _=False, p=preset: self._apply_preset(p))
            self.presets_menu.addAction(action)
        self.presets_menu.addSeparator()
        responsiveness = QAction("Responsiveness test (working latency)", self)
        responsiveness.setStatusTip("Rate how responsive the link stays under load, in RPM.")
        responsiveness.triggered.connect(lambda: self.tabs.setCurrentWidget(self.responsiveness))
        self.presets_menu.addAction(responsiveness)
        save = QAction("Save current plan as preset…", self)
        save.triggered.connect(self._save_preset)
        self.presets_menu.addAction(save)

    def _apply_preset(self, preset: Preset) -> None:
        """Fill the form from a preset and say what it changed and how long it will take."""
        setup = self.measure.setup
        before, _ = setup.build_candidate()
        # The link's conditions stay what the user said; the preset sets what to measure.
        plan = replace(preset.for_peer(before.peer), conditions=before.conditions)
        setup.set_plan(plan)
        setup.pages.setCurrentIndex(0)
        self.tabs.setCurrentWidget(self.measure)
        changed = changes(before, plan)
        what = "; ".join(changed) if changed else "nothing: the form already held this plan"
        text = f"Preset “{preset.title}” set {what}. It plans {extent_text(plan)}."
        setup.show_notice(text)
        self.status_label.setText(f"Preset “{preset.title}”: {extent_text(plan)}.")

    def _save_preset(self) -> None:
        plan = self.measure.setup.plan()
        if plan is None:
            self.status_label.setText("The plan has problems: fix them before saving it.")
            return
        title, ok = QInputDialog.getText(self, "Save preset", "Name of the preset:")
        if not ok or not title.strip():
            return
        name = "".join(ch if ch.isalnum() else "-" for ch in title.strip().lower()).strip("-")
        try:
            path = save_preset(plan, name or "preset", title.strip(), "", self.preset_dir)
        except (BadOption, OSError) as err:
            self.status_label.setText(getattr(err, "sentence", str(err)))
            return
        self.status_label.setText(f"Saved the preset {title.strip()!r} ({path.name}).")

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About LinkLab",
            f"LinkLab {__version__}\nMeasure what a network link really "
            f"delivers, and what a setting costs.",
        )

    def show_guide(self) -> None:
        from app.ui.guide import GuideDialog

        if self._guide is None:
            self._guide = GuideDialog(self)
        self._guide.show()
        self._guide.raise_()
        self._guide.activateWindow()

    # -- tabs ------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """A sentence in the status bar."""
        self.status_label.setText(text)

    def _withdraw(self, text: str) -> None:
        """A sentence whose condition was fixed leaves the status bar, unless another one
        followed it there."""
        if self.status_label.text() == text:
            self.status_label.setText("")

    def _hint_changed(self, text: str) -> None:
        """The Sessions tab's hint (what its selection is for) in place of the one before, said
        while that tab is on view."""
        self._withdraw(self._hint)
        self._hint = text
        if text and self.tabs.currentWidget() is self.sessions:
            self.status_label.setText(text)

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is not self.sessions:
            self._withdraw(self._hint)  # said of the tab left: no longer what is on view
        if self.tabs.widget(index) is self.sessions:
            self.sessions.refresh()

    def _show_result(self, result_id: str) -> None:
        """A kept responsiveness result, selected and shown in Sessions."""
        self.sessions.search.clear()  # a search or status chosen before must not hide it
        self.sessions.status_filter.setCurrentIndex(0)
        self.tabs.setCurrentWidget(self.sessions)
        self.sessions.refresh(select=[result_id])

    def _resume(self, session_id: str) -> None:
        if self.measure.running:
            self.status_label.setText("A study is running: stop it before resuming another.")
            return
        self.tabs.setCurrentWidget(self.measure)
        self.measure.resume(session_id)

    def _ask_import(self) -> None:
        self.tabs.setCurrentWidget(self.sessions)
        self.sessions.exchange.ask_import()

    def import_files(self, paths: Sequence[Path]) -> bool:
        """Import exchange files on the Sessions tab, where the outcome is shown."""
        self.tabs.setCurrentWidget(self.sessions)
        return self.sessions.import_files(paths)

    def open_handed_over(self, paths: Sequence[Path]) -> None:
        """Files of `linklab FILE...`, this one's or another's handed over: imported in turn,
        after any import or export running."""
        exercises = [p for p in paths if p.suffix.lower() == EXERCISE_SUFFIX]
        for path in exercises:  # an exercise opens in its guided view; the rest is imported
            self.exercises.open_file(path)
        rest = [p for p in paths if p not in exercises]
        if not rest:
            return
        self._handed_over.extend(rest)
        self.tabs.setCurrentWidget(self.sessions)
        self._import_handed_over()

    def _import_handed_over(self) -> None:
        if self._handed_over and not self.sessions.exchange.busy:
            paths, self._handed_over = self._handed_over, []
            self.import_files(paths)

    def _compare(self, session_ids: list[str]) -> None:
        self.compare_tab.load_sessions(session_ids)
        self.tabs.setCurrentWidget(self.compare_tab)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter presses the push button that has the keyboard focus, as Space does (Qt does so
        only in dialogs): a key event no control took comes here."""
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        focus = QApplication.focusWidget()
        if enter and plain and isinstance(focus, QPushButton) and focus.window() is self:
            if focus.isEnabled() and focus.isVisible():
                focus.click()
            event.accept()
            return
        super().keyPressEvent(event)

    # -- layout and closing ----------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.context.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.measure.running and not self._shut_down:
            title, question = closing_question(monitor=self.measure.monitor.running)
            answer = QMessageBox.question(
                self,
                title,
                question,
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No,
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self.context.settings.setValue("window/geometry", self.saveGeometry())
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the study and the local servers; safe to call more than once."""
        if self._shut_down:
            return
        self._shut_down = True
        self.measure.stop_and_wait()
        self.responsiveness.stop_and_wait()
        if self.class_tab.together is not None:
            self.class_tab.together.shutdown()
        if self.class_tab.live is not None:
            self.class_tab.live.shutdown()  # this computer's collector, when collecting
        self.exercises.shutdown()  # the pushes still waiting stay queued on disk
        self.servers.stop_all()
        self.sessions.exchange.wait()
