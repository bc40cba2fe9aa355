"""The class token is a password: the collector's console shows it once, only when it made it,
and never in a suggested command line or a log line; a student's database keeps the
collector's address in the stored exercise and the token apart, while the runs still reach a
real collector on the loopback."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
from pathlib import Path

from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.outbox import outbox_path
from app.study.lab.class_http import call
from app.study.lab.class_station import announce_pool
from app.study.lab.exercises import read_exercise, write_exercise
from tests.classlive import INSTRUCTOR, TOKEN, short_exercise
from tests.conftest import free_port, require_engine
from tests.test_cli_class_live import Running, start_collector
from tests.test_cli_study import linklab

STUDENT = "Ann Lee"


def _lines_with(text: str, token: str) -> list[str]:
    return [line for line in text.splitlines() if token in line]


def test_the_collector_shows_a_token_it_made_once_and_never_in_a_command(tmp_path: Path) -> None:
    exercise_file = write_exercise(tmp_path / "lab.linklab-exercise", short_exercise())
    token_file = tmp_path / "class.token"  # missing: the collector makes a new token
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    store = f"sqlite:{tmp_path / 'class.sqlite3'}"
    collector = Running(
        tmp_path / "collector.log",
        "class-server", "--listen", f"127.0.0.1:{port}", "--store", store,
        "--token-file", str(token_file), "--exercise", str(exercise_file),
    )  # fmt: skip
    try:
        collector.wait_for("Press Ctrl+C to stop.")
        token = token_file.read_text(encoding="utf-8").strip()
        instructor_file = tmp_path / "instructor.token"  # made beside it, the owner's alone
        instructor = instructor_file.read_text(encoding="utf-8").strip()
        assert instructor != token
        if sys.platform != "win32":  # Windows keeps a user's files to the user by their folder
            assert instructor_file.stat().st_mode & 0o077 == 0
        # A refused request and an accepted one are both logged: neither line has the token.
        assert call(url, "not-the-class-token", "/v1/class").status == 401
        announce_pool(url, instructor, [free_port()], "iperf3", "127.0.0.1")
        collector.wait_for("refused 127.0.0.1")
        collector.wait_for("pool of 1 iperf3 server(s)")
    finally:
        stopped = collector.stop()
    # Windows has no SIGTERM: the process is ended from outside, with status 1.
    assert stopped == 0 or sys.platform == "win32"
    text = collector.text()
    for secret in (token, instructor):
        shown = _lines_with(text, secret)
        assert len(shown) == 1, text
        assert "--token" not in shown[0] and "[" not in shown[0], text  # no command, no log
    assert "Keep the instructor token to yourself" in text
    assert instructor not in exercise_file.read_text(encoding="utf-8")  # never handed out
    assert "Students: linklab run --exercise FILE --student NAME" in text  # what to type
    # The exercise handed out carries it (that is how it reaches the students).
    named = read_exercise(exercise_file).collector
    assert named is not None and named.token == token

    # Started again with the same token file: the instructor already has the token. (On a
    # new port: under Wine the ended collector's port can stay taken for a moment.) A token
    # file other users can read is used, with a warning that says how to make it private.
    if sys.platform != "win32":
        token_file.chmod(0o644)
    again = Running(
        tmp_path / "again.log",
        "class-server", "--listen", f"127.0.0.1:{free_port()}", "--store", store,
        "--token-file", str(token_file),
    )  # fmt: skip
    try:
        again.wait_for("Press Ctrl+C to stop.")
    finally:
        stopped = again.stop()
    assert stopped == 0 or sys.platform == "win32"
    assert _lines_with(again.text(), token) == [], again.text()
    assert _lines_with(again.text(), instructor) == [], again.text()
    assert str(token_file) in again.text()  # it says where the token is
    if sys.platform != "win32":
        warned = f"Other users of this computer can read {token_file}"
        assert warned in again.text() and f"chmod 600 {token_file}" in again.text()
        assert str(tmp_path / "instructor.token") + "," not in again.text()  # that one is 0600
    assert f"--token-file FILE (FILE: a copy of {token_file}" in again.text()


def test_a_students_database_keeps_the_address_and_the_token_apart(tmp_path: Path) -> None:
    require_engine("iperf3")
    exercise_file = write_exercise(tmp_path / "lab.linklab-exercise", short_exercise())
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    class_db = tmp_path / "class.sqlite3"
    collector = start_collector(
        tmp_path, f"sqlite:{class_db}", port, "--exercise", str(exercise_file)
    )
    db = tmp_path / "ann.sqlite3"
    try:
        done = linklab(
            "run", "--exercise", str(exercise_file), "--student", STUDENT,
            "--peer", "this-computer", "--db", str(db), "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "sent to the class." in done.stderr
        session_id = json.loads(done.stdout)["session_id"]
        done = linklab(
            "exercise", "answer", str(exercise_file), "--student", STUDENT,
            "--question", "E.1", "--text", "Windows matter.", "--db", str(db),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        pushed = linklab(
            "exercise", "push", str(exercise_file), "--student", STUDENT,
            "--db", str(db), "--wait", "20", "--json",
        )  # fmt: skip
        assert pushed.returncode == 0, pushed.stderr
        assert json.loads(pushed.stdout)["waiting"] == 0
        assert call(url, TOKEN, "/v1/class").status == 403  # the class token reads no class
        answer = call(url, INSTRUCTOR, "/v1/class")
        assert answer.status == 200
    finally:
        assert collector.stop() == 0
    # The hand-in went the whole way: both runs and the answer are in the class's store.
    with contextlib.closing(sqlite3.connect(class_db)) as conn:
        assert conn.execute("SELECT count(*) FROM class_runs").fetchone() == (2,)
        (answers,) = conn.execute("SELECT answers_json FROM class_work").fetchone()
    assert json.loads(answers) == {"E.1": "Windows matter."}
    assert TOKEN not in collector.text()  # the token file was there: nothing to show

    with contextlib.closing(sqlite3.connect(db)) as conn:
        (stored,) = conn.execute("SELECT exercise_json FROM exercise_work").fetchone()
        plans = [r[0] for r in conn.execute("SELECT plan_json FROM sessions")]
    assert TOKEN not in stored
    assert json.loads(stored)["collector"] == {"url": url}
    assert plans and not any(TOKEN in plan for plan in plans)
    # Kept apart, the student's LinkLab still has it for the next push.
    with Database(db, readonly=True) as database:
        work = ExerciseStore(database).work(read_exercise(exercise_file).id, STUDENT)
    assert work.exercise.collector is not None
    assert (work.exercise.collector.url, work.exercise.collector.token) == (url, TOKEN)
    # What leaves the computer has none of it: the hand-in file, the session export, the outbox.
    for kind, out in (("handin", tmp_path / "ann.linklab"), ("json", tmp_path / "ann.json")):
        done = linklab("export", session_id, "--format", kind, "--out", str(out), "--db", str(db))
        assert done.returncode == 0, done.stderr
        assert TOKEN not in out.read_text(encoding="utf-8")
    assert TOKEN.encode() not in outbox_path(db).read_bytes()
