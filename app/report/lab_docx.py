"""The lab report as an editable Word document (.docx, which LibreOffice opens too), written
with python-docx: the same sections as the HTML report, in the document's own styles so that
a student can go on writing in it."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from app import __version__
from app.domain.errors import BadOption
from app.domain.units import DASH
from app.report.lab_report import LabReport, plan_lines, step_findings, step_tables


def _answers(document: object, items: Sequence[tuple[str, str, str]]) -> None:
    for qid, question, answer in items:
        heading = document.add_paragraph()  # type: ignore[attr-defined]
        heading.add_run(f"Q{qid}. {question}").bold = True
        document.add_paragraph(answer.strip() or "(not answered yet)")  # type: ignore[attr-defined]


def write_lab_docx(report: LabReport, charts: Mapping[int, bytes], path: Path | str) -> Path:
    from docx import Document
    from docx.shared import Cm, Pt

    document = Document()
    document.styles["Normal"].font.size = Pt(10.5)
    exercise = report.exercise
    document.add_heading(exercise.title, level=0)
    who = report.student + (f", group {report.group}" if report.group else "")
    document.add_paragraph(f"Lab report by {who}. Drafted by LinkLab {__version__}.")
    document.add_heading("Aims", level=1)
    document.add_paragraph(exercise.aims or DASH)
    document.add_heading("Equipment and network", level=1)
    for machine, lines in report.equipment:
        document.add_heading(machine, level=2)
        for line in lines:
            document.add_paragraph(line, style="List Bullet")
    if not report.equipment:
        document.add_paragraph("No environment snapshot was recorded.")
    document.add_heading("Experiments and results", level=1)
    for step in report.steps:
        document.add_heading(step.step.title, level=2)
        if step.step.instructions:
            document.add_paragraph(step.step.instructions)
        if step.session is None:
            document.add_paragraph("Not measured yet.")
        else:
            para = document.add_paragraph()
            para.add_run("Parameters: ").bold = True
            para.add_run("; ".join(plan_lines(step.session.plan)) + ".")
            png = charts.get(step.number)
            if png:
                document.add_picture(io.BytesIO(png), width=Cm(16))
            for title, header, rows in step_tables(step):
                document.add_heading(f"{title}: mean ± standard deviation", level=3)
                grid = document.add_table(rows=1, cols=len(header))
                grid.style = "Table Grid"
                for cell, text in zip(grid.rows[0].cells, header, strict=True):
                    cell.text = text
                for row in rows:
                    for cell, text in zip(grid.add_row().cells, row, strict=True):
                        cell.text = text
            document.add_heading("Findings", level=3)
            for sentence in step_findings(step):
                document.add_paragraph(sentence, style="List Bullet")
        if step.answers:
            document.add_heading("Questions", level=3)
            _answers(document, step.answers)
    if report.final_answers:
        document.add_heading("Discussion and conclusion", level=1)
        _answers(document, report.final_answers)
    try:
        document.save(str(path))
    except OSError as err:
        raise BadOption(
            f"Cannot write {path} ({err.strerror or err}): choose another place."
        ) from None
    return Path(path)
