"""A class collected live from the command line: the instructor's collector (`linklab
class-server`), the class view read from a collector or a database (`linklab class URL`), a
student's runs pushed as they go (`linklab run --exercise … --submit URL`, `linklab exercise
push`), and a pool of engine servers announced to the collector (`linklab serve --count N
--collector URL`)."""

from __future__ import annotations

import argparse
import json
import signal
import time
from pathlib import Path
from types import FrameType

from app.cli.args import EXIT_OK, add_submit_arguments, number
from app.cli.environment import Environment
from app.domain.collector import check_token, collector_url
from app.domain.errors import BadOption
from app.domain.exercise import Exercise
from app.engine.servers import LocalServer
from app.store.class_backends import open_class_store, shown_url
from app.study.host.server_pool import MAX_POOL, pool_for
from app.study.lab.class_http import call
from app.study.lab.class_live import choose_exercise, is_file, live_class, view_from_wire
from app.study.lab.class_station import ClassPusher, announce_pool, my_server
from app.study.lab.classroom import ClassView
from app.study.lab.collector import (
    DEFAULT_PORT,
    Collector,
    parse_listen,
    read_token_file,
    write_into_exercise,
)
from app.study.lab.collector_app import Limits
from app.study.lab.exercises import read_exercise

__all__ = [
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
        "--exercise",
        metavar="FILE",
        help="write this collector's address and token into the exercise file to hand out",
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
    token, created = read_token_file(Path(args.token_file))
    store = open_class_store(args.store or f"sqlite:{env.database}")
    store_words = shown_url(args.store) if args.store else f"sqlite:{env.database}"

    def log(line: str) -> None:
        print(f"  [{time.strftime('%H:%M:%S')}] {line}", flush=True, file=env.stdout)

    limits = Limits(max_body=args.max_mb * 2**20, rate=args.rate, burst=max(20, int(args.rate)))
    stop_on_signals()
    collector = Collector(store, token, host, port, limits=limits, on_log=log)
    collector.start()
    try:
        # The token is a password: shown once, and only when this collector made it (the
        # instructor already has one they wrote); never in a log line or a suggested command.
        if created:
            print(f"A new class token was written to {args.token_file}: {token}", file=env.stdout)
        else:
            print(f"The class token is the one in {args.token_file}.", file=env.stdout)
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
                f"--token TOKEN (TOKEN: the class token in {args.token_file}), or hand them an "
                f"exercise written with --exercise FILE.",
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
                "Give the class token with --token (or --token-file) to read a collector."
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


def class_token(args: argparse.Namespace) -> str | None:
    if getattr(args, "token", None):
        return check_token(args.token)
    if getattr(args, "token_file", None):
        return read_token_file(Path(args.token_file), create=False)[0]
    return None


# -- a student's station -------------------------------------------------------------------------
def pusher_for(
    args: argparse.Namespace, db_path: Path, exercise: Exercise, student: str
) -> ClassPusher | None:
    """The pusher of `--submit` (or of the collector the exercise names); None without one."""
    if args.no_submit:
        return None
    named = exercise.collector
    url = collector_url(args.submit) if args.submit else (named.url if named else "")
    if not url:
        return None
    token = args.token or (named.token if named else "")
    if not token:
        raise BadOption(f"Give the class token with --token to push to {url}.")
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
    pusher = pusher_for(args, db_path, exercise, args.student)
    if pusher is None:
        raise BadOption(
            "The exercise names no collector: give its address with --submit URL --token TOKEN."
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
        help="N iperf3 servers on consecutive ports (for concurrent series, or one per station "
        "of a class: see --collector)",
    )
    serve.add_argument(
        "--collector",
        metavar="URL",
        help="tell the class's collector at URL about these servers: it gives each station "
        "its own port",
    )
    serve.add_argument("--token", metavar="TOKEN", help="the class token, with --collector")
    serve.add_argument("--token-file", metavar="FILE", help="the class token's file")


def tell_collector(args: argparse.Namespace, servers: list[LocalServer]) -> str:
    """Announce the pool to the class's collector: each station is told its own port. An
    engine that serves many clients at once (iperf 2's `iperf -s`) would be one server for
    every station: pool_for() says which, and the collector hands that one port to all."""
    token = class_token(args)
    if not token:
        raise BadOption("Give the class token (--token or --token-file) with --collector.")
    pool = pool_for("iperf3", [s.port for s in servers if s.tool.name == "iperf3"])
    try:
        return announce_pool(
            collector_url(args.collector), token, pool.ports, pool.engine, args.bind, pool.shared
        )
    except BadOption as err:
        return f"linklab: {err.sentence} The servers serve on; start again to tell it."
