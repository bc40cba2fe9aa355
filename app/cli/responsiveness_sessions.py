"""Kept responsiveness results on the command line, beside the sessions: listed by `linklab
sessions`, shown, renamed and deleted by reference, exported and compared."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from app.cli.args import EXIT_FAILED, EXIT_OK
from app.cli.environment import Environment
from app.domain.errors import BadOption
from app.domain.units import DASH
from app.report.responsiveness_export import (
    STEP_HEADERS,
    comparison_csv,
    headline,
    step_rows,
)
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.comparison import compare_results
from app.study.responsiveness.kept import KeptResult, lookup
from app.study.responsiveness.results import Phase, latency_number, rpm_number
from app.study.sweep.describe import local_time

#: The comparison's columns a terminal has room for, with short headers (--csv has them all).
TERMINAL_COLUMNS = (
    ("Direction", 0),
    ("Baseline RPM", 1),
    ("RPM", 2),
    ("RPM diff.", 3),
    ("Baseline ms", 5),
    ("Loaded ms", 6),
    ("Diff. ms", 7),
    ("p (Holm)", 10),
    ("Beyond noise", 11),
)


def _print_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], env: Environment, *, left: int
) -> None:
    """Columns as wide as their widest cell; the first `left` of them left-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    print(line(headers), file=env.stdout)
    for row in rows:
        print(line(row), file=env.stdout)


def find(door: FrontDoor, ref: str) -> KeptResult | None:
    """The result ref names, or None when it names a session (a sentence when neither)."""
    found = lookup(ref, door.sessions().get, door.results())
    return found if isinstance(found, KeptResult) else None


def print_listing(results: list[KeptResult], env: Environment) -> None:
    print(
        f"{'id':<8}  {'measured':<16}  {'name':<28}  {'peer':<16}  "
        f"{'download':>14}  {'upload':>14}  {'idle':>9}",
        file=env.stdout,
    )
    for kept in results:

        def way(phase: Phase, kept: KeptResult = kept) -> str:
            load = kept.result.load(phase)
            return DASH if load is None else f"{rpm_number(load.rpm)} RPM"

        idle = f"{latency_number(kept.result.idle_latency_ms)} ms"
        print(
            f"{kept.short_id:<8}  {local_time(kept.created_at):<16}  {kept.name[:28]:<28}  "
            f"{kept.peer_name[:16]:<16}  {way(Phase.DOWNLOAD):>14}  {way(Phase.UPLOAD):>14}  "
            f"{idle:>9}",
            file=env.stdout,
        )


def show(kept: KeptResult, as_json: bool, env: Environment) -> None:
    if as_json:
        print(json.dumps(kept.to_dict(), indent=2), file=env.stdout)
        return
    from app.cli.responsiveness_cmd import print_result

    print(f"Responsiveness result {kept.id}", file=env.stdout)
    print(f"  name        {kept.name}", file=env.stdout)
    print(f"  peer        {kept.peer_name}", file=env.stdout)
    print(f"  measured    {local_time(kept.created_at)}", file=env.stdout)
    print(file=env.stdout)
    print_result(kept.result, env.stdout)
    print(file=env.stdout)
    rows = step_rows(kept)
    _print_table(STEP_HEADERS, rows, env, left=1)


def rename(door: FrontDoor, kept: KeptResult, name: str, as_json: bool, env: Environment) -> int:
    updated = door.results().rename(kept.id, name)
    if as_json:
        print(json.dumps(updated.summary(), indent=2), file=env.stdout)
    else:
        print(f"Responsiveness result {updated.short_id}: name {updated.name!r}.", file=env.stdout)
    return EXIT_OK


def delete(door: FrontDoor, kept: KeptResult, confirmed: bool, env: Environment) -> int:
    if not confirmed:
        answer = env.ask(f"Delete responsiveness result {kept.short_id} ({kept.name})? [y/N] ")
        if answer is None:
            raise BadOption("Deleting needs confirmation: add --yes.")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing deleted.", file=env.stderr)
            return EXIT_FAILED
    door.results().delete([kept.id])
    print(f"Deleted responsiveness result {kept.short_id}.", file=env.stderr)
    return EXIT_OK


def export(kept: KeptResult, kind: str, out: str, env: Environment) -> int:
    """`linklab export RESULT --format csv|json|png|html --out FILE`."""
    if kind not in ("csv", "json", "png", "html"):
        raise BadOption(
            f"A responsiveness result exports as csv, json, png (its card) or html, not {kind}."
        )
    if out == "-" and kind in ("csv", "json"):
        from app.report.responsiveness_export import result_csv, result_json

        env.stdout.write(result_csv(kept) if kind == "csv" else result_json(kept))
        return EXIT_OK
    if out == "-":
        raise BadOption(f"A {kind} file needs a name: give it with --out.")
    from app.ui.responsiveness.result_files import write_result  # Qt only for the card, chart

    write_result(kept, kind, out)
    print(f"Wrote {out}.", file=env.stderr)
    return EXIT_OK


def compare(door: FrontDoor, refs: list[str], args: argparse.Namespace, env: Environment) -> int:
    """`linklab compare A B` where both name responsiveness results (A the baseline)."""
    if len(refs) != 2:
        raise BadOption("Responsiveness results are compared two at a time: name two.")
    baseline, other = (door.results().get(ref) for ref in refs)
    comparison = compare_results(baseline, other)
    if args.csv:
        try:
            Path(args.csv).write_text(comparison_csv(comparison), encoding="utf-8", newline="")
        except OSError as err:
            raise BadOption(
                f"Cannot write {args.csv} ({err.strerror}): choose another place."
            ) from None
        print(f"Wrote {args.csv}.", file=env.stderr)
    if args.json:
        print(json.dumps(comparison.to_dict(), indent=2), file=env.stdout)
        return EXIT_OK
    print(f"Baseline: {baseline.name} ({headline(baseline)})", file=env.stdout)
    print(f"Other:    {other.name} ({headline(other)})", file=env.stdout)
    table = comparison.table()
    print(file=env.stdout)
    _print_table(
        [header for header, _ in TERMINAL_COLUMNS],
        [[row[i] for _, i in TERMINAL_COLUMNS] for row in table],
        env,
        left=1,
    )
    print(file=env.stdout)
    for sentence in comparison.findings:
        print(sentence, file=env.stdout)
    return EXIT_OK


def all_results_named(door: FrontDoor, refs: list[str]) -> bool:
    """Whether every reference names a responsiveness result (then they are compared as such)."""
    return bool(refs) and all(door.results().find(ref) is not None for ref in refs)


__all__ = [
    "all_results_named",
    "compare",
    "delete",
    "export",
    "find",
    "print_listing",
    "rename",
    "show",
]
