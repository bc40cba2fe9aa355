"""`linklab export SESSION... --format report --out FILE`: the student's lab report of the
exercise those sessions were measured for, drafted as HTML, PDF or an editable .docx."""

from __future__ import annotations

import argparse

from app.cli.args import EXIT_OK
from app.cli.environment import Environment
from app.domain.errors import BadOption
from app.domain.exercise import one_owner
from app.report.lab_report import collect_lab_report
from app.study.frontdoor import FrontDoor


def export_lab_report(args: argparse.Namespace, env: Environment) -> int:
    if args.out == "-":
        raise BadOption("A lab report is a file: give its name with --out (.html, .pdf, .docx).")
    door = FrontDoor(env.db(args.db))
    sessions = [door.sessions().get(ref) for ref in args.sessions]
    owner = one_owner([s.plan for s in sessions])
    if owner is None:
        raise BadOption(
            "A lab report is about one student's work on one exercise: choose sessions measured "
            "with the exercise open (linklab run --exercise), under the same name."
        )
    exercise_id, student = owner
    work = door.exercises().work_by_id(exercise_id, student)
    report = collect_lab_report(door, work.exercise, student)
    from app.ui.common.report_files import write_lab_report  # Qt only for the charts

    path = write_lab_report(report, args.out)
    print(f"Wrote {path}.", file=env.stderr)
    return EXIT_OK
