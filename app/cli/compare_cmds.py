"""`linklab compare`: sessions (or series inside them) side by side, differences tested."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.analysis.compare import (
    METRIC_INFO,
    METRIC_NAMES,
    Comparison,
    SeriesData,
    compare,
    metric_key,
    series_data,
)
from app.cli.args import EXIT_OK
from app.cli.study_cmds import add_db_argument
from app.domain.errors import BadOption
from app.domain.units import format_p, signed
from app.report.compare_export import comparison_csv
from app.store.db import Database
from app.store.sessions import SessionStore


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmp = sub.add_parser(
        "compare",
        help="compare sessions point by point, with the differences tested",
        description="Each SESSION is an id, id prefix or name; add @tcp4, @udp6 ... to pick "
        "one series of it (default: all its series).",
    )
    cmp.add_argument("sessions", nargs="+", metavar="SESSION")
    cmp.add_argument(
        "--metric",
        type=_metric,
        default="throughput_bps",
        metavar="|".join(METRIC_NAMES),
        help="what to compare (default throughput); the names of `linklab run --metric`",
    )
    cmp.add_argument("--baseline", metavar="SESSION", help="the reference (default: the first)")
    cmp.add_argument("--csv", metavar="FILE", help="write the difference table as CSV")
    cmp.add_argument("--png", metavar="FILE", help="write the overlay chart as PNG")
    cmp.add_argument(
        "--png-size",
        type=_size,
        default=(1200, 700),
        metavar="WxH",
        help="the PNG's size in pixels (default 1200x700)",
    )
    cmp.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    cmp.add_argument("--pdf", metavar="FILE", help="write the report as PDF")
    cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_db_argument(cmp)
    cmp.set_defaults(handler=cmd_compare)


def _metric(text: str) -> str:
    try:
        return metric_key(text)
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: choose from {', '.join(METRIC_NAMES)}"
        ) from None


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1600x900") from None
    if not all(200 <= v <= 8000 for v in size):
        raise argparse.ArgumentTypeError(f"{text} must be between 200 and 8000 pixels a side")
    return size


def _pick(ref: str) -> tuple[str, str]:
    session, _, series = ref.partition("@")
    return session, series.lower()


def load_series(store: SessionStore, refs: list[str], metric: str) -> list[SeriesData]:
    items: list[SeriesData] = []
    for ref in refs:
        session_ref, wanted = _pick(ref)
        session = store.get(session_ref)
        found = series_data(session, store.runs(session.id), metric)
        if wanted:
            found = [
                s for s in found if f"{s.series.protocol.value}{int(s.series.ip_version)}" == wanted
            ]
            if not found:
                raise BadOption(
                    f"Session {session.short_id} has no series {wanted!r}: use "
                    f"for example @tcp4 or @udp6."
                )
        items += [s for s in found if s.key not in {i.key for i in items}]
    if len(items) < 2:
        raise BadOption(
            "A comparison needs at least two series: give two sessions, or a "
            "session with two series."
        )
    return items


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    base = comparison.baseline
    return {
        "metric": comparison.metric,
        "variable": comparison.variable_label,
        "alpha": 0.05,
        "baseline": {
            "session_id": base.session.id,
            "name": base.session.name,
            "series": base.label,
        },
        "comparisons": [
            {
                "session_id": result.other.session.id,
                "name": result.other.session.name,
                "series": result.other.label,
                "points": [
                    {
                        "value": p.value,
                        "baseline_mean": p.baseline.mean,
                        "other_mean": p.other.mean,
                        "baseline_n": p.baseline.n,
                        "other_n": p.other.n,
                        "difference": p.difference,
                        "relative_pct": p.relative_pct,
                        "ci95_low": p.ci_low,
                        "ci95_high": p.ci_high,
                        "p_value": p.p_value,
                        "significant": p.significant,
                    }
                    for p in result.points
                ],
            }
            for result in comparison.results
        ],
        "findings": comparison.findings,
    }


def cmd_compare(args: argparse.Namespace) -> int:
    refs = list(args.sessions)
    with Database(args.db, readonly=True) as db:
        store = SessionStore(db)
        items = load_series(store, refs, args.metric)
        baseline = 0
        if args.baseline:
            base_session = store.get(_pick(args.baseline)[0]).id
            matches = [i for i, item in enumerate(items) if item.session.id == base_session]
            if not matches:
                raise BadOption("--baseline must be one of the compared sessions.")
            baseline = matches[0]
        comparison = compare(items, args.metric, baseline)
    if args.csv:
        _write(args.csv, comparison_csv(comparison))
    if args.png or args.html or args.pdf:
        from app.ui.common.report_files import (
            write_outputs,  # Qt is loaded only when charts are asked
        )

        write_outputs(
            comparison, png=args.png, html=args.html, pdf=args.pdf, png_size=args.png_size
        )
    if args.json:
        print(json.dumps(comparison_json(comparison), indent=2))
    else:
        _print(comparison)
    return EXIT_OK


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8", newline="")
    except OSError as err:
        raise BadOption(f"Cannot write {path} ({err.strerror}): choose another place.") from None
    print(f"Wrote {path}.", file=sys.stderr)


def _print(comparison: Comparison) -> None:
    from app.analysis.compare import format_value

    metric = comparison.metric
    print(f"Baseline: {comparison.baseline.label}  ({METRIC_INFO[metric][0]})")
    for result in comparison.results:
        print(f"\n{result.other.label} vs {comparison.baseline.label}")
        print(
            f"  {comparison.variable_label:>12} {'baseline':>12} {'other':>12} "
            f"{'difference':>12} {'%':>7} {'p':>8}  significant"
        )
        for p in result.points:

            def show(v: float | None) -> str:
                return "—" if v is None else format_value(metric, v)

            negative = p.difference is not None and p.difference < 0
            rel = "—" if p.relative_pct is None else f"{p.relative_pct:+.1f}"
            pv = format_p(p.p_value)
            sig = {True: "yes", False: "no", None: "untested"}[p.significant]
            print(
                f"  {p.value:>12g} {show(p.baseline.mean):>12} {show(p.other.mean):>12} "
                f"{signed(show(p.difference), negative):>12} {rel:>7} {pv:>8}  {sig}"
            )
    print("\nFindings:")
    for sentence in comparison.findings:
        print(f"- {sentence}")
