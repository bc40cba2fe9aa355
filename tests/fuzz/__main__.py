"""`python -m tests.fuzz`: every reader (or those named) through COUNT generated inputs each,
each within a time limit; exit status 1 when any raised an error that is not LinkLab's own or
was slow. The count comes from --count, else LINKLAB_FUZZ_COUNT, else 100000."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.fuzz.harness import Report, Target, fuzz
from tests.fuzz.seeds import engine_outputs

DEFAULT_COUNT = 100_000


def main(argv: Sequence[str] | None = None, targets: dict[str, Target] | None = None) -> int:
    if targets is None:
        from tests.fuzz.targets import TARGETS

        targets = TARGETS
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument(
        "--count",
        type=int,
        default=int(os.environ.get("LINKLAB_FUZZ_COUNT") or DEFAULT_COUNT),
        help="inputs per target (default: LINKLAB_FUZZ_COUNT, else 100000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the mutator's seed (default 0)")
    parser.add_argument("--limit-s", type=float, default=2.0, help="time limit per input")
    parser.add_argument("--target", action="append", choices=sorted(targets), default=None)
    parser.add_argument(
        "--findings", type=Path, default=None, help="write each finding's input into this folder"
    )
    args = parser.parse_args(argv)
    outputs = engine_outputs()
    if not outputs.is_dir():
        print(
            f"fuzz: no captured engine outputs at {outputs} (LINKLAB_ENGINE_OUTPUTS names "
            f"them): seeded from tests/data only.",
            flush=True,
        )
    reports: list[Report] = []
    for name in args.target or list(targets):
        report = fuzz(
            targets[name],
            args.count,
            seed=args.seed,
            limit_s=args.limit_s,
            findings_dir=args.findings,
        )
        reports.append(report)
        print(report.line(), flush=True)
        for finding in report.findings:
            print(f"  {finding.words()}\n    input: {finding.example[:300]!r}", flush=True)
    bad = [r.target for r in reports if not r.ok]
    if bad:
        print(f"fuzz: findings in {', '.join(bad)}", flush=True)
        return 1
    total = sum(r.count for r in reports)
    print(f"fuzz: {total} inputs, only LinkLab's own errors, none slow", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
