"""One study running in this process: events() measures as it is read (in one thread), with
the runner its plan needs, a sweep's or a monitor's, until the plan is done or stop() is
called (from any thread)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.domain.plan import Engine, Plan
from app.domain.stream import drive
from app.engine.drivers.registry import EngineDriver
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.events import StudyEvent, StudyPrepared
from app.study.sweep.outcomes import Outcome
from app.study.sweep.run_to_end import Runner
from app.study.sweep.runner import StudyRunner


class StudyRun:
    """One study: events() measures as it is read until the plan is done or stop() is called
    (from any thread); its first event is the plan as it runs (StudyPrepared)."""

    def __init__(
        self,
        db_path: Path,
        plan: Plan,
        *,
        advice: tuple[str, ...] = (),
        environment: dict[str, Any] | None = None,
        resume_session: str | None = None,
        notes: tuple[str, ...] = (),
        drivers: Mapping[Engine, EngineDriver] | None = None,
        server_notes: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.db_path = db_path
        self._server_notes = server_notes
        self._drivers = drivers
        self.plan = plan
        self.notes = notes
        self._advice = advice  # said with the plan, before the first run
        self._environment = environment
        self._resume = resume_session
        self._runner: Runner | None = None
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    @property
    def session_id(self) -> str | None:
        runner = self._runner
        return runner.session_id if runner is not None else self._resume

    def stop(self) -> None:
        """Thread-safe: the run in progress ends within about a second, finished runs stay."""
        self._stopped.set()
        with self._lock:
            runner = self._runner
        if runner is not None:
            runner.stop()

    @property
    def stopping(self) -> bool:
        return self._stopped.is_set()

    def events(self) -> Generator[StudyEvent, None, Outcome]:
        yield StudyPrepared(self.plan, self.notes + self._advice)
        with Database(self.db_path) as db:
            db.require_writable()
            runner_class: type[Runner] = StudyRunner
            if self.plan.is_monitor:  # one flow until stopped (loaded only when used)
                from app.study.sweep.monitor import MonitorRunner

                runner_class = MonitorRunner
            runner = runner_class(
                SessionStore(db),
                self.plan,
                environment=self._environment,
                resume_session=self._resume,
                reason=" ".join(self.notes),
                drivers=self._drivers,
                server_notes=self._server_notes,
            )
            with self._lock:
                self._runner = runner
            if self._stopped.is_set():
                runner.stop()
            return (yield from runner.events())

    def run(self) -> Outcome:
        """The whole study for a caller that wants only its outcome (its events unread)."""
        return drive(self.events())
