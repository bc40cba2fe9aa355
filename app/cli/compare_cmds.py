"""`linklab compare`: sessions (or series inside them) side by side, differences tested."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from app.analysis.compare import (
    ALPHA,
    INTERVAL_METHOD,
    METRIC_INFO,
    METRIC_NAMES,
    Comparison,
    Mode,
    SeriesData,
    compare,
    format_value,
    interval_cell,
    means_text,
    metric_key,
    point_status,
    series_data,
)
from app.analysis.context_checks import ContextWarning, context_checks
from app.analysis.points import plain_number
from app.cli import responsiveness_sessions
from app.cli.args import EXIT_OK
from app.cli.environment import Environment
from app.cli.study_cmds import add_db_argument
from app.domain.errors import BadOption
from app.domain.units import format_p, relative_text, signed
from app.report.compare_export import comparison_csv
from app.report.report_data import collect
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmp = sub.add_parser(
        "compare",
        help="compare sessions point by point, with the differences tested",
        description="Each SESSION is an id, id prefix or name. Sessions are compared like with "
        "like: each series against the baseline session's series of the same protocol, IP "
        "version and direction (the baseline is the first session, or --baseline). --within "
        "compares the series of one session with each other (TCP vs UDP, IPv4 vs IPv6); "
        "SESSION@tcp4, @udp6 ... picks series by name, each compared with the first picked. "
        "Two responsiveness results are compared per direction: RPM and loaded latency, the "
        "difference and whether it is beyond the probes' noise (--csv, --json).",
    )
    cmp.add_argument("sessions", nargs="+", metavar="SESSION")
    cmp.add_argument(
        "--metric",
        type=_metric,
        default="throughput_bps",
        metavar="|".join(METRIC_NAMES),
        help="what to compare (default throughput); the names of `linklab run --metric`",
    )
    cmp.add_argument(
        "--baseline", metavar="SESSION", help="the reference session (default: the first)"
    )
    cmp.add_argument(
        "--within",
        action="store_true",
        help="compare the series of one session in pairs differing in one way only",
    )
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
            "session with two series and --within."
        )
    return items


def load_context(store: SessionStore, items: list[SeriesData]) -> list[ContextWarning]:
    """The context checks of every session the series come from."""
    sessions = {i.session.id: i.session for i in items}
    return [w for s in sessions.values() for w in context_checks(s, store.runs(s.id))]


def _series_json(item: SeriesData) -> dict[str, Any]:
    return {
        "session_id": item.session.id,
        "name": item.session.name,
        "protocol": item.series.protocol.value,
        "ip_version": int(item.series.ip_version),
        "direction": item.direction.value,
        "series": item.label,
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as the JSON keys the CSV columns share."""
    return {
        "metric": comparison.metric,
        "variable": comparison.variable_label,
        "mode": comparison.mode.value,
        "alpha": ALPHA,
        "correction": "holm",
        "interval": INTERVAL_METHOD,
        "baseline_session": (
            None
            if comparison.baseline_session is None
            else {
                "session_id": comparison.baseline_session.id,
                "name": comparison.baseline_session.name,
            }
        ),
        "warnings": comparison.warnings,
        "comparisons": [
            {
                **_series_json(pair.other),
                "baseline": _series_json(pair.baseline),
                "points": [
                    {
                        "value": plain_number(p.value),
                        "baseline_mean": p.baseline.mean,
                        "other_mean": p.other.mean,
                        "baseline_n": p.baseline.n,
                        "other_n": p.other.n,
                        "baseline_std": p.baseline.std,
                        "other_std": p.other.std,
                        "difference": p.difference,
                        "relative_pct": p.relative_pct,
                        "ci_low": p.ci_low,
                        "ci_high": p.ci_high,
                        "ci_level": p.ci_level,
                        "p_value": p.p_value,
                        "p_holm": p.p_holm,
                        "significant": p.significant,
                        "status": point_status(pair, p, comparison.metric),
                    }
                    for p in pair.points
                ],
            }
            for pair in comparison.pairs
        ],
        "unpaired": [_series_json(item) for item in comparison.unpaired],
        "findings": comparison.findings,
    }


def build_comparison(
    items: list[SeriesData],
    refs: list[str],
    metric: str,
    baseline: str | None,
    within: bool,
    context: list[ContextWarning] | None = None,
) -> Comparison:
    """The comparison the flags ask for: sessions like with like (the default), the series of
    one session with each other (--within), or the series named with @ each against the
    first; the sessions' context checks raised to its warnings."""
    checks = context or []
    sessions = list(dict.fromkeys(i.session.id for i in items))
    if within:
        if len(sessions) != 1:
            raise BadOption("--within compares the series of one session: give one session.")
        return compare(items, metric, mode=Mode.WITHIN, context=checks)
    if any("@" in ref for ref in refs):
        return compare(items, metric, mode=Mode.PICKED, context=checks)
    if len(sessions) < 2:
        raise BadOption(
            "Comparing sessions needs two of them: give another session, or add --within to "
            "compare this session's series with each other."
        )
    base = sessions[0]
    if baseline:
        chosen = [i.session.id for i in items if i.session.id.startswith(baseline.lower())]
        chosen += [i.session.id for i in items if i.session.name == baseline]
        if not chosen:
            raise BadOption("--baseline must be one of the compared sessions.")
        base = chosen[0]
    return compare(items, metric, mode=Mode.SESSIONS, baseline_session=base, context=checks)


def cmd_compare(args: argparse.Namespace, env: Environment) -> int:
    refs = list(args.sessions)
    door = FrontDoor(env.db(args.db))
    if responsiveness_sessions.all_results_named(door, refs):
        return responsiveness_sessions.compare(door, refs, args, env)
    with Database(door.db_path, readonly=True) as db:
        store = SessionStore(db)
        items = load_series(store, refs, args.metric)
        context = load_context(store, items)
    comparison = build_comparison(items, refs, args.metric, args.baseline, args.within, context)
    if args.csv:
        _write(args.csv, comparison_csv(comparison), env)
    if args.png or args.html or args.pdf:
        from app.ui.common.report_files import write_outputs  # Qt only when charts are asked

        data = collect(comparison, FrontDoor(env.db(args.db)))
        write_outputs(data, png=args.png, html=args.html, pdf=args.pdf, png_size=args.png_size)
    if args.json:
        print(json.dumps(comparison_json(comparison), indent=2), file=env.stdout)
    else:
        _print(comparison, env)
    return EXIT_OK


def _write(path: str, text: str, env: Environment) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8", newline="")
    except OSError as err:
        raise BadOption(f"Cannot write {path} ({err.strerror}): choose another place.") from None
    print(f"Wrote {path}.", file=env.stderr)


def _print(comparison: Comparison, env: Environment) -> None:
    metric = comparison.metric
    if comparison.baseline_session is not None and comparison.mode is Mode.SESSIONS:
        base = comparison.baseline_session
        print(
            f"Baseline session: {base.name or base.short_id}  ({METRIC_INFO[metric][0]})",
            file=env.stdout,
        )
    for warning in comparison.warnings:
        print(f"Warning: {warning}", file=env.stdout)
    for pair in comparison.pairs:
        print(f"\n{pair.other.label} vs {pair.baseline.label}", file=env.stdout)
        print(
            f"  {comparison.variable_label:>12} {'baseline':>12} {'other':>12} "
            f"{'difference':>12} {'%':>7} {'p':>8} {'p Holm':>8}  significant  "
            "interval of the difference (its level)",
            file=env.stdout,
        )
        for p in pair.points:

            def show(v: float | None) -> str:
                return "—" if v is None else format_value(metric, v)

            negative = p.difference is not None and p.difference < 0
            rel = relative_text(p.relative_pct)
            sig = point_status(pair, p, metric)
            baseline_mean, other_mean = means_text(metric, p.baseline.mean, p.other.mean)
            print(
                f"  {p.value:>12g} {baseline_mean:>12} {other_mean:>12} "
                f"{signed(show(p.difference), negative):>12} {rel:>7} {format_p(p.p_value):>8} "
                f"{format_p(p.p_holm):>8}  {sig:<11}  {interval_cell(metric, p)}",
                file=env.stdout,
            )
    for item in comparison.unpaired:
        print(
            f"\nUnpaired: {item.label} ({item.session.name or item.session.short_id})",
            file=env.stdout,
        )
    print("\nFindings:", file=env.stdout)
    for sentence in comparison.findings:
        print(f"- {sentence}", file=env.stdout)
