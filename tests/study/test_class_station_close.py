"""A student's pushes stop cleanly when the exercise closes: a sync or start still queued in
the background after the close does nothing (the outbox is closed), instead of raising."""

from __future__ import annotations

from pathlib import Path

from app.store.db import Database
from app.study.lab.class_station import ClassPusher
from tests.classlive import TOKEN, short_exercise


def test_a_sync_or_start_after_close_does_nothing(tmp_path: Path) -> None:
    db = tmp_path / "linklab.sqlite3"
    with Database(db):
        pass  # the student's database, nothing measured yet
    pusher = ClassPusher(db, short_exercise(), "Ann Lee", "http://127.0.0.1:9", TOKEN)
    pusher.close()
    assert pusher.sync() == 0
    pusher.start()
    assert not pusher.sender._thread.is_alive()  # no sender on a closed outbox
