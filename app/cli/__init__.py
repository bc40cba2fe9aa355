"""Headless commands: the same runner as the window, for scripting, peers and tests."""

from __future__ import annotations

import argparse
import importlib
import io
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from app import __version__
from app.cli.args import EXIT_CODES_HELP, EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from app.domain.errors import BadOption, LinkLabError
from app.engine.drivers import PROGRAM_NAMES
from app.engine.errors import StoppedByUser
from app.engine.process import install_exit_handlers
from app.engine.tools import EngineSettings

#: The module (under app.cli) that registers each command, in the order `linklab --help`
#: lists them. A command line naming one of them imports that module only: a study does not
#: wait for the modules of comparing, classes or the responsiveness test to load.
COMMANDS = {
    "run": "study_cmds",
    "resume": "study_cmds",
    "monitor": "monitor_cmd",
    "sessions": "session_cmds",
    "export": "session_cmds",
    "import": "session_cmds",
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
    parser = argparse.ArgumentParser(
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


def speak_utf8() -> None:
    """Write stdout and stderr in UTF-8 whatever the system's code page: LinkLab's sentences
    and figures use characters (−, α, ›) that Windows' ANSI code page (cp1252) cannot encode
    when the output goes to a pipe or a file, which would end the command mid-sentence.
    A Windows console already takes UTF-8, and so do Linux and macOS; nothing changes there."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").replace("-", "").lower()
        if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    speak_utf8()
    install_exit_handlers()
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(arguments)
    open_files = files_to_open(parser, arguments)
    args = None if open_files else parser.parse_args(arguments)
    if args is None or args.command is None:
        from app.ui.app import run_app  # the window; Qt is imported only now

        return run_app(open_files=open_files or [])
    # Ctrl+C stops every command, also one started as a background job (`linklab measure &`),
    # which the shell starts with SIGINT ignored and Python then leaves ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # Where the engines are: LINKLAB_<NAME> variables, read here once and handed on.
    args.engine_settings = EngineSettings.from_environment(os.environ, PROGRAM_NAMES)
    try:
        return int(args.handler(args))
    except BadOption as err:
        # A value the user gave: same exit status as an argparse error.
        print(f"linklab: {err.sentence}", file=sys.stderr)
        return EXIT_USAGE
    except LinkLabError as err:
        print(f"linklab: {err.sentence}", file=sys.stderr)
        return EXIT_STOPPED if isinstance(err, StoppedByUser) else EXIT_FAILED
    except KeyboardInterrupt:
        print("linklab: stopped.", file=sys.stderr)
        return EXIT_STOPPED
    except BrokenPipeError:
        # The reader went away (e.g. `linklab doctor | head`): nothing left to say.
        sys.stderr.close()
        return EXIT_OK
