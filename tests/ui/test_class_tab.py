"""The Class tab as an instructor uses it: the folder of hand-ins opened with the folder
dialog, the students read row by row with their flags, a step chosen for the class chart, the
exercise chosen by hand, and the grades table saved for a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest

from app.study.lab.exercises import find_ready, write_exercise
from app.ui.classroom.chart import ClassChart
from app.ui.classroom.tab import dropped_source
from app.ui.main_window import MainWindow
from tests.ui.class_handins import Student, write_class
from tests.ui.journey import confirmed, save_as
from tests.ui.user import User, wait_for

ANA, BEN, CLEO = "Ana Souza", "Ben Okafor", "Cleo Martin"


def choose_folder(path: Path) -> Callable[[User], None]:
    """What a person does in the folder dialog: type the folder's path, press Choose."""

    def answer(dialog: User) -> None:
        dialog.type("Directory", str(path))
        dialog.click("Choose")

    return answer


def choose_file(path: Path) -> Callable[[User], None]:
    def answer(dialog: User) -> None:
        dialog.type("File name", str(path))
        dialog.click("Open")

    return answer


@pytest.fixture
def handins(tmp_path: Path) -> Path:
    """Ana's complete hand-in of "open vs WPA2", Ben's of step 1 only, Cleo's a copy of Ana's
    under her own name, and a file that is no hand-in at all."""
    folder = tmp_path / "lab 3 hand-ins"
    exercise = find_ready("open-vs-wpa2")
    write_class(
        folder,
        tmp_path / "laptops",
        exercise,
        [
            Student(ANA, "G1", 2, 1.0),
            Student(BEN, "G2", 1, 0.85),
            Student(CLEO, "G1", 2, copy_of=ANA),
        ],
    )
    (folder / "notes.linklab").write_text("these are my notes, not a hand-in", encoding="utf-8")
    return folder


def _by_student(user: User) -> dict[str, dict[str, str]]:
    headers = user.headers("Students")
    return {row[0]: dict(zip(headers, row, strict=True)) for row in user.table_rows("Students")}


def test_open_a_class_read_it_chart_a_step_and_save_the_grades(
    window: MainWindow, user: User, handins: Path, tmp_path: Path
) -> None:
    user.tab("Class")
    assert "Open the folder" in user.text("Class")
    assert not user.find("Grades CSV…").isEnabled()  # nothing to export yet
    with user.answering(choose_folder(handins)):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == 3, 20, "the hand-ins to be read")
    assert user.headers("Students") == [
        "Student", "Group", "Status", "Steps", "Runs", "Step 1 (Mbit/s)", "Step 2 (Mbit/s)",
        "Flags", "Notes",
    ]  # fmt: skip
    rows = _by_student(user)
    assert [r["Student"] for r in rows.values()] == [ANA, CLEO, BEN]  # by group, then name
    ana, ben, cleo = rows[ANA], rows[BEN], rows[CLEO]
    assert (ana["Status"], ana["Steps"], ana["Runs"], ana["Flags"]) == (
        "complete", "2/2", "120/120", "duplicate",
    )  # fmt: skip
    assert (cleo["Status"], cleo["Flags"]) == ("complete", "duplicate")
    assert cleo["Notes"] == f"The same measurements as {ANA}."
    assert (ben["Status"], ben["Steps"], ben["Runs"], ben["Flags"]) == (
        "incomplete", "1/2", "60/120", "incomplete",
    )  # fmt: skip
    assert ben["Step 2 (Mbit/s)"] == "—"
    assert float(ana["Step 1 (Mbit/s)"]) > float(ben["Step 1 (Mbit/s)"]) > 20
    assert user.text("Class median").startswith("Class median: step 1: ")
    summary = user.text("Class")
    assert "“What does WPA2 cost? Open vs WPA2”: 3 hand-ins from lab 3 hand-ins" in summary
    assert "3 flagged" in summary
    # The file that is not a hand-in is named, with what to do.
    problem = user.text("Files not read")
    assert "notes.linklab" in problem and "ask" in problem
    assert user.text("Status") == "Read 3 hand-ins; 1 file not read."

    # The class chart: step 1 shows all three students, step 2 the two who measured it.
    chart = user.find("Class chart", ClassChart)
    assert user.text("Step") == "Step 1: the open network"
    assert (chart.student_curves, chart.median_points) == (3, 6)
    user.choose("Step", "Step 2: the same network with WPA2")
    assert (chart.student_curves, chart.median_points) == (2, 6)

    # The grades table, saved with the button and its dialog.
    grades = tmp_path / "grades.csv"
    with user.answering(save_as(grades)):
        user.click("Grades CSV…")
    wait_for(grades.exists, 5, "the grades table")
    raw = grades.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [(r["student"], r["status"], r["flags"]) for r in table] == [
        (ANA, "complete", "duplicate"),
        (CLEO, "complete", "duplicate"),
        (BEN, "incomplete", "incomplete"),
    ]
    assert float(table[0]["step1_mbit_s"]) == pytest.approx(float(ana["Step 1 (Mbit/s)"]), abs=0.06)
    assert user.text("Status") == "Saved grades.csv."
    confirmed(user, grades)  # on screen, with Open folder


def test_the_exercise_chosen_by_hand(
    window: MainWindow, user: User, handins: Path, tmp_path: Path
) -> None:
    """Read against another exercise, every hand-in says it was made for a different one."""
    other = write_exercise(tmp_path / "lab 4.linklab-exercise", find_ready("student-lab"))
    user.tab("Class")
    with user.answering(choose_folder(handins)):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == 3, 20, "the hand-ins to be read")
    with user.answering(choose_file(other)):
        user.click("Exercise…")
    wait_for(lambda: "lab 4.linklab-exercise" in user.text("Class"), 20, "the class re-read")
    rows = _by_student(user)
    assert all("other exercise" in r["Flags"] for r in rows.values())
    assert user.headers("Students")[5:9] == [f"Step {n} (Mbit/s)" for n in range(1, 5)]
    assert "Transport protocols on a LAN" in user.text("Class")


def test_a_folder_without_handins(
    window: MainWindow, user: User, handins: Path, tmp_path: Path
) -> None:
    """The sentence says what to do, and the class read before leaves the screen."""
    empty = tmp_path / "empty"
    empty.mkdir()
    user.tab("Class")
    with user.answering(choose_folder(handins)):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == 3, 20, "the hand-ins to be read")
    with user.answering(choose_folder(empty)):
        user.click("Open class folder…")
    # The damaged file of the first folder was named there; the empty folder's sentence follows.
    wait_for(
        lambda: "No hand-in could be read there" in user.text("Files not read"), 20, "the sentence"
    )
    assert user.table_rows("Students") == []
    assert not user.find("Grades CSV…").isEnabled()
    assert user.text("Class median") == ""


def test_what_a_drop_opens(handins: Path, tmp_path: Path) -> None:
    """A folder dropped opens as the class; .linklab files dropped open together; anything
    else opens nothing."""
    files = sorted(handins.glob("*.linklab"))
    stray = tmp_path / "photo.png"
    stray.write_bytes(b"\x89PNG")
    assert dropped_source([stray, handins]) == handins
    assert dropped_source([*files, stray]) == tuple(files)
    assert dropped_source([stray]) is None
