"""`linklab class DIR`: an instructor's view of a folder of hand-ins, one row per student;
and the hand-in export (`linklab export SESSION... --format handin`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.args import EXIT_OK
from app.cli.class_live_cmds import (
    add_instructor_token_arguments,
    instructor_token,
    is_live_source,
    live_view,
)
from app.cli.environment import Environment
from app.cli.together_cmds import add_together_arguments, cmd_together, wants_together
from app.domain.errors import BadOption
from app.domain.units import counted, format_rate
from app.report.class_export import class_json, grades_csv
from app.study.files.exchange import EXCHANGE_SUFFIX, write_exchange
from app.study.frontdoor import FrontDoor
from app.study.lab.classroom import read_class
from app.study.lab.exercises import read_exercise


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cls = sub.add_parser(
        "class", help="a class's hand-ins side by side: progress, results, flags to look at"
    )
    cls.add_argument(
        "folder",
        metavar="SOURCE",
        help="the folder of .linklab hand-ins, a collector (http://HOST:PORT, with "
        "--instructor-token-file) or "
        "a class database (postgresql://…, sqlite:PATH)",
    )
    cls.add_argument(
        "--exercise",
        metavar="FILE",
        help="the exercise (default: the one most hand-ins are for); for a collector or a "
        "database also its title",
    )
    add_instructor_token_arguments(cls, "to read a collector's class")
    cls.add_argument("--json", action="store_true", help="print the class as one JSON object")
    cls.add_argument("--csv", metavar="FILE", help="write the grades table for a spreadsheet")
    add_together_arguments(cls)
    cls.set_defaults(handler=cmd_class)


def export_handin(args: argparse.Namespace, env: Environment) -> int:
    if args.out == "-":
        raise BadOption(
            f"A hand-in is a file: give its name with --out (ending {EXCHANGE_SUFFIX})."
        )
    door = FrontDoor(env.db(args.db))
    document = door.exercises().handin(args.sessions)
    write_exchange(args.out, document)
    about = document["handin"]
    print(
        f"Wrote {args.out}: {about['student']}'s hand-in of “{about['exercise']['title']}” "
        f"({counted(len(document['sessions']), 'session')}).",
        file=env.stderr,
    )
    return EXIT_OK


def cmd_class(args: argparse.Namespace, env: Environment) -> int:
    if wants_together(args):
        return cmd_together(args, env)
    if args.report:
        raise BadOption("--report writes what the class measured together: add --together-result.")
    if is_live_source(args.folder):
        view = live_view(args.folder, instructor_token(args, env), args.exercise)
    else:
        exercise = read_exercise(args.exercise) if args.exercise else None
        view = read_class(Path(args.folder), exercise)
    if args.csv:
        try:
            Path(args.csv).write_text(grades_csv(view), encoding="utf-8", newline="")
        except OSError as err:
            raise BadOption(
                f"Cannot write {args.csv} ({err.strerror}): choose another place."
            ) from None
    if args.json:
        print(json.dumps(class_json(view), indent=2, ensure_ascii=False), file=env.stdout)
        return EXIT_OK
    what = "student" if is_live_source(args.folder) else "hand-in"
    print(f"{view.exercise.title}: {counted(len(view.rows), what)}", file=env.stdout)
    for row in view.rows:
        flags = f"  [{', '.join(row.flags)}]" if row.flags else ""
        results = "  ".join(
            f"{s.number}: {format_rate(s.main_bps) if s.main_bps is not None else '—'}"
            for s in row.steps
        )
        print(
            f"{row.student} ({row.group or 'no group'}): {row.status}, steps "
            f"{row.steps_done}/{len(row.steps)}, runs {row.runs_done}/{row.runs_planned}; "
            f"{results}{flags}",
            file=env.stdout,
        )
        for note in row.notes:
            print(f"    {note}", file=env.stdout)
    medians = "  ".join(
        f"{n}: {format_rate(m) if m is not None else '—'}" for n, m in enumerate(view.medians, 1)
    )
    print(f"Class median: {medians}", file=env.stdout)
    for sentence in view.unreadable:
        print(f"Not read: {sentence}", file=env.stderr)
    if args.csv:
        print(f"Wrote {args.csv}.", file=env.stderr)
    return EXIT_OK
