"""The Class tab collecting live, as an instructor uses it: Collect live switched on, the
address and class token read off the tab, a student's station pushing over real HTTP, and the
student's row appearing in the table by itself; switched off, the collector is gone."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from app.domain.collector import Collector as CollectorAddress
from app.domain.exercise import Exercise
from app.store.class_backends import open_class_store
from app.store.db import Database
from app.study.lab.class_http import call
from app.study.lab.class_push import station_pushes
from app.study.lab.collector import Collector
from app.study.lab.exercises import find_ready, write_exercise
from app.ui.main_window import MainWindow
from tests.classlive import INSTRUCTOR, TOKEN, short_exercise
from tests.conftest import free_port
from tests.ui.class_handins import Student, _measure
from tests.ui.test_exercise_flow import open_file
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
    shown = re.search(r"Students send to (\S+) · token (\S+)", user.text("Collector address"))
    assert shown is not None
    url, token = shown.groups()
    url = url.replace(url.split("//")[1].split(":")[0], "127.0.0.1")  # the test's own loopback
    # The tab's own sentence, or the collector's once its first read is back (sooner on a
    # faster or slower machine): both say nothing has arrived.
    assert "no student's work has arrived yet" in user.text("Class").lower()
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


@pytest.mark.usefixtures("iperf3_tool")  # the student measures this computer for real
def test_a_students_window_sends_each_run_to_the_class(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    """The student's side: an exercise that names the collector, a step measured with Start,
    each run sent as it ends; the Exercise tab says what was sent."""
    exercise = short_exercise()
    store = open_class_store(f"sqlite:{tmp_path / 'class.sqlite3'}")
    collector = Collector(store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR)
    collector.start()
    try:
        named = replace(exercise, collector=CollectorAddress(collector.url, TOKEN))
        source = write_exercise(tmp_path / "live.linklab-exercise", named)
        with user.answering(open_file(source)):
            user.menu("File", "Open exercise…")
        assert f"go to the class at {collector.url}" in user.text("Sent to the class")
        user.type("Your name", "Ann Lee", enter=True)
        user.click_row("Steps", 0)
        user.click("Set up this step")
        user.click("Start")
        wait_for(lambda: not window.measure.running, 120, "the step")
        wait_for(lambda: store.counts()["runs"] == 2, 20, "both runs at the collector")
        user.tab("Exercise")
        sent = re.compile(r"Class at \S+: \d+ sent to the class\.$")
        wait_for(lambda: sent.match(user.text("Sent to the class")), 20, "all sent")
        assert store.counts() == {"work": 1, "sessions": 1, "runs": 2}
    finally:
        collector.stop()
        store.close()


@pytest.mark.usefixtures("iperf3_tool")  # starts this computer's iperf3 servers
def test_the_server_tab_runs_a_server_for_each_station(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    """The instructor's journey to a pool: Collect live on the Class tab, Copy instructor
    token, then the Server tab's pool with the token pasted: two iperf3 servers for two
    stations, registered with the collector, which gives each student their own port. The
    class token (which every student has) is refused there, and nothing is registered."""
    user.tab("Class")
    user.type("Collector port", str(free_port()))
    user.check("Collect live")
    wait_for(lambda: "Students send to" in user.text("Collector address"), 10, "the address")
    shown = re.search(r"Students send to (\S+) · token (\S+)", user.text("Collector address"))
    assert shown is not None
    url, token = shown.groups()
    url = url.replace(url.split("//")[1].split(":")[0], "127.0.0.1")  # the test's own loopback
    instructor_file = window.context.db_path.with_name("instructor.token")
    instructor = instructor_file.read_text(encoding="utf-8").strip()
    assert instructor not in user.visible_text()  # never on screen (a projector shows it)
    first = free_port()
    try:
        # The class token first, as a student who read it off an exercise would try.
        user.tab("Server")
        user.type("Stations", "2")
        user.type("First port", str(first))
        user.type("Collector", url)
        user.type("Instructor token", token)
        user.click("Start the pool")
        wait_for(lambda: "needs the instructor token" in user.text("Pool status"), 20, "refusal")
        assert call(url, token, "/v1/station?student=S0").status == 404  # nothing registered
        user.click("Stop the pool")

        user.tab("Class")
        user.click("Copy instructor token")
        assert QGuiApplication.clipboard().text() == instructor
        assert "Copied the instructor token" in user.text("Status")
        user.tab("Server")
        user.type("Instructor token", "")
        user.key(Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # pasted as a user does
        user.click("Start the pool")
        wait_for(lambda: "Told the class's collector" in user.text("Pool status"), 20, "the pool")
        assert f"2 iperf3 servers on ports {first}–{first + 1}." in user.text("Pool status")
        given = [call(url, token, f"/v1/station?student=S{n}") for n in range(3)]
        assert [a.status for a in given] == [200, 200, 404]
        assert {a.data["port"] for a in given[:2]} == {first, first + 1}
        user.click("Stop the pool")
        assert window.servers.pool == []
    finally:
        user.tab("Class")
        user.check("Collect live", False)


# Over 10 s: the window follows a class collector run by another process.
def test_open_live_class_follows_a_collector_elsewhere(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    """An instructor (or a colleague) reads a class that another LinkLab collects: Open live
    class… asks for the collector's address and the instructor token, the students' rows appear,
    and a run that arrives later shows up without a click. A wrong token is told, not shown
    as an empty class."""
    exercise = find_ready("open-vs-wpa2")
    store = open_class_store(f"sqlite:{tmp_path / 'class.sqlite3'}")
    collector = Collector(store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR)
    collector.start()

    def answer(label: str, text: str) -> Callable[[User], None]:
        def typed(dialog: User) -> None:
            dialog.type(label, text)
            dialog.click("OK")

        return typed

    source = answer("Collector (http://HOST:PORT) or postgresql://…", collector.url)
    try:
        for document in pushes(tmp_path, exercise, Student(ANA, "G1", 1)):
            assert call(collector.url, TOKEN, "/v1/push", document).status == 200
        user.tab("Class")
        with user.answering(source, answer("Instructor token", "not-the-class-token")):
            user.click("Open live class…")
        refused = "The class token is missing or wrong"
        wait_for(lambda: refused in user.text("Class"), 10, "the refused token")
        assert user.table_rows("Students") == []
        # The class token (every student has it) does not read the whole class either.
        with user.answering(source, answer("Instructor token", TOKEN)):
            user.click("Open live class…")
        wait_for(lambda: "needs the instructor token" in user.text("Class"), 10, "refused")
        assert user.table_rows("Students") == []

        with user.answering(source, answer("Instructor token", INSTRUCTOR)):
            user.click("Open live class…")
        wait_for(lambda: len(user.table_rows("Students")) == 1, 10, "Ana's row")
        (row,) = user.table_rows("Students")
        assert row[user.headers("Students").index("Student")] == ANA

        for document in pushes(tmp_path, exercise, Student(BEN, "G2", 2, 0.9)):
            assert call(collector.url, TOKEN, "/v1/push", document).status == 200
        wait_for(lambda: len(user.table_rows("Students")) == 2, 10, "Ben's row, unasked")
        students = {
            r[user.headers("Students").index("Student")] for r in user.table_rows("Students")
        }
        assert students == {ANA, BEN}
    finally:
        collector.stop()
        store.close()
