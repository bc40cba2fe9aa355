"""`make bench`: the benchmarks in turn, each printing its own figures and ratios.

`run_all.py NAME...` runs the ones named (in the order given; no name runs them all, in the
order below), `run_all.py --quick ...` a short look of each (smaller sizes, fewer rounds: to see
that it runs, not figures to keep), `run_all.py --list` names them all."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Every benchmark, in the order `make bench` runs them (docs/PERFORMANCE.md has a section each).
NAMES = (
    "engine_overhead",
    "sweep_overhead",
    "study_overhead",
    "time_to_answer",
    "store_scale",
    "long_study",
    "ui_responsiveness",
    "latency_probe",
    "frozen_bundle",
    "class_live",
    "monitor_memory",
    "fine_interval_memory",
    "exchange_scale",
    "hour_at_fine_interval",
)


class UnknownBenchmark(ValueError):
    """A name that is no benchmark's: the sentence names them all."""


def chosen(names: Sequence[str]) -> list[str]:
    """The benchmarks named (a name may end in .py), every one when none is."""
    if not names:
        return list(NAMES)
    picked = [name.removesuffix(".py") for name in names]
    unknown = [name for name in picked if name not in NAMES]
    if unknown:
        raise UnknownBenchmark(
            f"No benchmark is called {', '.join(unknown)}. The benchmarks are: {', '.join(NAMES)}."
        )
    return picked


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (all)")
    parser.add_argument("--quick", action="store_true", help="a short look at each")
    parser.add_argument("--list", action="store_true", help="name every benchmark")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(NAMES))
        return 0
    try:
        names = chosen(args.names)
    except UnknownBenchmark as err:
        print(err, file=sys.stderr)
        return 2
    status = 0
    for name in names:
        print(f"== {name}", flush=True)
        command = [sys.executable, str(HERE / f"{name}.py"), *(["--quick"] if args.quick else [])]
        status |= subprocess.run(command, check=False).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
