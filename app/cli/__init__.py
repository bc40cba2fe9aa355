"""Headless commands: the same runner as the window, for scripting, peers and tests."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from app import __version__
from app.cli.args import EXIT_CODES_HELP, EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from app.cli.environment import Environment
from app.domain.errors import BadOption, LinkLabError
from app.engine.errors import StoppedByUser
from app.engine.process.process import install_exit_handlers
from app.engine.process.server_records import keep_records_in

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

#: The module (under app.cli) that registers each command, in the order `linklab --help`
#: lists them. A command line naming one of them imports that module only: a study does not
#: wait for the modules of comparing, classes or the responsiveness test to load.
COMMANDS = {
    "run": "study_cmds",
    "resume": "study_cmds",
    "monitor": "monitor_cmd",
    "sessions": "session_cmds",
    "export": "export_cmds",
    "import": "export_cmds",
    "compare": "compare_cmds",
    "expected": "expected_cmds",
    "exercise": "exercise_cmds",
    "class": "class_cmds",
    "class-server": "class_live_cmds",
    "responsiveness": "responsiveness_cmd",
    "doctor": "engine_cmds",
    "measure": "engine_cmds",
    "demo": "engine_cmds",
    "serve": "serve_cmd",
    "discover": "discover_cmd",
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser; given the arguments, only the command they name (when the
    first of them is one) is registered, else every command."""
    parser = _Parser(
        prog="linklab",
        description="Measure what a network link really delivers, and what a setting costs.",
        epilog=EXIT_CODES_HELP,
    )
    parser.add_argument("--version", action="version", version=f"LinkLab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = COMMANDS.get(argv[0]) if argv else None
    modules = [named] if named else [] if argv is not None and not argv else COMMANDS.values()
    for module in dict.fromkeys(modules):  # no arguments: the window, no command to read
        importlib.import_module(f"app.cli.{module}").register(sub)
    return parser


def files_to_open(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[Path] | None:
    """The files of `linklab FILE...` (how a desktop opens a .linklab file), or None when the
    arguments are argparse's to read. A name that looks like a file but is none is an
    argparse error, so the window never opens for it."""
    commands = {
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }
    if not argv or any(arg.startswith("-") or arg in commands for arg in argv):
        return None
    paths = [Path(arg) for arg in argv]
    if not any(p.exists() or p.suffix or len(p.parts) > 1 for p in paths):
        return None  # a mistyped command: argparse names the ones there are
    for path in paths:
        if not path.is_file():
            why = "it is a folder, not a file" if path.is_dir() else "there is no such file"
            parser.error(f"cannot open {path}: {why}")
    return [path.absolute() for path in paths]


class _Parser(argparse.ArgumentParser):
    """argparse's parser, writing its help and version to the stdout of the environment it
    parses for (set while it parses) and its errors to its stderr, not to the process's."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        env = _PARSING.get()
        if env is None:
            super()._print_message(message, file)
        elif message:
            (env.stderr if file is env.stderr else env.stdout).write(message)

    def error(self, message: str) -> NoReturn:
        env = _PARSING.get()
        if env is None:
            super().error(message)
        self.print_usage(env.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        env = _PARSING.get()
        if env is not None and message:
            env.stderr.write(message)
            message = None
        super().exit(status, message)


_PARSING: ContextVar[Environment | None] = ContextVar("linklab_parsing", default=None)


def main(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """`linklab ARGS`: the command argv names, run in env, its exit status returned. Without
    env, the process's own (its streams, its variables, Ctrl+C and SIGTERM as a process
    takes them); with one, the command runs in-process and touches nothing but env."""
    process = env is None
    if env is None:
        env = Environment.from_process()
        install_exit_handlers()
    arguments = sys.argv[1:] if argv is None else list(argv)
    token = _PARSING.set(env)
    try:
        parser = build_parser(arguments)
        open_files = files_to_open(parser, arguments)
        args = None if open_files else parser.parse_args(arguments)
    except SystemExit as stop:  # --help, --version, a wrong option: argparse has said why
        if process:
            raise  # the process ends with argparse's own status, as it always did
        return stop.code if isinstance(stop.code, int) else EXIT_OK if stop.code is None else 1
    finally:
        _PARSING.reset(token)
    if args is None or args.command is None:
        keep_records_in(env.data_folder)
        from app.ui.app import run_app  # the window; Qt is imported only now

        return run_app(open_files=open_files or [])
    if process:
        keep_records_in(env.data_folder)
        # Ctrl+C stops every command, also one started as a background job (`linklab measure
        # &`), which the shell starts with SIGINT ignored and Python then leaves ignored.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return _run(args, env)
    # In-process: the handlers a command sets to stop on Ctrl+C, and where it keeps its
    # servers' records, are the caller's again after it.
    saved = {signum: signal.getsignal(signum) for signum in _STOP_SIGNALS}
    records = keep_records_in(env.data_folder)
    try:
        return _run(args, env)
    finally:
        keep_records_in(records)
        for signum, handler in saved.items():
            signal.signal(signum, handler)


#: The signals a command may take over to stop cleanly (Ctrl+C, an end asked from outside).
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _run(args: argparse.Namespace, env: Environment) -> int:
    """The command's handler, its errors said in sentences with the exit status they mean."""
    try:
        return int(args.handler(args, env))
    except BadOption as err:
        # A value the user gave: same exit status as an argparse error.
        print(f"linklab: {err.sentence}", file=env.stderr)
        return EXIT_USAGE
    except LinkLabError as err:
        print(f"linklab: {err.sentence}", file=env.stderr)
        return EXIT_STOPPED if isinstance(err, StoppedByUser) else EXIT_FAILED
    except KeyboardInterrupt:
        print("linklab: stopped.", file=env.stderr)
        return EXIT_STOPPED
    except BrokenPipeError:
        # The reader went away (e.g. `linklab doctor | head`): nothing left to say.
        env.stderr.close()
        return EXIT_OK
