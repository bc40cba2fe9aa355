"""The study runner in a worker thread, its events re-emitted as queued Qt signals."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QThread, Signal

from app.engine.errors import EngineError
from app.store.db import Database, StoreError
from app.store.sessions import SessionStore
from app.study.events import (
    PointUpdated,
    Progress,
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SessionFinished,
    SessionStarted,
    StudyEvent,
)
from app.study.plan import Plan
from app.study.runner import StudyRunner


class StudyWorker(QThread):
    """Runs one plan (or resumes one session). Signals arrive in the GUI thread, queued;
    the worker never touches a widget and the GUI never waits for it."""

    session_started = Signal(object)  # SessionStarted
    run_started = Signal(object)  # RunStarted
    sample_arrived = Signal(object)  # SampleArrived
    run_finished = Signal(object)  # RunFinished
    run_failed = Signal(object)  # RunFailed
    point_updated = Signal(object)  # PointUpdated
    progress_changed = Signal(object)  # Progress
    session_finished = Signal(object)  # SessionFinished
    failed = Signal(str)  # a sentence: the study could not start or the database failed

    def __init__(
        self,
        plan: Plan,
        db_path: Path,
        *,
        environment: dict[str, object] | None = None,
        resume_session: str | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.db_path = db_path
        self._environment = environment
        self._resume = resume_session
        self._runner: StudyRunner | None = None
        self._stop_requested = False
        self.session_id: str | None = resume_session

    def stop(self) -> None:
        """Thread-safe: ends the run in progress within about a second."""
        self._stop_requested = True
        runner = self._runner
        if runner is not None:
            runner.stop()

    def run(self) -> None:  # QThread entry point, in the worker thread
        try:
            with Database(self.db_path) as db:
                store = SessionStore(db)
                store.mark_interrupted()
                self._runner = StudyRunner(
                    store,
                    self.plan,
                    self._emit,
                    environment=self._environment,
                    resume_session=self._resume,
                )
                if self._stop_requested:
                    self._runner.stop()
                self._runner.run()
        except (EngineError, StoreError) as err:
            self.failed.emit(err.sentence)

    def _emit(self, event: StudyEvent) -> None:
        if isinstance(event, SessionStarted):
            self.session_id = event.session_id
            self.session_started.emit(event)
        elif isinstance(event, SampleArrived):
            self.sample_arrived.emit(event)
        elif isinstance(event, RunStarted):
            self.run_started.emit(event)
        elif isinstance(event, RunFinished):
            self.run_finished.emit(event)
        elif isinstance(event, RunFailed):
            self.run_failed.emit(event)
        elif isinstance(event, PointUpdated):
            self.point_updated.emit(event)
        elif isinstance(event, Progress):
            self.progress_changed.emit(event)
        elif isinstance(event, SessionFinished):
            self.session_finished.emit(event)
