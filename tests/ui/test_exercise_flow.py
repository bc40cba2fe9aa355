"""A lab exercise from a student's chair, by clicking only: the student-lab seed's four
experiments (their plans shortened to seconds) opened from File › Open exercise…, each step
set up on the Measure tab with its locked fields greyed out, measured against this computer,
the questions answered beside the results, the lab report written as an editable document and
as PDF, and the work handed in."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from app.domain.exercise import Exercise, with_id
from app.domain.plan import Variable
from app.study.lab.exercises import find_ready, write_exercise
from app.ui.main_window import MainWindow
from tests.artifacts import PDFTOTEXT
from tests.pdf_reading import pdf_problems
from tests.ui.journey import confirmed, save_as
from tests.ui.user import Unreachable, User, wait_for

SOFFICE = shutil.which("soffice")
#: A series' range over the sweep, in each of the forms app.analysis.range_findings says it.
THROUGHPUT_RANGE = re.compile(
    r"reached its highest mean throughput|the mean throughput (?:was|ranged)|a mean throughput of"
)


def short_student_lab() -> Exercise:
    """The ready student-lab exercise with every step's plan cut to a few seconds: the same
    steps, variables, locks and questions."""
    short = {
        Variable.DURATION: (1, 2),
        Variable.LOSS: (0, 10),
        Variable.WINDOW: (65536, 262144),
    }
    steps = []
    for step in find_ready("student-lab").steps:
        plan = step.plan
        values = short.get(plan.variable, plan.values[:1])
        plan = replace(plan, values=values, repetitions=1, duration_s=1)
        steps.append(replace(step, plan=plan))
    return with_id(replace(find_ready("student-lab"), steps=tuple(steps)))


def open_file(path: Path) -> Callable[[User], None]:
    def answer(dialog: User) -> None:
        dialog.type("File name", str(path))
        dialog.click("Open")

    return answer


def run_step(user: User, window: MainWindow, row: int) -> None:
    user.tab("Exercise")
    user.click_row("Steps", row)
    user.click("Set up this step")
    assert window.tabs.currentWidget() is window.measure
    # The locked fields are greyed out with the reason; a person cannot change them.
    protocol: QWidget = user.find("Protocol")
    assert not protocol.isEnabled() and "Locked by the exercise" in protocol.toolTip()
    with pytest.raises(Unreachable, match="disabled"):
        user.choose("Protocol", "TCP")
    assert "step" in user.text("Preset changes")
    # The Command field shows the step's plan (every step here runs for 1 s), not the last.
    command = user.text("Command")
    assert " -t 1 " in command or " -l 1 " in command, command
    if row == 0:  # as the first step's instructions ask: the link's rate, for the expected line
        user.choose("Medium", "Ethernet")
        user.type("Link rate", "100G")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, f"step {row + 1}")
    assert "completed" in user.text("Status"), user.text("Status")


# Over 10 s: the student's whole journey in the window, every step measured for real.
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_student_lab_end_to_end(window: MainWindow, user: User, tmp_path: Path) -> None:
    exercise = short_student_lab()
    source = write_exercise(tmp_path / "lab.linklab-exercise", exercise)
    with user.answering(open_file(source)):
        user.menu("File", "Open exercise…")
    wait_for(lambda: user.can_see("Steps"), 5, "the exercise")
    assert user.text("Exercise title") == exercise.title
    # Before a name: the step cannot start.
    user.click("Set up this step")
    assert "Type your name" in user.visible_text()
    user.type("Your name", "Ann Lee", enter=True)
    user.type("Group", "G1", enter=True)
    wait_for(lambda: len(user.table_rows("Steps")) == 5, 10, "the steps")
    assert user.table_rows("Steps")[1][0].endswith("— locked")
    for row in range(4):
        run_step(user, window, row)
        user.tab("Exercise")
        wait_for(lambda r=row: user.table_rows("Steps")[r][0].endswith("done ✓"), 15, "done")
        user.click_row("Steps", row)
        wait_for(lambda: user.can_see("Step result chart"), 10, "the step's result")
        # The range of each series, as its runs allow: a difference, noise, or one figure.
        assert THROUGHPUT_RANGE.search(user.text("Step findings")), user.text("Step findings")
        if row == 0:  # a link rate stated, on this computer: no share, and why
            assert "never crossed that link" in user.text("Step findings")
        user.type("Answer " + f"{row + 1}.1", f"My answer to step {row + 1}.")
    user.click_row("Steps", 4)  # the conclusion
    user.type("Answer E.1", "The window size mattered most on this link.")
    user.click_row("Steps", 0)  # leaving the box keeps the answer
    # The lab report: an editable document and a PDF.
    docx, pdf, handin = tmp_path / "ann.docx", tmp_path / "ann.pdf", tmp_path / "ann.linklab"
    with user.answering(save_as(docx)):
        user.click("Write lab report…")
    wait_for(docx.exists, 30, "the .docx report")
    confirmed(user, docx)  # on screen, with Open folder
    with user.answering(save_as(pdf)):
        user.click("Write lab report…")
    wait_for(pdf.exists, 30, "the PDF report")
    confirmed(user, pdf)
    assert docx.name not in user.find("Saved files").toolTip()  # the newer save replaced it
    assert pdf.read_bytes().startswith(b"%PDF-")
    page = tmp_path / "ann.html"
    with user.answering(save_as(page)):
        user.click("Write lab report…")
    wait_for(page.exists, 30, "the HTML report")
    if PDFTOTEXT is not None:  # the PDF holds every heading and row of the HTML, once each
        problems = pdf_problems(page.read_text(encoding="utf-8"), pdf)
        assert not problems, "\n".join(problems)
    from docx import Document

    text = "\n".join(p.text for p in Document(str(docx)).paragraphs)
    assert exercise.title in text and "Lab report by Ann Lee, group G1" in text
    for heading in ("Aims", "Equipment and network", "Experiments and results"):
        assert heading in text
    for number in range(1, 5):
        assert f"My answer to step {number}." in text
    assert "The window size mattered most on this link." in text
    assert len(Document(str(docx)).inline_shapes) == 4  # a chart per experiment
    if SOFFICE:  # the document opens in a word processor (LibreOffice, headless)
        argv = [SOFFICE, f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}", "--headless"]
        argv += ["--convert-to", "pdf", "--outdir", str(tmp_path / "lo-out"), str(docx)]
        subprocess.run(argv, capture_output=True, timeout=180, check=True)
        assert (tmp_path / "lo-out" / "ann.pdf").read_bytes().startswith(b"%PDF-")
    # The hand-in: the four steps' sessions, the student and the answers.
    with user.answering(save_as(handin)):
        user.click("Hand in…")
    wait_for(handin.exists, 10, "the hand-in")
    confirmed(user, handin)
    document = json.loads(handin.read_text(encoding="utf-8"))
    assert document["handin"]["student"] == "Ann Lee" and document["handin"]["group"] == "G1"
    steps = sorted(s["plan"]["assignment"]["step"] for s in document["sessions"])
    assert steps == [1, 2, 3, 4]
    assert document["handin"]["answers"]["E.1"].startswith("The window size")
