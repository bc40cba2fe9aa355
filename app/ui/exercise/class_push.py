"""The exercise's runs pushed to the class's collector from the window: when the exercise names
a collector, each finished run (and the session's start and end, and the answers) is queued
and sent in the background, and the Exercise tab says what was sent and what still waits."""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.domain.errors import LinkLabError
from app.domain.exercise import Exercise
from app.store.outbox import OutboxStatus
from app.study.lab.class_station import ClassPusher
from app.ui.common.background import Background


class ClassPush(QObject):
    """One student's pushes of one exercise, while the exercise is open."""

    status_changed = Signal(object)  # OutboxStatus, from the sending thread (queued)

    def __init__(self, exercise: Exercise, db_path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        assert exercise.collector is not None
        self.exercise = exercise
        self.url = exercise.collector.url
        self._token = exercise.collector.token
        self._db_path = db_path
        self._pusher: ClassPusher | None = None
        self._syncer = Background(self)

    def sync(self, student: str) -> None:
        """Queue what is new of this student's work and send it (in the background)."""
        student = student.strip()
        if not student or not self._token:
            return
        pusher = self._pusher
        if pusher is None or pusher.student != student:
            self.close()
            pusher = ClassPusher(
                self._db_path,
                self.exercise,
                student,
                self.url,
                self._token,
                on_change=self.status_changed.emit,
            )
            self._pusher = pusher
            self._syncer.run(pusher.start, lambda _p: None, lambda _sentence: None)
            return
        self._syncer.run(pusher.sync, lambda _n: None, lambda _sentence: None)

    @property
    def pusher(self) -> ClassPusher | None:
        """The student's pusher, once their name is typed."""
        return self._pusher

    def status(self) -> OutboxStatus | None:
        return self._pusher.status() if self._pusher is not None else None

    def close(self) -> None:
        pusher, self._pusher = self._pusher, None
        if pusher is not None:
            with contextlib.suppress(LinkLabError):
                pusher.close()
