"""A class collected live from the command line: the instructor's collector (`linklab
class-server`), the class view read from a collector or a database (`linklab class URL`), a
student's runs pushed as they go (`linklab run --exercise … --submit URL`, `linklab exercise
push`), and a pool of engine servers announced to the collector (`linklab serve --count N
--collector URL`); the two credentials each takes (the class token, the instructor token) from
a file, a variable or, visible to other users, the command line."""

from __future__ import annotations

import argparse
import json
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from app.cli.args import EXIT_OK, add_submit_arguments, number
from app.cli.environment import Environment
from app.domain.collector import check_token, collector_url
from app.domain.errors import BadOption
from app.domain.exercise import Exercise
from app.engine.drivers.registry import main_server
from app.engine.process.servers import LocalServer
from app.store.class_backends import open_class_store, shown_url
from app.study.host.server_pool import MAX_POOL, pool_for
from app.study.lab.class_http import call
from app.study.lab.class_live import choose_exercise, is_file, live_class, view_from_wire
from app.study.lab.class_station import ClassPusher, PoolRefused, announce_pool, my_server
from app.study.lab.classroom import ClassView
from app.study.lab.collector import (
    DEFAULT_PORT,
    Collector,
    instructor_token_file,
    parse_listen,
    read_token_file,
    token_file_warning,
    write_into_exercise,
)
from app.study.lab.collector_gate import Limits
from app.study.lab.exercises import read_exercise

__all__ = [
    "CLASS_TOKEN_VARIABLE",
    "INSTRUCTOR_TOKEN_VARIABLE",
    "add_instructor_token_arguments",
    "add_pool_arguments",
    "add_submit_arguments",
    "cmd_class_server",
    "live_view",
    "pusher_for",
    "register",
]

#: How long `linklab run --submit` keeps sending after its last run before it leaves the
#: rest queued for the next time.
FLUSH_S = 10.0
#: Where a token can be given without a command line that `ps` shows every user.
CLASS_TOKEN_VARIABLE = "LINKLAB_CLASS_TOKEN"  # noqa: S105 (a variable's name)
INSTRUCTOR_TOKEN_VARIABLE = "LINKLAB_INSTRUCTOR_TOKEN"  # noqa: S105 (a variable's name)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    server = sub.add_parser(
        "class-server",
        help="collect a class's runs live: the students' LinkLab pushes each run as it ends",
    )
    server.add_argument(
        "--listen",
        default=f"0.0.0.0:{DEFAULT_PORT}",
        metavar="ADDR:PORT",
        help=f"where the stations reach this collector (default 0.0.0.0:{DEFAULT_PORT}, every "
        f"address)",
    )
    server.add_argument(
        "--store",
        metavar="URL",
        help="sqlite:PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE (default: this "
        "computer's LinkLab database)",
    )
    server.add_argument(
        "--token-file",
        required=True,
        metavar="FILE",
        help="the class token's file (created with a new random token when missing)",
    )
    server.add_argument(
        "--instructor-token-file",
        metavar="FILE",
        help="the instructor token's file (default: instructor.token beside the class token's; "
        "created with a new random token when missing): it registers the class's servers and "
        "reads the whole class, and is never written into an exercise",
    )
    server.add_argument(
        "--exercise",
        metavar="FILE",
        help="write this collector's address and the class token into the exercise file to "
        "hand out",
    )
    server.add_argument(
        "--max-mb",
        type=number(int, 1, 64),
        default=8,
        metavar="MB",
        help="the largest push accepted (default 8 MB)",
    )
    server.add_argument(
        "--rate",
        type=number(float, 1, 10_000),
        default=50.0,
        metavar="N",
        help="requests a second one station may send (default 50)",
    )
    server.set_defaults(handler=cmd_class_server)


# -- the collector --------------------------------------------------------------------------------
def stop_on_signals() -> None:
    """SIGINT and SIGTERM stop the collector cleanly (a push in progress finishes)."""

    def stop(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def cmd_class_server(args: argparse.Namespace, env: Environment) -> int:
    host, port = parse_listen(args.listen)
    token_path = Path(args.token_file)
    instructor_path = (
        Path(args.instructor_token_file)
        if args.instructor_token_file
        else instructor_token_file(token_path)
    )
    token, created = read_token_file(token_path)
    instructor, instructor_created = read_token_file(instructor_path, what="instructor token")
    for path in (token_path, instructor_path):
        if warning := token_file_warning(path):
            print(f"linklab: {warning}", file=env.stderr)
    store = open_class_store(args.store or f"sqlite:{env.database}")
    store_words = shown_url(args.store) if args.store else f"sqlite:{env.database}"

    def log(line: str) -> None:
        print(f"  [{time.strftime('%H:%M:%S')}] {line}", flush=True, file=env.stdout)

    limits = Limits(max_body=args.max_mb * 2**20, rate=args.rate, burst=max(20, int(args.rate)))
    stop_on_signals()
    collector = Collector(
        store, token, host, port, instructor_token=instructor, limits=limits, on_log=log
    )
    collector.start()
    try:
        # A token is a password: shown once, and only when this collector made it (the
        # instructor already has one they wrote); never in a log line or a suggested command.
        if created:
            print(f"A new class token was written to {args.token_file}: {token}", file=env.stdout)
        else:
            print(f"The class token is the one in {args.token_file}.", file=env.stdout)
        if instructor_created:
            print(
                f"A new instructor token was written to {instructor_path}: {instructor}",
                file=env.stdout,
            )
        else:
            print(f"The instructor token is the one in {instructor_path}.", file=env.stdout)
        print(
            f"Keep the instructor token to yourself: the class's servers register with it "
            f"(linklab serve --count N --collector {collector.url} --instructor-token-file "
            f"FILE, FILE a copy of {instructor_path}), and it reads the whole class.",
            file=env.stdout,
        )
        print(
            f"Collecting the class at {collector.url} (listening on {host}:{collector.port}).",
            file=env.stdout,
        )
        print(f"Store: {store_words}", file=env.stdout)
        if args.exercise:
            write_into_exercise(Path(args.exercise), collector.url, token)
            print(
                f"Wrote this address and the token into {args.exercise}: the students' LinkLab "
                f"pushes each run here as it ends.",
                file=env.stdout,
            )
            print(
                f"Students: linklab run --exercise FILE --student NAME (FILE: a copy of "
                f"{args.exercise})",
                file=env.stdout,
            )
        else:
            print(
                f"Students: linklab run --exercise FILE --student NAME --submit {collector.url} "
                f"--token-file FILE (FILE: a copy of {args.token_file}, the class token), or "
                f"hand them an exercise written with --exercise FILE.",
                file=env.stdout,
            )
        print("Press Ctrl+C to stop.", flush=True, file=env.stdout)
        while collector.running:
            time.sleep(0.2)
        return EXIT_OK
    except KeyboardInterrupt:
        print("Stopping the collector.", file=env.stderr)
        return EXIT_OK
    finally:
        collector.stop()
        store.close()


# -- the class view ------------------------------------------------------------------------------
def is_live_source(source: str) -> bool:
    return source.startswith(("http://", "https://", "postgresql://", "postgres://", "sqlite:"))


def live_view(source: str, token: str | None, exercise: str | None) -> ClassView:
    """The class of a collector (http://…, with the class token) or of a class database
    (postgresql://…, sqlite:PATH, by its own credentials)."""
    if source.startswith(("http://", "https://")):
        if not token:
            raise BadOption(
                "Give the instructor token with --instructor-token-file FILE (FILE: "
                "instructor.token on the collector's computer) to read a collector's class."
            )
        if exercise and is_file(exercise):  # the collector knows it by its id
            exercise = read_exercise(exercise).id
        query = f"?exercise={_quote(exercise)}" if exercise else ""
        answer = call(collector_url(source), token, f"/v1/class{query}")
        if answer.status != 200:
            words = answer.sentence or f"it answered {answer.status}"
            raise BadOption(f"The class could not be read: {words.rstrip('.')}.")
        view, _changes = view_from_wire(answer.data)
        return view
    store = open_class_store(source)
    try:
        return live_class(store, choose_exercise(store, exercise))
    finally:
        store.close()


def _quote(text: str) -> str:
    import urllib.parse

    return urllib.parse.quote(text, safe="")


def add_instructor_token_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """--instructor-token-file (and LINKLAB_INSTRUCTOR_TOKEN): the instructor's credential."""
    parser.add_argument(
        "--instructor-token-file",
        metavar="FILE",
        help=f"the instructor token's file (a copy of instructor.token from the collector's "
        f"computer), {what}; or set {INSTRUCTOR_TOKEN_VARIABLE}. Never the class token: that "
        f"one is in every exercise handed out",
    )
    # The names of before, still read: a class token given so is refused by the collector with
    # a sentence that says which token it needs.
    parser.add_argument("--token", dest="instructor_token", help=argparse.SUPPRESS)
    parser.add_argument("--token-file", dest="instructor_token_file", help=argparse.SUPPRESS)


def given_token(
    text: str | None, file: str | None, variables: Mapping[str, str], variable: str, what: str
) -> str | None:
    """A token given on the command line, in a file or in the variable; None when none is."""
    if text:
        return check_token(text, f"The {what}")
    if file:
        path = Path(file)
        return read_token_file(path, create=False, what=what)[0]
    if variables.get(variable):
        return check_token(variables[variable], f"The {what} in {variable}")
    return None


def class_token(args: argparse.Namespace, env: Environment) -> str | None:
    """The class token a student's command was given (--token, --token-file, the variable)."""
    return given_token(
        getattr(args, "token", None),
        getattr(args, "token_file", None),
        env.variables,
        CLASS_TOKEN_VARIABLE,
        "class token",
    )


def instructor_token(args: argparse.Namespace, env: Environment) -> str | None:
    """The instructor token a command was given (its file, the variable)."""
    return given_token(
        getattr(args, "instructor_token", None),
        getattr(args, "instructor_token_file", None),
        env.variables,
        INSTRUCTOR_TOKEN_VARIABLE,
        "instructor token",
    )


# -- a student's station -------------------------------------------------------------------------
def pusher_for(
    args: argparse.Namespace, env: Environment, db_path: Path, exercise: Exercise, student: str
) -> ClassPusher | None:
    """The pusher of `--submit` (or of the collector the exercise names); None without one."""
    if args.no_submit:
        return None
    named = exercise.collector
    url = collector_url(args.submit) if args.submit else (named.url if named else "")
    if not url:
        return None
    token = class_token(args, env) or (named.token if named else "")
    if not token:
        raise BadOption(
            f"Give the class token with --token-file FILE (or {CLASS_TOKEN_VARIABLE}) to push "
            f"to {url}."
        )
    return ClassPusher(db_path, exercise, student, url, check_token(token))


def station_peer(pusher: ClassPusher, student: str) -> tuple[str, int]:
    """The engine server the collector gives this station (its own port of the pool)."""
    host, port, _engine = my_server(pusher.url, pusher.sender.token, student)
    return host, port


def finish_pushing(pusher: ClassPusher, env: Environment) -> None:
    status = pusher.close(FLUSH_S)
    print(f"linklab: class at {pusher.url}: {status.words}", file=env.stderr)
    if status.waiting:
        print(
            "linklab: the runs still waiting are kept on this computer and sent the next time "
            "(linklab exercise push FILE --student NAME sends them now).",
            file=env.stderr,
        )
    for sentence in status.refusals:
        print(f"linklab: refused by the collector: {sentence}", file=env.stderr)


def cmd_push(args: argparse.Namespace, db_path: Path, exercise: Exercise, env: Environment) -> int:
    """`linklab exercise push`: everything of this student's work not yet acknowledged, sent
    until it is (or --wait seconds pass)."""
    pusher = pusher_for(args, env, db_path, exercise, args.student)
    if pusher is None:
        raise BadOption(
            "The exercise names no collector: give its address with --submit URL --token-file FILE."
        )
    pusher.start()
    status = pusher.close(args.wait)
    counts = {"sent": status.sent, "waiting": status.waiting, "refused": status.refused}
    print(json.dumps(counts) if args.json else status.words, file=env.stdout)
    return EXIT_OK if not status.waiting else 1


# -- a pool of engine servers ------------------------------------------------------------------
def add_pool_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--count",
        type=number(int, 1, MAX_POOL),
        default=1,
        metavar="N",
        help=f"N {main_server().server_label}s on consecutive ports (for concurrent series, or "
        "one per station of a class: see --collector)",
    )
    serve.add_argument(
        "--collector",
        metavar="URL",
        help="tell the class's collector at URL about these servers: it gives each station "
        "its own port",
    )
    add_instructor_token_arguments(serve, "with --collector")


def pool_token(args: argparse.Namespace, env: Environment) -> str | None:
    """The instructor token `serve --collector` registers its servers with (checked before any
    server starts); None without --collector."""
    if not args.collector:
        return None
    token = instructor_token(args, env)
    if not token:
        raise BadOption(
            f"Give the instructor token with --instructor-token-file FILE (FILE: a copy of "
            f"instructor.token from the collector's computer, or set "
            f"{INSTRUCTOR_TOKEN_VARIABLE}) with --collector: only the instructor registers the "
            f"class's servers."
        )
    return token


def tell_collector(args: argparse.Namespace, token: str, servers: list[LocalServer]) -> str:
    """Announce the pool to the class's collector: each station is told its own port. An
    engine that serves many clients at once (iperf 2's `iperf -s`) would be one server for
    every station: pool_for() says which, and the collector hands that one port to all."""
    main = main_server()
    pool = pool_for(main.name, [s.port for s in servers if s.tool.name == main.server_program])
    try:
        return announce_pool(
            collector_url(args.collector), token, pool.ports, pool.engine, args.bind, pool.shared
        )
    except PoolRefused:
        raise  # the wrong token: serving a class that can never be told of them helps no one
    except BadOption as err:
        return f"linklab: {err.sentence} The servers serve on; start again to tell it."
