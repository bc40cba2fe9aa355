"""A lab class's journey across features, by clicking only: a student opens an exercise that
names the class's collector (real, on the loopback), measures its latency step, reads the
step's charts of what its question asks (idle and loaded latency), closes the exercise, runs a
study of their own (no uncaught exception anywhere: the test session fails on one), opens the
exercise again and hands it in, seeing where the file went; the instructor then reads the class
from the hand-in folder and live from the collector, and opens the grades file."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from app.domain.collector import Collector as CollectorAddress
from app.domain.exercise import Exercise, with_id
from app.store.class_backends import open_class_store
from app.study.lab.collector import Collector
from app.study.lab.exercises import find_ready, write_exercise
from app.ui.main_window import MainWindow
from tests.classlive import INSTRUCTOR, TOKEN
from tests.ui.journey import save_as
from tests.ui.test_class_tab import choose_folder
from tests.ui.test_exercise_flow import open_file
from tests.ui.test_measure import plan_sweep, sessions
from tests.ui.user import User, wait_for

STUDENT, GROUP = "Ann Lee", "G1"
QUESTION = (
    "What was the idle latency, and the loaded latency with 1 and with 2 streams? How many "
    "times the idle latency is that?"
)


def latency_exercise(collector_url: str) -> Exercise:
    """The ready bufferbloat exercise's first step, cut to seconds (1 and 2 streams, one run
    of 1 s each), asking about idle and loaded latency; its runs go to the class live."""
    ready = find_ready("bufferbloat")
    first = ready.steps[0]
    plan = replace(first.plan, values=(1, 2), repetitions=1, duration_s=1)
    step = replace(first, plan=plan, questions=(QUESTION,))
    return with_id(
        replace(
            ready,
            title="Bufferbloat, short",
            steps=(step,),
            questions=(),
            collector=CollectorAddress(collector_url, TOKEN),
        )
    )


def chart_title(user: User, name: str) -> str:
    return str(user.find(name).getPlotItem().titleLabel.text)  # type: ignore[attr-defined]


def answer(label: str, text: str) -> Callable[[User], None]:
    def typed(dialog: User) -> None:
        dialog.type(label, text)
        dialog.click("OK")

    return typed


def open_exercise(user: User, source: Path) -> None:
    with user.answering(open_file(source)):
        user.menu("File", "Open exercise…")
    wait_for(lambda: user.can_see("Steps"), 10, "the exercise")
    user.type("Your name", STUDENT, enter=True)
    user.type("Group", GROUP, enter=True)
    wait_for(lambda: len(user.table_rows("Steps")) == 1, 10, "the steps")


@pytest.mark.slow
@pytest.mark.timeout(300)  # a whole journey: longer than one feature's test on a busy machine
@pytest.mark.usefixtures("iperf3_tool")  # the student measures this computer for real
def test_exercise_step_close_own_study_hand_in_and_class_view(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    store = open_class_store(f"sqlite:{tmp_path / 'class.sqlite3'}")
    collector = Collector(store, TOKEN, "127.0.0.1", 0, instructor_token=INSTRUCTOR)
    collector.start()
    try:
        exercise = latency_exercise(collector.url)
        source = write_exercise(tmp_path / "bufferbloat.linklab-exercise", exercise)

        # The student: the step set up and measured.
        open_exercise(user, source)
        assert collector.url in user.text("Sent to the class")
        user.click_row("Steps", 0)
        user.click("Set up this step")
        assert window.tabs.currentWidget() is window.measure
        user.click("Start")
        wait_for(lambda: window.measure.running, 10, "the step to start")
        wait_for(lambda: not window.measure.running, 120, "the step")
        assert "completed" in user.text("Status"), user.text("Status")
        user.tab("Exercise")
        wait_for(lambda: user.table_rows("Steps")[0][0].endswith("done ✓"), 15, "the step done")
        user.click_row("Steps", 0)
        # The step charts what its question asks: idle and loaded latency, not throughput.
        wait_for(lambda: user.can_see("Step result chart 2"), 10, "the step's charts")
        assert chart_title(user, "Step result chart") == "Idle latency in this step"
        assert chart_title(user, "Step result chart 2") == "Working latency in this step"
        assert not user.can_see("Step result chart 3")
        findings = user.text("Step findings")
        assert "mean idle latency" in findings and "mean working latency" in findings
        assert "a probe waited" in findings  # loaded against idle
        user.type("Answer 1.1", "Idle well under a millisecond; loaded a little more.")
        sent = re.compile(r"Class at \S+: \d+ sent to the class\.$")
        wait_for(lambda: sent.match(user.text("Sent to the class")), 30, "the runs sent")

        # Closed, the exercise gives the window back; a study of the student's own runs.
        user.click("Close exercise")
        assert window.tabs.currentWidget() is window.measure
        assert not user.can_see("Steps")
        plan_sweep(user, "1408")
        user.type("Session name", "my own test")
        user.click("Start")
        wait_for(lambda: window.measure.running, 10, "the own study to start")
        wait_for(lambda: not window.measure.running, 60, "the own study")
        assert "completed" in user.text("Status"), user.text("Status")
        assert {s.plan.name for s in sessions(window)} >= {"my own test"}
        own = next(s for s in sessions(window) if s.plan.name == "my own test")
        assert own.plan.assignment is None  # not the exercise's

        # Opened again, the work is there; handed in, the window says where it went.
        open_exercise(user, source)
        assert user.table_rows("Steps")[0][0].endswith("done ✓")
        folder = tmp_path / "hand-ins"
        folder.mkdir()
        handin = folder / "ann-lee.linklab"
        with user.answering(save_as(handin)):
            user.click("Hand in…")
        wait_for(handin.exists, 15, "the hand-in")
        said = user.text("Handed in")
        assert said.startswith("Handed in at ") and f"saved {handin.name} in {folder}" in said
        assert collector.url in said
        assert user.text("Status") == said
        user.click("Close exercise")

        # The instructor: the folder of hand-ins.
        user.tab("Class")
        with user.answering(choose_folder(folder)):
            user.click("Open class folder…")
        wait_for(lambda: len(user.table_rows("Students")) == 1, 20, "the hand-in read")
        headers = user.headers("Students")
        row = dict(zip(headers, user.table_rows("Students")[0], strict=True))
        assert (row["Student"], row["Group"], row["Steps"]) == (STUDENT, GROUP, "1/1")
        assert row["Flags"] == "this computer"  # measured on the loopback: said, not hidden
        assert "Step 1 was measured against this computer" in row["Notes"]
        assert "my own test" not in user.visible_text()
        grades = tmp_path / "grades.csv"
        with user.answering(save_as(grades)):
            user.click("Grades CSV…")
        wait_for(grades.exists, 10, "the grades table")
        (graded,) = csv.DictReader(io.StringIO(grades.read_text(encoding="utf-8-sig")))
        assert (graded["student"], graded["group"]) == (STUDENT, GROUP)
        assert graded["flags"] == "this computer"
        assert float(graded["step1_mbit_s"]) == pytest.approx(
            float(row["Step 1 (Mbit/s)"]), abs=0.06
        )

        # The same class, live from the collector: the step's session and runs, not the
        # study the student ran after closing the exercise.
        counts = store.counts()
        assert counts["sessions"] == 1 and counts["runs"] == 2, counts
        with user.answering(
            answer("Collector (http://HOST:PORT) or postgresql://…", collector.url),
            answer("Instructor token", INSTRUCTOR),
        ):
            user.click("Open live class…")
        wait_for(lambda: "live from" in user.text("Class"), 15, "the live class")
        wait_for(lambda: len(user.table_rows("Students")) == 1, 15, "the student live")
        live = dict(zip(user.headers("Students"), user.table_rows("Students")[0], strict=True))
        assert (live["Student"], live["Steps"], live["Flags"]) == (STUDENT, "1/1", "this computer")
        assert live["Step 1 (Mbit/s)"] == row["Step 1 (Mbit/s)"]
    finally:
        collector.stop()
        store.close()
