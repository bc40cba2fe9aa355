"""The class token kept apart from a student's stored exercise (schema 10): begun with a token,
the exercise row holds the collector's address only and the work read back has both; a
schema 8 file moves its tokens out when it migrates, and one only read still has its own."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from app.domain.collector import Collector
from app.domain.exercise import Exercise, exercise_json
from app.store.db import Database
from app.store.exercises import ExerciseStore
from tests.classlive import TOKEN, short_exercise
from tests.store.old_files import class_tokens_before_schema_10, sessions_before_schema_9

URL = "http://192.0.2.10:8470"


def _exercise(token: str = TOKEN) -> Exercise:
    return replace(short_exercise(), collector=Collector(URL, token))


def _stored(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return [row[0] for row in conn.execute("SELECT exercise_json FROM exercise_work")]


def test_the_stored_exercise_names_the_collector_and_not_its_token(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    exercise = _exercise()
    with Database(path) as db:
        work = ExerciseStore(db).begin(exercise, "Ann Lee")
        assert work.exercise == exercise  # read back whole: the token joined in
        # A new exercise file from a collector started again with a new token: the newest wins.
        other = replace(_exercise("a-newer-class-token"), id=exercise.id + "b")
        ExerciseStore(db).begin(other, "Ann Lee")
        again = ExerciseStore(db).work(exercise.id, "Ann Lee").exercise.collector
    assert again == Collector(URL, "a-newer-class-token")
    for text in _stored(path):
        assert json.loads(text)["collector"] == {"url": URL}
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT collector_url, token FROM class_tokens").fetchall() == [
            (URL, "a-newer-class-token")
        ]


def _schema_8_file(path: Path, exercise: Exercise) -> None:
    """A file as LinkLab wrote it before schemas 9 and 10: the token inside the stored
    exercise."""
    with Database(path) as db:
        ExerciseStore(db).begin(replace(exercise, collector=None), "Ann Lee")
    with contextlib.closing(sqlite3.connect(path)) as conn:
        class_tokens_before_schema_10(conn)
        sessions_before_schema_9(conn)
        conn.execute("UPDATE exercise_work SET exercise_json = ?", (exercise_json(exercise),))
        conn.execute("PRAGMA user_version = 8")
        conn.commit()


def test_a_schema_8_file_moves_its_tokens_out(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    exercise = _exercise()
    _schema_8_file(path, exercise)
    assert TOKEN in _stored(path)[0]
    # Only read (not migrated): the token is where that file keeps it.
    with Database(path, readonly=True) as db:
        assert db.version == 8
        assert ExerciseStore(db).work(exercise.id, "Ann Lee").exercise == exercise
    with Database(path) as db:
        assert db.version >= 10
        assert ExerciseStore(db).work(exercise.id, "Ann Lee").exercise == exercise
    (stored,) = _stored(path)
    assert TOKEN not in stored and json.loads(stored)["collector"] == {"url": URL}


def test_a_damaged_stored_exercise_does_not_stop_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _schema_8_file(path, _exercise())
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE exercise_work SET exercise_json = '{not json'")
        conn.commit()
    with Database(path) as db:
        assert db.version >= 10
    assert _stored(path) == ["{not json"]
