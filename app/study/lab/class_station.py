"""A student's station pushing their work to the class's collector as they go: after every
finished run (and when a session starts or ends, and when answers change) what is new is
queued in the outbox and sent; the station also asks the collector which engine server is its
own."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import urllib.parse
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

from app.domain.errors import BadOption, LinkLabError
from app.domain.exercise import Exercise
from app.domain.units import counted
from app.engine.drivers.registry import main_server
from app.store.db import Database
from app.store.outbox import Outbox, OutboxStatus, outbox_path
from app.study.lab.class_http import call
from app.study.lab.class_push import station_pushes
from app.study.lab.sender import Sender
from app.study.sweep.events import (
    RunFailed,
    RunFinished,
    SessionFinished,
    SessionStarted,
    StudyEvent,
)

__all__ = ["ClassPusher", "PoolRefused", "announce_pool", "my_server"]

R = TypeVar("R")


class PoolRefused(BadOption):
    """The collector refused the credential the pool was announced with (401, 403): telling
    it again with the same one cannot help."""


class ClassPusher:
    """One student's work on one exercise, pushed to one collector."""

    def __init__(
        self,
        db_path: Path,
        exercise: Exercise,
        student: str,
        url: str,
        token: str,
        on_change: Callable[[OutboxStatus], None] | None = None,
    ) -> None:
        self.db_path = db_path
        self.exercise = exercise
        self.student = student
        self.url = url
        self.outbox = Outbox(outbox_path(db_path))
        self.sender = Sender(self.outbox, url, token, on_change=on_change)
        self._lock = threading.Lock()
        self._started = False
        self._closed = False  # the outbox is closed: a sync or start still queued does nothing

    def start(self) -> ClassPusher:
        """Send whatever waits from before (a collector that was down, a LinkLab that was
        closed), then what is new."""
        self.sync()
        with self._lock:
            if not self._closed:
                self.sender.start()
                self._started = True
        return self

    def sync(self) -> int:
        """Queue what is not queued yet; how many pushes were added."""
        if not self.db_path.is_file():
            return 0
        with self._lock:
            if self._closed:  # the exercise was closed while this sync waited its turn
                return 0
            added = self._queue_new()
        if added:
            self.sender.wake()
        return added

    def _queue_new(self) -> int:
        added = 0
        with Database(self.db_path, readonly=True) as db:
            known = self.outbox.known(self.url)
            try:
                for item in station_pushes(db, self.exercise, self.student, known):
                    body = json.dumps(item.document, ensure_ascii=False, allow_nan=False)
                    if self.outbox.add(
                        self.url, item.item_id, body.encode("utf-8"), item.digest, item.once
                    ):
                        added += 1
            except BadOption:
                return 0  # the student has not begun the exercise here: nothing to push
        return added

    def queue(self, item_id: str, document: dict[str, Any]) -> None:
        """Queue one document of a round together (sent once, until acknowledged)."""
        body = json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8")
        digest = hashlib.sha256(body).hexdigest()
        with self._lock:
            if self._closed:
                return
            self.outbox.add(self.url, item_id, body, digest, True)
        self.sender.wake()

    def pushing(self, events: Generator[StudyEvent, None, R]) -> Generator[StudyEvent, None, R]:
        """A study's events passed on as they come, with what is new pushed after each
        finished run (and at a session's start and end); what the study returns."""
        while True:
            try:
                event = next(events)
            except StopIteration as end:
                result: R = end.value
                return result
            yield event
            final_failure = isinstance(event, RunFailed) and not event.will_retry
            if final_failure or isinstance(event, RunFinished | SessionStarted | SessionFinished):
                with contextlib.suppress(LinkLabError):  # pushed at the next sync instead
                    self.sync()

    def status(self) -> OutboxStatus:
        return self.sender.status()

    def close(self, flush_s: float = 0.0) -> OutboxStatus:
        """Stop sending (after up to flush_s seconds of trying); what is left waits on disk."""
        status = self.sender.flush(flush_s) if self._started and flush_s > 0 else self.status()
        self.sender.stop()
        with self._lock:  # a sync under way finishes with the outbox first
            self._closed = True
            self.outbox.close()
        return status


def my_server(url: str, token: str, student: str) -> tuple[str, int, str]:
    """(host, port, engine) of the engine server the collector gave this student;
    BadOption with the collector's sentence when it has none."""
    query = urllib.parse.urlencode({"student": student})
    answer = call(url, token, f"/v1/station?{query}")
    if answer.status == 200 and isinstance(answer.data, dict):
        data = answer.data
        host, port = data.get("host"), data.get("port")
        if isinstance(host, str) and isinstance(port, int):
            return host, port, str(data.get("engine", main_server().name))
    words = answer.sentence or "it gave no server"
    raise BadOption(f"The collector could not tell which server is yours: {words.rstrip('.')}.")


def announce_pool(
    url: str, token: str, ports: list[int], engine: str, host: str | None, shared: bool = False
) -> str:
    """Tell the collector which servers serve the class; the sentence to print (or the
    problem, when it could not be told)."""
    body: dict[str, object] = {"ports": ports, "engine": engine, "shared": shared}
    if host:
        body["host"] = host
    answer = call(url, token, "/v1/pool", json.dumps(body).encode())
    if answer.status == 200:
        return (
            f"Told the class's collector at {url}: {counted(len(ports), f'{engine} server')}; "
            "each station is given its own port."
            if not shared
            else f"Told the class's collector at {url}: one {engine} server for every station."
        )
    refused = PoolRefused if answer.status in (401, 403) else BadOption
    raise refused(
        f"The class's collector at {url} was not told about the servers: "
        f"{(answer.sentence or str(answer.status)).rstrip('.')}."
    )
