"""A class measuring together from the command line: a station waiting for the instructor's
Start together (`linklab run --exercise FILE --wait-for-start`), and the instructor starting
it on the collector and reading what came of it (`linklab class URL --together`, `linklab
class SOURCE --together-result`), with the JSON, the grades table and the class report."""

from __future__ import annotations

import argparse
import json
import signal
import time
from collections.abc import Callable, Generator
from pathlib import Path
from types import FrameType
from typing import TextIO

from app.cli.args import EXIT_OK, EXIT_SOME_FAILED, EXIT_STOPPED, number, rate
from app.cli.class_live_cmds import finish_pushing, instructor_token, live_view
from app.cli.environment import Environment
from app.domain.collector import collector_url
from app.domain.errors import BadOption
from app.domain.exercise import Exercise
from app.domain.net import Direction, Protocol
from app.domain.plan import Plan
from app.domain.stream import drive
from app.domain.together import (
    MAX_ROUNDS,
    MAX_SECONDS,
    MIN_SECONDS,
    StationStatus,
    TogetherPlan,
    plan_from_step,
)
from app.report.class_export import grades_csv
from app.report.together_export import together_json
from app.store.class_backends import open_class_store
from app.study.frontdoor import FrontDoor
from app.study.lab.class_http import call
from app.study.lab.class_station import ClassPusher
from app.study.lab.exercises import read_exercise
from app.study.lab.together_results import LAST_WORD_S, TogetherResult
from app.study.lab.together_station import (
    SlotEnded,
    StationEvent,
    TogetherStation,
)
from app.study.lab.together_wire import Waiting, read_results, results_from_wire
from app.study.lab.together_words import (
    findings,
    index_text,
    interval_text,
    ms_text,
    percent_text,
    rate_text,
    slot_status_text,
    station_words,
)
from app.study.measurer import DoorMeasurer

__all__ = [
    "add_together_arguments",
    "cmd_together",
    "run_station",
    "wants_together",
]

#: How often the instructor's command reads the results while the class measures.
READ_EVERY_S = 1.0
#: How long it keeps trying a collector that cannot be reached (one being started again).
GIVE_UP_S = 60.0


class Unreachable(BadOption):
    """The collector does not answer (stopped, or starting again)."""


# -- a station -------------------------------------------------------------------------------
def _said(stream: TextIO) -> Callable[[StationEvent], None]:
    def say(event: StationEvent) -> None:
        print(f"linklab: {station_words(event)}", file=stream, flush=True)

    return say


def _stop_on_signals(stop: Callable[[], None]) -> None:
    """Ctrl+C or SIGTERM: the station stops waiting (or ends the run in progress), and what
    it measured stays in its database and its outbox."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        stop()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def run_station(
    args: argparse.Namespace,
    env: Environment,
    door: FrontDoor,
    exercise: Exercise,
    pusher: ClassPusher | None,
    plan: Plan,
) -> int:
    """`linklab run --exercise FILE --wait-for-start [N]`: wait for the class's start, take
    part in every slot of it, report each; again for each Start together until stopped (or N
    of them). 0 when every slot was measured."""
    if pusher is None:
        raise BadOption(
            "--wait-for-start needs the class's collector: use an exercise that names it, or "
            "give it with --submit URL --token-file FILE."
        )
    door.exercises().begin(exercise, args.student, args.group)
    station = TogetherStation(
        pusher.url,
        pusher.sender.token,
        args.student,
        exercise.id,
        plan.peer,
        DoorMeasurer(door),
        pusher.queue,
    )
    _stop_on_signals(station.stop)
    pusher.start()
    taken: list[dict[str, object]] = []

    def take_part() -> Generator[StationEvent, None, bool]:
        every_ok = True
        while not station.stopping and (
            not args.wait_for_start or len(taken) < args.wait_for_start
        ):
            assignment = yield from station.wait()
            if assignment is None:
                break
            ended = yield from station.take_part(assignment)
            every_ok = every_ok and all(e.status is StationStatus.OK for e in ended)
            taken.append({"together": assignment["together"], "slots": [_ended(e) for e in ended]})
        return every_ok

    try:
        every_ok = drive(take_part(), _said(env.stderr))
    finally:
        door.loopback.stop()
        finish_pushing(pusher, env)
    if args.json:
        print(json.dumps({"together": taken}, indent=2), file=env.stdout)
    if station.stopping and not args.wait_for_start:
        return EXIT_OK if every_ok else EXIT_SOME_FAILED  # stopped by the user, as asked
    if station.stopping:
        return EXIT_STOPPED
    return EXIT_OK if every_ok else EXIT_SOME_FAILED


def _ended(ended: SlotEnded) -> dict[str, object]:
    return {
        "slot": ended.slot.number,
        "label": ended.slot.label,
        "status": ended.status.value,
        "reason": ended.reason,
        "mean_bps": ended.mean_bps,
        "start_error_s": ended.start_error_s,
    }


# -- the instructor --------------------------------------------------------------------------
def add_together_arguments(cls: argparse.ArgumentParser) -> None:
    group = cls.add_argument_group("measuring together (a collector's class)")
    group.add_argument(
        "--together",
        action="store_true",
        help="start every station waiting (linklab run --exercise FILE --wait-for-start) at "
        "once, wait for the rounds to end and show each station's share and Jain's index",
    )
    group.add_argument(
        "--together-result",
        nargs="?",
        const="",
        metavar="ID",
        help="what the class measured together (the newest, or the one of ID)",
    )
    group.add_argument("--protocol", choices=["tcp", "udp"], help="with --together (default tcp)")
    group.add_argument(
        "--direction", choices=["up", "down"], help="with --together: upload or download (up)"
    )
    group.add_argument(
        "--seconds",
        type=number(int, MIN_SECONDS, MAX_SECONDS),
        metavar="S",
        help="with --together: each round's length (default 5)",
    )
    group.add_argument(
        "--rounds",
        type=number(int, 1, MAX_ROUNDS),
        metavar="N",
        help="with --together: rounds together (default 3)",
    )
    group.add_argument(
        "--alone",
        action="store_true",
        help="with --together: each station measures alone first, one after another, for its "
        "loss under contention",
    )
    group.add_argument(
        "--bitrate", type=rate, metavar="RATE", help="with --together: UDP's rate per station"
    )
    group.add_argument(
        "--step",
        type=number(int, 1, 20),
        metavar="N",
        help="with --together: take the plan from the exercise's step N (its protocol, "
        "direction, seconds and repetitions)",
    )
    group.add_argument(
        "--report", metavar="FILE", help="write the class report (.html or .pdf) of it"
    )


def wants_together(args: argparse.Namespace) -> bool:
    return bool(args.together or args.together_result is not None)


def _plan(args: argparse.Namespace, exercise: Exercise | None) -> TogetherPlan:
    base = TogetherPlan()
    if args.step:
        if exercise is None:
            raise BadOption("--step needs the exercise: give it with --exercise FILE.")
        if not 1 <= args.step <= len(exercise.steps):
            raise BadOption(f"The exercise has steps 1 to {len(exercise.steps)}: choose one.")
        base = plan_from_step(exercise.steps[args.step - 1].plan)
    protocol = Protocol(args.protocol) if args.protocol else base.protocol
    return TogetherPlan(
        protocol,
        Direction(args.direction) if args.direction else base.direction,
        args.seconds or base.seconds,
        args.rounds or base.rounds,
        args.alone or base.alone,
        (args.bitrate or base.bitrate_bps) if protocol is Protocol.UDP else 0,
    )


def _read(
    source: str, token: str | None, together_id: str | None
) -> tuple[TogetherResult | None, list[Waiting]]:
    if source.startswith(("http://", "https://")):
        query = f"?id={together_id}" if together_id else ""
        answer = call(collector_url(source), token or "", f"/v1/together{query}")
        if not answer.reached:
            raise Unreachable(f"The class's collector cannot be reached ({answer.sentence}).")
        if answer.status != 200:
            words = answer.sentence or f"it answered {answer.status}"
            raise BadOption(f"The class's results could not be read: {words.rstrip('.')}.")
        return results_from_wire(answer.data)
    store = open_class_store(source)
    try:
        return read_results(store, together_id, time.time())
    finally:
        store.close()


def _start(url: str, token: str, plan: TogetherPlan, exercise: Exercise | None) -> str:
    body = {"plan": plan.to_dict(), "exercise_id": exercise.id if exercise else ""}
    answer = call(url, token, "/v1/together/start", json.dumps(body).encode())
    if answer.status != 200 or not isinstance(answer.data, dict):
        words = answer.sentence or f"it answered {answer.status}"
        raise BadOption(f"The class could not start together: {words.rstrip('.')}.")
    return str(answer.data["together"])


def _print(result: TogetherResult, stream: TextIO) -> None:
    together = result.together
    print(f"Measured together: {together.plan.words} ({result.state})", file=stream)
    for slot in result.slots:
        index = f"Jain's index {index_text(slot.index)}" if slot.index is not None else ""
        total = f"total {rate_text(slot.total_bps)}" if slot.total_bps is not None else ""
        spread = (
            f"starts within {ms_text(slot.start_spread_s)}"
            if slot.start_spread_s is not None
            else ""
        )
        words = ", ".join(w for w in (index, total, spread) if w)
        print(f"{slot.slot.label}: {words or 'no figures yet'}", file=stream)
        for student in slot.slot.stations:
            print(f"    {student}: {slot_status_text(slot, student)}", file=stream)
    print("Stations:", file=stream)
    for s in result.stations:
        loss = s.contention_loss
        print(
            f"    {s.student}: {interval_text(s.throughput, kind='rate')}, share "
            f"{interval_text(s.share, kind='share')}"
            + (f", alone {rate_text(s.alone_bps)}, loss {percent_text(loss)}" if loss else ""),
            file=stream,
        )
    for sentence in findings(result):
        print(sentence, file=stream)


def cmd_together(args: argparse.Namespace, env: Environment) -> int:
    """`linklab class SOURCE --together` (start, wait, show) or `--together-result`."""
    source = args.folder
    live = source.startswith(("http://", "https://"))
    if not live and not source.startswith(("postgresql://", "postgres://", "sqlite:")):
        raise BadOption(
            "A class measures together through its collector: give its address "
            "(http://HOST:PORT) or its database (postgresql://…, sqlite:PATH)."
        )
    token = instructor_token(args, env)
    if live and not token:
        raise BadOption(
            "Give the instructor token with --instructor-token-file FILE: starting the class "
            "together and reading its results are the instructor's."
        )
    exercise = (
        read_exercise(args.exercise) if args.exercise and Path(args.exercise).is_file() else None
    )
    together_id = args.together_result or None
    if args.together:
        if not live:
            raise BadOption(
                "Start together through the collector (http://HOST:PORT): its clock is the one "
                "every station sets its start by."
            )
        if args.step and exercise is None:
            exercise = live_view(source, token, args.exercise).exercise
        plan = _plan(args, exercise)
        together_id = _start(collector_url(source), token or "", plan, exercise)
        print(f"linklab: started the class together: {plan.words}.", file=env.stderr, flush=True)
        said: set[int] = set()
        away = ""
        give_up = time.time() + GIVE_UP_S
        while True:
            try:
                result, _waiting = _read(source, token, together_id)
            except Unreachable as err:
                if err.sentence != away:
                    away = err.sentence
                    print(f"linklab: {away} Trying again.", file=env.stderr, flush=True)
                if time.time() > give_up:
                    raise
                time.sleep(READ_EVERY_S)
                continue
            away = ""
            assert result is not None
            give_up = result.together.end_at + GIVE_UP_S
            for slot in result.slots:
                if slot.settled and slot.slot.number not in said:
                    said.add(slot.slot.number)
                    index = index_text(slot.index)
                    print(
                        f"linklab: {slot.slot.label}: Jain's index {index}, total "
                        f"{rate_text(slot.total_bps)}.",
                        file=env.stderr,
                        flush=True,
                    )
            if result.state == "done" or time.time() > result.together.end_at + 2 * LAST_WORD_S:
                break
            time.sleep(READ_EVERY_S)
    result, _waiting = _read(source, token, together_id)
    if result is None:
        raise BadOption(
            "The class has not measured together yet: press Start together in the Class tab, "
            "or give --together."
        )
    if args.csv:
        view = live_view(source, token, args.exercise)
        try:
            Path(args.csv).write_text(grades_csv(view, result), encoding="utf-8", newline="")
        except OSError as err:
            raise BadOption(
                f"Cannot write {args.csv} ({err.strerror}): choose another place."
            ) from None
        print(f"Wrote {args.csv}.", file=env.stderr)
    if args.report:
        from app.ui.common.report_files import write_together_report

        write_together_report(result, args.report)
        print(f"Wrote {args.report}.", file=env.stderr)
    if args.json:
        print(json.dumps(together_json(result), indent=2, ensure_ascii=False), file=env.stdout)
    else:
        _print(result, env.stdout)
    return EXIT_OK
