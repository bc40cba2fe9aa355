"""Headless commands: the same runner as the window, for scripting, peers and tests."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app import __version__
from app.cli import compare_cmds, engine_cmds, session_cmds, study_cmds
from app.cli.args import EXIT_FAILED, EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from app.engine.errors import BadOption, EngineError, StoppedByUser
from app.engine.process import install_exit_handlers
from app.store.db import StoreError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="linklab",
        description="Measure what a network link really delivers, and what a setting costs.",
    )
    parser.add_argument("--version", action="version", version=f"LinkLab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    study_cmds.register(sub)
    session_cmds.register(sub)
    compare_cmds.register(sub)
    engine_cmds.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    install_exit_handlers()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from app.ui.app import run_app  # the window; Qt is imported only now

        return run_app()
    try:
        return int(args.handler(args))
    except BadOption as err:
        # A value the user gave: same exit status as an argparse error.
        print(f"linklab: {err.sentence}", file=sys.stderr)
        return EXIT_USAGE
    except (EngineError, StoreError) as err:
        print(f"linklab: {err.sentence}", file=sys.stderr)
        return EXIT_STOPPED if isinstance(err, StoppedByUser) else EXIT_FAILED
    except KeyboardInterrupt:
        print("linklab: stopped.", file=sys.stderr)
        return EXIT_STOPPED
    except BrokenPipeError:
        # The reader went away (e.g. `linklab doctor | head`): nothing left to say.
        sys.stderr.close()
        return EXIT_OK
