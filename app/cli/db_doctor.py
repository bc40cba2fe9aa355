"""`linklab doctor --db [PATH] [--recover-to NEW]`: the database's integrity check in words,
and a copy of the sessions that can still be read into a new file."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.args import EXIT_FAILED, EXIT_OK
from app.cli.environment import Environment
from app.store.recover import check, recover


def add_arguments(doctor: argparse.ArgumentParser) -> None:
    doctor.add_argument(
        "--db",
        nargs="?",
        const="",
        metavar="PATH",
        help="check the database (default: the one in your data folder) instead of the engines",
    )
    doctor.add_argument(
        "--recover-to",
        metavar="NEW",
        help="with --db: copy every session that can still be read to this new database file",
    )


def cmd_db_doctor(args: argparse.Namespace, env: Environment) -> int:
    path = env.db(args.db)
    result = check(path)
    print(result.words(path), file=env.stdout)
    if args.recover_to is None:
        if result.problems:
            print(
                f"LinkLab only reads this file. To copy the sessions that can still be read to "
                f"a new file: linklab doctor --db {path} --recover-to NEW.sqlite3",
                file=env.stdout,
            )
        elif not result.ok:
            print(
                f"To copy every row to a new file, the columns that cannot be read left empty: "
                f"linklab doctor --db {path} --recover-to NEW.sqlite3",
                file=env.stdout,
            )
        return EXIT_OK if result.ok else EXIT_FAILED
    target = Path(args.recover_to)
    recovered = recover(path, target)
    print(recovered.words(target), file=env.stdout)
    print(
        f"To use it: linklab ... --db {target} (or choose it in the window's Settings).",
        file=env.stdout,
    )
    return EXIT_OK if recovered.complete else EXIT_FAILED
