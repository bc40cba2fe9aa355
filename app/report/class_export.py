"""A class of hand-ins as data to take away: one JSON object per student (what `linklab class
--json` prints) and the grades table a spreadsheet opens (UTF-8 with BOM, figures in Mbit/s
as numbers, formulas defused)."""

from __future__ import annotations

import io
from typing import Any

from app.report.csv_export import write_rows
from app.report.together_export import TOGETHER_COLUMNS, together_grades
from app.study.lab.classroom import ClassView, StudentRow
from app.study.lab.together_results import TogetherResult

__all__ = ["GRADE_COLUMNS", "class_json", "grades_csv", "row_json"]

GRADE_COLUMNS = (
    "student",
    "group",
    "status",
    "flags",
    "steps_done",
    "runs_done",
    "runs_planned",
    "answers",
)


def _mbit(bps: float | None) -> float | None:
    return None if bps is None else round(bps / 1e6, 3)


def row_json(row: StudentRow, view: ClassView) -> dict[str, Any]:
    return {
        "student": row.student,
        "group": row.group,
        "file": row.file,
        "status": row.status,
        "flags": list(row.flags),
        "notes": list(row.notes),
        "steps_done": row.steps_done,
        "steps": len(row.steps),
        "runs_done": row.runs_done,
        "runs_planned": row.runs_planned,
        "answers": row.answers,
        "results": [
            {
                "step": step.number,
                "done": step.done,
                "runs_done": step.runs_done,
                "runs_planned": step.runs_planned,
                "series": step.series.label if step.series else None,
                "mean_throughput_bps": step.main_bps,
                "class_median_bps": view.medians[step.number - 1],
                "deviations": list(step.deviations),
            }
            for step in row.steps
        ],
    }


def class_json(view: ClassView) -> dict[str, Any]:
    return {
        "exercise": {"id": view.exercise.id, "title": view.exercise.title},
        "students": [row_json(r, view) for r in view.rows],
        "unreadable": list(view.unreadable),
    }


def grades_csv(view: ClassView, together: TogetherResult | None = None) -> str:
    """The grades table; with what the class measured together, each student's share too (a
    station that measured together but handed in no work gets a row of its own)."""
    steps = range(1, len(view.exercise.steps) + 1)
    header = [*GRADE_COLUMNS]
    header += [f"step{n}_mbit_s" for n in steps] + [f"step{n}_class_median_mbit_s" for n in steps]
    header.append("notes")
    shares = together_grades(together) if together is not None else {}
    if together is not None:
        header += TOGETHER_COLUMNS
    rows: list[list[object]] = []
    for row in view.rows:
        rows.append(
            [
                row.student,
                row.group,
                row.status,
                "; ".join(row.flags),
                row.steps_done,
                row.runs_done,
                row.runs_planned,
                row.answers,
                *(_mbit(s.main_bps) for s in row.steps),
                *(_mbit(m) for m in view.medians),
                " ".join(row.notes),
                *(shares.pop(row.student, [None] * len(TOGETHER_COLUMNS)) if together else []),
            ]
        )
    # Between the name and the notes: the grade columns of work never handed in.
    between = len(header) - len(TOGETHER_COLUMNS) - 2
    for student, values in shares.items():
        rows.append([student, *[None] * between, "", *values])
    out = io.StringIO()
    write_rows(out, header, rows)
    return out.getvalue()
