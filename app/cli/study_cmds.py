"""`linklab run` and `linklab resume`: a sweep from flags, a preset or a plan file."""

from __future__ import annotations

import argparse
import json
import signal
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from app.cli.args import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SOME_FAILED,
    EXIT_STOPPED,
    add_echo_port_argument,
    add_field_options,
    add_port_arguments,
    add_station_arguments,
    add_submit_arguments,
    choices_list,
    field_overrides,
    key_value,
    number,
    peer_ports,
    person,
    rate,
    value_list,
)
from app.cli.environment import Environment
from app.cli.output import ProgressPrinter, json_text, print_points, session_json
from app.domain.errors import BadOption
from app.domain.exercise import (
    Exercise,
    Step,
    group_name,
    locked_differences,
    refuse_locked,
    student_name,
)
from app.domain.plan import (
    OLD_PORT_FIELDS,
    SWEEPS,
    Conditions,
    Engine,
    Medium,
    Peer,
    Plan,
    Security,
    Variable,
)
from app.domain.plan_codec import plan_from_dict
from app.domain.plan_fields import SWEPT, Kind, categorical, swept_names
from app.domain.records import SessionStatus
from app.domain.stream import drive
from app.domain.units import parse_rate, parse_size
from app.engine.drivers.driver import EngineDriver
from app.engine.drivers.registry import DRIVERS, main_server, registry
from app.study.frontdoor import FrontDoor
from app.study.host.detected_conditions import DETECTABLE
from app.study.studies import snapshot
from app.study.sweep.events import StudyEvent
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.presets import find_preset
from app.study.sweep.study_run import StudyRun

if TYPE_CHECKING:
    from app.study.lab.class_station import ClassPusher

#: --peer this-computer: what the window calls "This computer".
THIS_COMPUTER_ARG = "this-computer"

EXIT_FOR = {
    SessionStatus.COMPLETED: EXIT_OK,
    SessionStatus.STOPPED: EXIT_STOPPED,
    SessionStatus.FAILED: EXIT_FAILED,
    SessionStatus.INTERRUPTED: EXIT_FAILED,
    SessionStatus.RUNNING: EXIT_FAILED,
}


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", metavar="PATH", help="the database file (default: your data folder)"
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run",
        help="run a study: a sweep with repetitions, stored in the database",
        epilog=EXIT_CODES_HELP,
    )
    run.add_argument(
        "--peer",
        metavar="HOST",
        help=f"the computer to measure against ({THIS_COMPUTER_ARG}: this computer, with "
        f"LinkLab's own servers on its loopback)",
    )
    run.add_argument(
        "--peer6",
        metavar="ADDRESS",
        help="the peer's IPv6 address, when --peer is an IPv4 address and IPv6 is measured too",
    )
    add_port_arguments(run)
    add_echo_port_argument(
        run,
        "the UDP port of LinkLab's latency responder on the peer, for --metric latency "
        "(default 5200; a peer without it is measured by TCP connection time)",
    )
    run.add_argument("--engine", choices=[engine.value for engine in DRIVERS])
    run.add_argument("--protocol", type=choices_list(("tcp", "udp")), metavar="tcp|udp|tcp,udp")
    run.add_argument("--ip", type=choices_list(("4", "6")), metavar="4|6|4,6")
    run.add_argument("--direction", choices=("up", "down", "bidir"))
    run.add_argument(
        "--vary",
        choices=[v.value for v in SWEEPS],
        help="the swept variable (default: length, the packet size)",
    )
    run.add_argument(
        "--sizes",
        "--values",
        dest="values",
        metavar="LIST",
        help="128:1408:256 (from:to:step) or 128,384,1408",
    )
    add_field_options(run)
    run.add_argument("--order", choices=("sequential", "shuffled", "interleaved"))
    run.add_argument(
        "--metric",
        type=choices_list(("throughput", "rtt", "cpu", "latency")),
        metavar="throughput,rtt,cpu,latency",
        help="what to measure (default throughput); latency: working latency, idle before "
        "each run and loaded during it",
    )
    run.add_argument(
        "--early-stop",
        type=number(float, 0.001, 0.999),
        metavar="FRACTION",
        help="stop a point once its 95 %% CI is within this fraction of the mean",
    )
    run.add_argument("--min-runs", type=number(int, 2, 1000), default=5, metavar="N")
    run.add_argument(
        "--concurrent",
        action="store_true",
        default=None,
        help=f"run the series at the same time (one {main_server().server_label} per series "
        "on the peer, on consecutive ports: linklab serve --count N)",
    )
    add_condition_arguments(run)
    run.add_argument("--name", help="a name to find the session by")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--preset", metavar="NAME", help="start from a preset")
    source.add_argument("--plan", metavar="FILE", help="start from a plan file (JSON)")
    source.add_argument(
        "--exercise",
        metavar="FILE",
        help="a step of a lab exercise (.linklab-exercise); its locked fields cannot be changed",
    )
    run.add_argument("--student", type=person(student_name), help="your name, with --exercise")
    run.add_argument(
        "--group", type=person(group_name), default="", help="your group, with --exercise"
    )
    run.add_argument(
        "--step",
        type=number(int, 1, 20),
        metavar="N",
        help="the exercise's step (default: the first one not done yet)",
    )
    add_submit_arguments(run)
    add_station_arguments(run)
    add_db_argument(run)
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    run.set_defaults(handler=cmd_run)

    resume = sub.add_parser(
        "resume",
        help="measure a session's missing and failed runs",
        epilog=EXIT_CODES_HELP,
    )
    resume.add_argument("session", metavar="SESSION", help="id, id prefix or name")
    add_port_arguments(resume, "the peer's {label} port, when it moved (default: as stored)")
    add_echo_port_argument(resume, "the peer's latency responder port, when it moved")
    add_db_argument(resume)
    resume.add_argument("--json", action="store_true")
    resume.set_defaults(handler=cmd_resume)


def _values(text: str, variable: str) -> list[int] | list[str]:
    """Sizes take K/M suffixes in 1024s, bitrates in 1000s (as iperf3 reads them); a variable
    of names takes names (cubic,bbr,reno)."""
    if categorical(Variable(variable)):
        try:
            return swept_names(Variable(variable), text)
        except ValueError as err:
            raise BadOption(f"argument --sizes/--values: {err}.") from None
    parse = parse_rate if SWEPT[Variable(variable)].kind is Kind.RATE else parse_size
    try:
        return value_list(parse)(text)
    except argparse.ArgumentTypeError as err:
        raise BadOption(f"argument --sizes/--values: {err}.") from None


def plan_from_args(
    args: argparse.Namespace, exercise: Exercise | None = None, step: Step | None = None
) -> Plan:
    """The plan file, preset or exercise step first, then every flag given on top of it (a
    flag that changes a field the exercise locks is refused)."""
    base: dict[str, Any]
    overrides: dict[str, Any] = {
        "engine": args.engine,
        "protocols": args.protocol,
        "direction": args.direction,
        "variable": args.vary,
        **field_overrides(args),
        "concurrent": args.concurrent,
        "order": args.order,
        "metrics": args.metric,
        "name": args.name,
        "ip_versions": [int(v) for v in args.ip] if args.ip else None,
    }
    if args.plan:
        try:
            text = Path(args.plan).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise BadOption(f"The plan file {args.plan} cannot be read ({err}).") from None
        try:
            base = json.loads(text)
        except ValueError as err:
            raise BadOption(f"The plan file {args.plan} is not valid JSON ({err}).") from None
        if not isinstance(base, dict):
            raise BadOption(f"The plan file {args.plan} must hold a JSON object.")
    elif args.preset:
        base = find_preset(args.preset).plan.to_dict()
        base.pop("peer", None)
    elif exercise is not None and step is not None:
        base = step.plan.to_dict()
        base.pop("peer", None)
        # A flag that changes a locked field is refused once the plan is built, before any
        # plan check (whose sentence would send the student to change what they may not).
    else:
        base = {}
    base.update({k: v for k, v in overrides.items() if v is not None})
    if args.values is not None:
        base["values"] = _values(args.values, str(base.get("variable", Variable.LENGTH.value)))
    if args.early_stop is not None:
        base["early_stop"] = {"relative_ci": args.early_stop, "min_runs": args.min_runs}
    peer = dict(base.get("peer") or {})
    if args.peer == THIS_COMPUTER_ARG:
        peer = asdict(Peer.this_computer())
    elif args.peer:
        peer["host"] = args.peer
    if args.peer6:
        peer["host6"] = args.peer6
    if ports := peer_ports(args):
        old = {new: peer.pop(name) for name, new in OLD_PORT_FIELDS.items() if name in peer}
        peer["ports"] = {**old, **(peer.get("ports") or {}), **ports}
    if args.echo_port:
        peer["echo_port"] = args.echo_port
    if not peer.get("host"):
        raise BadOption("Give the peer to measure against with --peer HOST (or in the plan file).")
    base["peer"] = peer
    plan = plan_from_dict(base)
    plan = replace(plan, conditions=stated_conditions(args, plan.conditions))
    if exercise is not None and step is not None:
        refuse_locked(exercise, step, locked_differences(step, plan))
    # The medium left to detection is checked once detected (Studies.prepare).
    validate_plan(plan, detect=left_to_detection(args, step))
    return plan


def add_condition_arguments(cmd: argparse.ArgumentParser) -> None:
    """The link's conditions a session is stored with: --security, --medium, --link-rate,
    --frame-overhead, --tag and --notes (read back by stated_conditions)."""
    cmd.add_argument("--security", choices=[s.value for s in Security])
    cmd.add_argument(
        "--medium",
        choices=[m.value for m in Medium],
        help="the link's medium; without it, the one the adapter to the peer says, marked "
        "detected (as the window's Study page fills it)",
    )
    cmd.add_argument(
        "--link-rate",
        type=rate,
        metavar="RATE",
        help="the link's rate (Ethernet: line rate; Wi-Fi: PHY rate), e.g. 100M or 1G: the "
        "points gain the expected goodput (linklab expected); without it, a Wi-Fi PHY rate "
        "in use, marked detected (a wired adapter's speed is the adapter's, never taken)",
    )
    cmd.add_argument(
        "--frame-overhead",
        type=number(int, 0, 10000),
        metavar="BYTES",
        help="link-layer bytes per frame instead of the medium's (a Linux tc shaper counts 14)",
    )
    cmd.add_argument(
        "--tag", type=key_value, action="append", default=[], metavar="KEY=VALUE|LABEL"
    )
    cmd.add_argument("--notes")


def stated_conditions(args: argparse.Namespace, conditions: Conditions) -> Conditions:
    """The conditions with what add_condition_arguments' flags state put in (a stated one is
    the user's word: never marked detected)."""
    if args.security:
        conditions = replace(conditions, security=Security(args.security), security_detected=False)
    if args.medium:
        conditions = replace(conditions, medium=Medium(args.medium), medium_detected_by="")
    if args.link_rate is not None:
        conditions = replace(conditions, link_rate_bps=args.link_rate, link_rate_detected_by="")
    if args.frame_overhead is not None:
        conditions = replace(conditions, frame_overhead=args.frame_overhead)
    if args.tag:
        conditions = conditions.with_tags({**conditions.tag_dict, **dict(args.tag)})
    if args.notes is not None:
        conditions = replace(conditions, notes=args.notes)
    return conditions


def left_to_detection(args: argparse.Namespace, step: Step | None = None) -> tuple[str, ...]:
    """The conditions the user left to what the system says of the link: the medium and the
    link rate no flag states and the exercise step does not lock."""
    stated = {"medium": args.medium is not None, "link-rate": args.link_rate is not None}
    locked = step.locked if step is not None else ()
    return tuple(n for n in DETECTABLE if not stated[n] and n not in locked)


def _install_stop(study: StudyRun) -> None:
    """Ctrl+C or SIGTERM stops the sweep gracefully (the run in progress is kept unfinished
    with its intervals and the engine's output until then, the session is marked stopped); a
    second Ctrl+C stops at once."""

    def stop(signum: int, _frame: FrameType | None) -> None:
        if study.stopping and signum == signal.SIGINT:
            raise KeyboardInterrupt
        study.stop()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def _execute(
    args: argparse.Namespace,
    door: FrontDoor,
    study: StudyRun,
    env: Environment,
    printer: Callable[[StudyEvent], None],
    pusher: ClassPusher | None = None,
) -> int:
    """Measure, printing the progress as the events come (pushing each finished run to the
    class's collector when there is one), then print the session's points."""
    _install_stop(study)
    try:
        events = study.events()
        if pusher is not None:
            events = pusher.pushing(events)
        outcome = drive(events, printer)
    finally:
        door.loopback.stop()
    session = door.sessions().get(outcome.session_id)
    runs = door.sessions().runs(outcome.session_id)
    if args.json:
        print(json_text(session_json(session, runs)), file=env.stdout)
    else:
        print_points(session, runs, env.stdout)
    if outcome.status is SessionStatus.COMPLETED and outcome.runs_failed:
        return EXIT_SOME_FAILED
    return EXIT_FOR[outcome.status]


def cli_drivers(env: Environment) -> Mapping[Engine, EngineDriver]:
    """The engines' drivers with the settings the command line was given (LINKLAB_<NAME>)."""
    return registry(env.engine_settings)


def open_door(args: argparse.Namespace, env: Environment) -> FrontDoor:
    """The front door of --db (or the default database), after its start-up work."""
    wifi = env.wifi
    door = FrontDoor(
        env.db(args.db),
        drivers=cli_drivers(env),
        take_snapshot=lambda host, engines: snapshot(host, engines, tools=wifi),
    )
    door.startup()
    for sentence in door.left_behind:
        print(f"linklab: {sentence}", file=env.stderr)
    return door


def cmd_run(args: argparse.Namespace, env: Environment) -> int:
    if args.exercise:
        return _run_exercise(args, env)
    if args.student or args.step or args.submit or args.wait_for_start is not None:
        raise BadOption(
            "--student, --step, --submit and --wait-for-start go with --exercise FILE: name "
            "the exercise."
        )
    plan = plan_from_args(args)
    door = open_door(args, env)
    try:
        prepared = door.studies().prepare(plan, detect=left_to_detection(args))
    except BaseException:
        door.loopback.stop()
        raise
    return _execute(args, door, door.studies().start(prepared), env, ProgressPrinter(env.stderr))


def cmd_resume(args: argparse.Namespace, env: Environment) -> int:
    door = open_door(args, env)
    study = door.studies().resume(args.session, ports=peer_ports(args), echo_port=args.echo_port)
    return _execute(args, door, study, env, ProgressPrinter(env.stderr))


def _run_exercise(args: argparse.Namespace, env: Environment) -> int:
    """A step of a lab exercise: the step's plan, the student's own peer and the fields the
    exercise leaves open; the session records the student, the group and the step."""
    # Exercises and the class's collector load only for an exercise.
    from app.cli.class_live_cmds import finish_pushing, pusher_for, station_peer
    from app.study.lab.exercises import read_exercise

    exercise = read_exercise(args.exercise)
    if not args.student:
        raise BadOption("Give your name with --student NAME: the exercise records who measured.")
    door = open_door(args, env)
    pusher = pusher_for(args, env, door.db_path, exercise, args.student)
    if pusher is not None and args.peer is None:
        # The collector tells each station which of the class's engine servers is its own.
        args.peer, port = station_peer(pusher, args.student)
        args.port = args.port or port
    if args.wait_for_start is not None:
        from app.cli.together_cmds import run_station

        return run_station(args, env, door, exercise, pusher, plan_from_args(args))
    desk = door.exercises()
    number = args.step or desk.next_step(exercise, args.student)
    if not 1 <= number <= len(exercise.steps):
        raise BadOption(f"The exercise has steps 1 to {len(exercise.steps)}: choose one of them.")
    step = exercise.steps[number - 1]
    plan = plan_from_args(args, exercise, step)
    plan = desk.plan_for(
        exercise, number, student=args.student, group=args.group, peer=plan.peer, base=plan
    )
    desk.begin(exercise, args.student, args.group)
    print(
        f"linklab: {exercise.title}, "
        f"{exercise.steps[number - 1].heading(number, len(exercise.steps)).lower()}",
        file=env.stderr,
    )
    if pusher is not None:
        pusher.start()
    try:
        try:
            prepared = door.studies().prepare(plan, detect=left_to_detection(args, step))
        except BaseException:
            door.loopback.stop()
            raise
        printer = ProgressPrinter(env.stderr)
        return _execute(args, door, door.studies().start(prepared), env, printer, pusher)
    finally:
        if pusher is not None:
            finish_pushing(pusher, env)
