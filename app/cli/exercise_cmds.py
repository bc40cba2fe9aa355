"""`linklab exercise`: write an exercise for a class (new), read one (show, with a student's
progress), and keep a student's answers (answer)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.cli.args import EXIT_OK, number, person
from app.cli.class_live_cmds import add_submit_arguments, cmd_push
from app.cli.environment import Environment
from app.cli.study_cmds import add_db_argument
from app.domain.errors import BadOption
from app.domain.exercise import LOCKABLE, PRIVATE_FACTS, Exercise, student_name, with_id
from app.domain.units import counted
from app.study.frontdoor import FrontDoor
from app.study.lab.exercises import (
    EXERCISE_SUFFIX,
    build_exercise,
    find_ready,
    read_exercise,
    ready_names,
    write_exercise,
)


def _names(allowed: tuple[str, ...] | list[str], what: str) -> Any:
    def parse(text: str) -> list[str]:
        items = [t.strip().lower() for t in text.split(",") if t.strip()]
        wrong = [t for t in items if t not in allowed]
        if wrong:
            raise argparse.ArgumentTypeError(
                f"{what} {', '.join(wrong)} unknown: choose among {', '.join(allowed)}"
            )
        return items

    return parse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    exercise = sub.add_parser("exercise", help="lab exercises: write one for a class, follow one")
    actions = exercise.add_subparsers(dest="action", metavar="ACTION", required=True)

    new = actions.add_parser(
        "new", help="write an exercise file from presets (one step each) or a ready exercise"
    )
    source = new.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--preset", action="append", metavar="NAME", help="a step from this preset (repeatable)"
    )
    source.add_argument(
        "--ready", metavar="NAME", help="start from one of LinkLab's exercises (see --list)"
    )
    source.add_argument("--list", action="store_true", help="list LinkLab's ready exercises")
    new.add_argument("--title", help="the title students see")
    new.add_argument(
        "--lock",
        type=_names(tuple(LOCKABLE), "field"),
        default=None,
        metavar="FIELD,...",
        help=f"fields students cannot change (as `linklab run` names them: {', '.join(LOCKABLE)})",
    )
    new.add_argument("--aims", help="what the exercise is for")
    new.add_argument("--question", action="append", default=[], help="a question (repeatable)")
    new.add_argument(
        "--reveal",
        type=_names(PRIVATE_FACTS, "fact"),
        default=[],
        metavar="FACT,...",
        help="what hand-ins may carry beyond the measurements (ssid, mac, user; default none)",
    )
    new.add_argument("--out", metavar=f"FILE{EXERCISE_SUFFIX}", help="where to write it")
    new.set_defaults(handler=cmd_new)

    show = actions.add_parser("show", help="an exercise's steps, locks and questions")
    show.add_argument("file", metavar="FILE")
    show.add_argument(
        "--student", type=person(student_name), help="with this student's progress and answers"
    )
    add_db_argument(show)
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=cmd_show)

    answer = actions.add_parser("answer", help="keep a student's answer to a question")
    answer.add_argument("file", metavar="FILE")
    answer.add_argument("--student", type=person(student_name), required=True)
    answer.add_argument("--question", required=True, metavar="ID", help='such as "2.1" or "E.1"')
    answer.add_argument("--text", required=True, help="the answer (empty removes it)")
    add_db_argument(answer)
    answer.set_defaults(handler=cmd_answer)

    push = actions.add_parser(
        "push",
        help="send the class's collector what of a student's work it has not acknowledged yet",
    )
    push.add_argument("file", metavar="FILE")
    push.add_argument("--student", type=person(student_name), required=True)
    add_submit_arguments(push)
    push.add_argument(
        "--wait",
        type=number(float, 0, 3600),
        default=60.0,
        metavar="S",
        help="keep sending for up to S seconds (default 60); what is left stays queued",
    )
    push.add_argument("--json", action="store_true", help="print the counts as one JSON object")
    add_db_argument(push)
    push.set_defaults(handler=cmd_exercise_push)


def cmd_new(args: argparse.Namespace, env: Environment) -> int:
    if args.list:
        for name, exercise in ready_names().items():
            print(
                f"{name}: {exercise.title} ({counted(len(exercise.steps), 'step')})",
                file=env.stdout,
            )
        return EXIT_OK
    if not args.out:
        raise BadOption(f"Say where to write the exercise: --out FILE{EXERCISE_SUFFIX}.")
    if args.ready:
        exercise = with_id(find_ready(args.ready))  # a copy of its own: a class of its own
        exercise = _adjusted(exercise, args)
    else:
        exercise = build_exercise(
            args.title or "",
            args.preset,
            lock=args.lock or (),
            aims=args.aims or "",
            questions=args.question,
            reveal=args.reveal,
        )
    path = write_exercise(args.out, exercise)
    steps = counted(len(exercise.steps), "step")
    print(f"Wrote {path}: “{exercise.title}”, {steps}.", file=env.stderr)
    return EXIT_OK


def _adjusted(exercise: Exercise, args: argparse.Namespace) -> Exercise:
    from dataclasses import replace

    changes: dict[str, Any] = {}
    if args.title:
        changes["title"] = args.title
    if args.aims:
        changes["aims"] = args.aims
    if args.question:
        changes["questions"] = (*exercise.questions, *args.question)
    if args.reveal:
        changes["reveal"] = tuple(args.reveal)
    if args.lock is not None:
        changes["steps"] = tuple(replace(s, locked=tuple(args.lock)) for s in exercise.steps)
    return replace(exercise, **changes)


def exercise_summary(exercise: Exercise) -> dict[str, Any]:
    return {
        "id": exercise.id,
        "title": exercise.title,
        "aims": exercise.aims,
        "steps": [
            {
                "number": n,
                "title": step.title,
                "instructions": step.instructions,
                "locked": list(step.locked),
                "runs_planned": step.plan.total_runs,
                "questions": list(step.questions),
            }
            for n, step in enumerate(exercise.steps, 1)
        ],
        "questions": list(exercise.questions),
        "reveal": list(exercise.reveal),
    }


def cmd_show(args: argparse.Namespace, env: Environment) -> int:
    exercise = read_exercise(args.file)
    data = exercise_summary(exercise)
    if args.student:
        desk = FrontDoor(env.db(args.db)).exercises()
        work = desk.work(exercise, args.student)
        for entry, progress in zip(
            data["steps"], desk.progress(exercise, args.student), strict=True
        ):
            entry["state"] = progress.state
            entry["session_id"] = progress.latest.id if progress.latest else None
        data["student"] = args.student
        data["group"] = work.group if work else ""
        data["answers"] = work.answers if work else {}
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False), file=env.stdout)
        return EXIT_OK
    print(exercise.title, file=env.stdout)
    if exercise.aims:
        print(f"Aims: {exercise.aims}", file=env.stdout)
    for entry in data["steps"]:
        state = f" [{entry['state']}]" if "state" in entry else ""
        runs = counted(entry["runs_planned"], "run")
        print(f"\n{entry['number']}. {entry['title']}{state} ({runs})", file=env.stdout)
        if entry["locked"]:
            print(f"   locked: {', '.join(entry['locked'])}", file=env.stdout)
        for q, text in enumerate(entry["questions"], 1):
            print(f"   Q{entry['number']}.{q} {text}", file=env.stdout)
    for q, text in enumerate(exercise.questions, 1):
        print(f"\nQE.{q} {text}", file=env.stdout)
    return EXIT_OK


def cmd_exercise_push(args: argparse.Namespace, env: Environment) -> int:
    exercise = read_exercise(args.file)
    door = FrontDoor(env.db(args.db))
    return cmd_push(args, door.db_path, exercise, env)


def cmd_answer(args: argparse.Namespace, env: Environment) -> int:
    exercise = read_exercise(args.file)
    desk = FrontDoor(env.db(args.db)).exercises()
    desk.answer(exercise, args.student, args.question, args.text)
    print(f"Kept the answer to {args.question} for {args.student}.", file=env.stderr)
    return EXIT_OK
