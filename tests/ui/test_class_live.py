"""The Class tab collecting live, as an instructor uses it: Collect live switched on, the
address and class token read off the tab, a student's station pushing over real HTTP, and the
student's row appearing in the table by itself; switched off, the collector is gone."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.domain.exercise import Exercise
from app.store.db import Database
from app.study.class_http import call
from app.study.class_push import station_pushes
from app.study.exercises import find_ready
from app.ui.main_window import MainWindow
from tests.conftest import free_port
from tests.ui.class_handins import Student, _measure
from tests.ui.user import User, wait_for

ANA, BEN = "Ana Souza", "Ben Okafor"


def pushes(tmp_path: Path, exercise: Exercise, student: Student) -> list[bytes]:
    """What a student's LinkLab sends for their work (stored as the runner stores it)."""
    db = tmp_path / f"{student.name}.sqlite3"
    _measure(db, exercise, student)
    with Database(db, readonly=True) as database:
        items = list(station_pushes(database, exercise, student.name, set()))
    return [json.dumps(item.document).encode() for item in items]


def test_collect_live_shows_a_students_run_as_it_arrives(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    exercise = find_ready("open-vs-wpa2")
    user.tab("Class")
    user.type("Collector port", str(free_port()))
    user.check("Collect live")
    wait_for(lambda: "Students send to" in user.text("Collector address"), 10, "the address")
    shown = re.search(r"Students send to (\S+) · class token (\S+)", user.text("Collector address"))
    assert shown is not None
    url, token = shown.groups()
    url = url.replace(url.split("//")[1].split(":")[0], "127.0.0.1")  # the test's own loopback
    assert "no student's work has arrived yet" in user.text("Class")
    assert user.table_rows("Students") == []

    for document in pushes(tmp_path, exercise, Student(ANA, "G1", 1)):
        assert call(url, token, "/v1/push", document).status == 200
    wait_for(lambda: len(user.table_rows("Students")) == 1, 10, "Ana's row")
    (row,) = user.table_rows("Students")
    headers = user.headers("Students")
    assert row[headers.index("Student")] == ANA
    assert row[headers.index("Steps")] == "1/2"
    assert "live from" in user.text("Class") and "1 student" in user.text("Class")

    # Another student's runs arrive: the table follows without a click.
    for document in pushes(tmp_path, exercise, Student(BEN, "G2", 2, 0.9)):
        assert call(url, token, "/v1/push", document).status == 200
    wait_for(lambda: len(user.table_rows("Students")) == 2, 10, "Ben's row")
    assert "Class median" in user.text("Class median")

    # A wrong token is refused there too.
    assert call(url, "not-the-class-token", "/v1/health").status == 401

    user.check("Collect live", False)
    assert user.text("Collector address") == ""
    assert call(url, token, "/v1/health").status == 0  # nothing listens any more
    assert len(user.table_rows("Students")) == 2  # what arrived stays on screen
