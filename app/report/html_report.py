"""The report as one self-contained HTML file: the confounds first, the overlay chart with
95 % confidence intervals, findings, each pair's differences and its mean ± SD tables as the
published studies print them, a typical run of each side over time, and what each session
measured and where. Every piece of user text is escaped; nothing is fetched."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence

from app import __version__
from app.analysis.compare import (
    ALPHA,
    INTERVAL_METHOD,
    METRIC_INFO,
    PERCENT_METRICS,
    ComparedPoint,
    Mode,
    PairComparison,
    SeriesData,
    level_text,
    mean_numbers,
    point_status,
)
from app.analysis.expectation import on_loopback, rate_words
from app.analysis.latency_findings import session_findings
from app.analysis.points import PointSummary
from app.analysis.stats import Summary
from app.domain.metrics import POINT_METRICS, SHOWN_LINK_FIGURES, ranked
from app.domain.net import Protocol
from app.domain.plan_fields import label_words
from app.domain.precision import SPREAD_DIGITS, fixed, mean_and_spread, places, precision
from app.domain.records import utc_now
from app.domain.units import DASH, percent_text, relative_text
from app.engine.drivers.registry import phrase
from app.report.compare_export import std_table
from app.report.html_parts import (
    CSP,
    STYLE,
    cells,
    e,
    number,
    p_value,
    png_size,
    scale,
    session_section,
    table,
    when,
    with_unit,
    x,
)
from app.report.report_data import ReportData, Timeline

#: The tables of a pair, as the studies print them: (metric, title, for which protocol).
SD_TABLES: tuple[tuple[str, str, Protocol | None], ...] = tuple(
    (m.name, m.shown.report[1], m.protocol) for m in ranked("report") if m.shown.report
)
_UNITS = {m.name: m.unit for m in POINT_METRICS}

#: Of one session's findings, where its series against each other begin (its own results'
#: sentences come first, as in its view's Findings tab).
COMPARED_HEADING = "Its series against each other"


def _difference_row(p: ComparedPoint, factor: float, status: str) -> str:
    relative = relative_text(p.relative_pct)
    if relative != DASH:
        relative += "&nbsp;%"
    difference = number(p.difference, factor, signed=True)
    interval = DASH
    if p.ci_low is not None and p.ci_high is not None and p.ci_level is not None:
        # The difference and its interval to one precision: the half-width's.
        shown = precision(p.difference, (p.ci_high - p.ci_low) / 2, scale=factor)
        if p.difference is not None:
            difference = shown.number(p.difference, plus=True)
        interval = (
            f"{shown.number(p.ci_low, plus=True)} to {shown.number(p.ci_high, plus=True)}"
            f" ({level_text(p.ci_level).replace(' ', '&nbsp;')})"
        )
    # Both means to the digits their difference needs, as the window's table shows them.
    baseline, other = mean_numbers(p.baseline.mean, p.other.mean, factor)
    return cells(
        [
            ("num", e(x(p.value))),
            ("num", f"{p.baseline.n}&nbsp;/&nbsp;{p.other.n}"),
            ("num", baseline),
            ("num", other),
            ("num", difference),
            ("num", relative),
            ("num", interval),
            ("num", p_value(p.p_value).replace(" ", "&nbsp;")),
            ("num", p_value(p.p_holm).replace(" ", "&nbsp;")),
            ("yes" if p.significant else "", e(status)),
        ]
    )


def _differences(data: ReportData, pair: PairComparison) -> str:
    comparison = data.comparison
    points = pair.points
    means = [abs(m) for p in points for m in (p.baseline.mean, p.other.mean) if m is not None]
    unit, factor = scale(comparison.metric, max(means, default=0.0))
    # A difference of percentages is in percentage points, as the findings say it.
    apart = "pp" if comparison.metric in PERCENT_METRICS else unit
    header = [
        with_unit(comparison.variable_label, comparison.variable_unit),
        "n",
        with_unit("Baseline mean", unit),
        with_unit("Mean", unit),
        with_unit("Difference", apart),
        "Relative",
        with_unit("CI of the difference at its Holm step's level", apart),
        "p (Welch)",
        "p (Holm)",
        "Significant",
    ]
    rows = (_difference_row(p, factor, point_status(pair, p, comparison.metric)) for p in points)
    return table(header, rows, wide=True)


def _summaries(data: ReportData, curve: SeriesData) -> dict[float | str, PointSummary]:
    return {p.value: p for p in data.points.get(curve.session.id, []) if p.series == curve.series}


def _mean_sd(summary: Summary | None, factor: float) -> str:
    if summary is None or summary.mean is None:
        return DASH
    return mean_and_spread(summary.mean, summary.std, scale=factor).replace(" ", "&nbsp;")


def _sd_tables(data: ReportData, curves: Sequence[SeriesData]) -> str:
    """Mean ± SD per value for each side, one table per metric that was measured."""
    summaries = [_summaries(data, c) for c in curves]
    values = sorted({v for s in summaries for v in s})
    parts = []
    for metric, title, protocol in SD_TABLES:
        if protocol is not None and all(c.series.protocol is not protocol for c in curves):
            continue
        found = [[s[v].metrics[metric] if v in s else None for v in values] for s in summaries]
        if not any(summary is not None and summary.n for row in found for summary in row):
            continue  # not measured: no table of dashes
        if metric == "throughput_bps":
            peak = max(
                (abs(s.mean) for row in found for s in row if s is not None and s.mean),
                default=0.0,
            )
            unit, factor = scale(metric, peak)
        else:
            unit, factor = _UNITS[metric], 1.0
        header = [
            with_unit(data.comparison.variable_label, data.comparison.variable_unit),
            *(with_unit(f"{c.label}: mean ± SD", unit) for c in curves),
        ]
        body = [
            [("num", e(x(value)))] + [("num", _mean_sd(row[i], factor)) for row in found]
            for i, value in enumerate(values)
        ]
        note = ""
        if metric == "throughput_bps":
            note = _link_columns(curves, summaries, values, header, body, unit, factor)
        rows = (cells(row) for row in body)
        parts.append(f"<h4>{e(title)}</h4>" + table(header, rows) + note)
    return "".join(parts)


def _link_columns(
    curves: Sequence[SeriesData],
    summaries: Sequence[dict[float | str, PointSummary]],
    values: Sequence[float | str],
    header: list[str],
    body: list[list[tuple[str, str]]],
    unit: str,
    factor: float,
) -> str:
    """The throughput table's link figures (the results table's Expected and Of expected %)
    for each side whose session has an expected goodput, added to its header and rows; returns
    the note saying which link rate they are built on ("" when no side has one)."""
    said, unshared = [], []
    for curve, summary in zip(curves, summaries, strict=True):
        if not any(p.expected_bps for p in summary.values()):
            continue
        plan = curve.session.plan
        links = [
            point.link_figures(plan) if (point := summary.get(value)) is not None else {}
            for value in values
        ]
        # A figure no point has is no column of dashes: the share, where the traffic never
        # crossed the link (the loopback), as the results table leaves it out.
        figures = [
            figure
            for figure in SHOWN_LINK_FIGURES
            if any(isinstance(link.get(figure.name), int | float) for link in links)
        ]
        for figure in figures:
            shown = figure.shown[0] if figure.shown else figure.label
            header.append(
                f"{curve.label}: {with_unit(shown, unit if figure.unit == 'bit/s' else '')}"
            )
        for row, link in zip(body, links, strict=True):
            for figure in figures:
                found = link.get(figure.name)
                figure_value = float(found) if isinstance(found, int | float) else None
                if figure_value is None:
                    row.append(("num", DASH))
                elif figure.unit == "bit/s":
                    row.append(("num", number(figure_value, factor)))
                else:
                    row.append(("num", percent_text(figure_value, 1)))
        said.append(f"{curve.label}: at {rate_words(plan.conditions)}")
        if on_loopback(plan):
            unshared.append(curve.label)
    if not said:
        return ""
    whose = "its" if len(unshared) == 1 else "their"
    loopback = (
        f" No share is given of {e(' and '.join(unshared))}: {whose} traffic stayed on this "
        "computer (the loopback) and never crossed that link."
        if unshared
        else ""
    )
    return (
        '<p class="note">Expected: the goodput the overhead model gives the link (what the '
        "headers, and on Wi-Fi the air time, leave of its rate); of expected: the mean "
        f"throughput as a share of it ({e('; '.join(said))}).{loopback}</p>"
    )


def _image(png: bytes, alt: str, css: str = "chart") -> str:
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<p><img class="{css}" src="data:image/png;base64,{data}"{png_size(png)} '
        f'alt="{e(alt)}"></p>'
    )


def _timeline(data: ReportData, title: str, pngs: dict[str, bytes]) -> str:
    if title in data.one_interval:
        return (
            '<p class="note">Throughput over time: not drawn, as each run gave a single '
            "interval (it lasted no longer than its report interval); the tables give each "
            "run's figures. Longer runs show how the throughput moved within a run.</p>"
        )
    png = pngs.get(title)
    if png is None:
        return ""
    lines = next(t for name, t in data.timelines if name == title)
    said = "; ".join(f"{t.label}, run {t.repetition} at {x(t.value)}" for t in lines)
    return (
        f'<p class="note">Throughput over time (what the receiver got in each interval, as '
        f"in the tables) of a typical run of each side (the one closest to its point's "
        f"median): {e(said)}.{e(without_line(lines))}</p>"
        + _image(png, f"Throughput over time: {title}", "timeline")
    )


def without_line(lines: Sequence[Timeline]) -> str:
    """A sentence naming the sides whose run has no receiver's figure interval by interval
    (so no line on the chart), or nothing when every side has one."""
    missing = [t.label for t in lines if not t.points()]
    if not missing:
        return ""
    names = " and ".join(missing)
    return (
        f" {names} {'has' if len(missing) == 1 else 'have'} no line: only the sender's rate is "
        f"known interval by interval for that run ({phrase('sender_only')}, or a UDP upload "
        f"stored before LinkLab read the receiver's reports); the tables give what was received."
    )


def _spread(value: object, factor: float) -> str:
    if not isinstance(value, int | float):
        return DASH
    return fixed(value / factor, places(value / factor, SPREAD_DIGITS))


def _std_section(data: ReportData) -> str:
    comparison = data.comparison
    header, rows = std_table(comparison)
    header = [with_unit(comparison.variable_label, comparison.variable_unit), *header[1:]]
    stds = [v for row in rows for v in row[1:] if isinstance(v, int | float)]
    unit, factor = scale(comparison.metric, max(stds, default=0.0))
    body = []
    for value, *row in rows:
        shown = [("num", e(x(value) if isinstance(value, int | float) else value))]
        # Each a spread, to two significant digits as beside its mean in the tables above.
        shown += [("num", _spread(v, factor)) for v in row]
        body.append(cells(shown))
    name = METRIC_INFO[comparison.metric][0]
    in_unit = f" ({e(unit)})" if unit else ""
    return (
        f'<p class="note">Sample standard deviation (n − 1) of {e(name)}{in_unit} over the '
        f"runs at each point, one column per series, as in the published studies' Table 1.</p>"
        + table(header, body)
    )


def _warnings(said: Iterable[str], sessions: int, paired: bool) -> str:
    items = "".join(f"<li>{e(s)}</li>" for s in said)
    if not items:
        return ""
    if sessions > 1:
        lead = (
            "Where the sessions differ in more than the condition compared, and where the "
            "numbers cannot mean what the labels say:"
        )
    elif paired:
        lead = (
            "Where the series compared differ in more than the condition compared, and where "
            "the numbers cannot mean what the labels say:"
        )
    else:
        lead = "Where the numbers cannot mean what the labels say:"
    return (
        '<div class="warnings" id="warnings"><h2>Before reading the numbers</h2>'
        f"<p>{lead}</p><ul>{items}</ul></div>"
    )


def report_html(data: ReportData, chart_png: bytes, timeline_pngs: dict[str, bytes]) -> str:
    """One self-contained HTML page: no script, no remote anything, user text escaped."""
    comparison = data.comparison
    name = METRIC_INFO[comparison.metric][0]
    single = not comparison.pairs
    sessions = comparison.sessions
    if single:
        title = f"LinkLab report: {sessions[0].name or sessions[0].short_id}"
        what = f"{e(name)} by {e(label_words(comparison.variable_label))}"
    elif len(sessions) == 1:  # one session's series against each other: named by it
        title = f"LinkLab report: {sessions[0].name or sessions[0].short_id}"
        what = f"{e(name)} by {e(label_words(comparison.variable_label))}. " + _compared_text(data)
    else:
        title = f"LinkLab comparison: {name} by {label_words(comparison.variable_label)}"
        what = _compared_text(data)
    findings = _findings(data)
    sections = []
    for pair in comparison.pairs:
        heading = f"{pair.other.label} against {pair.baseline.label}"
        sections.append(
            f"<h3>{e(heading)}</h3>"
            + _differences(data, pair)
            + _sd_tables(data, [pair.baseline, pair.other])
            + _timeline(data, heading, timeline_pngs)
        )
    for curve in comparison.unpaired:
        note = (
            ""
            if single
            else '<p class="note">No partner of the same protocol, IP version and direction '
            "in the baseline session: shown, not compared.</p>"
        )
        sections.append(
            f"<h3>{e(curve.label)}</h3>"
            + note
            + _sd_tables(data, [curve])
            + _timeline(data, curve.label, timeline_pngs)
        )
    body = [
        f"<h1>{e(title)}</h1>",
        f'<p class="meta">{what} Made by LinkLab {e(__version__)} on {when(utc_now())}.</p>',
        _warnings(comparison.warnings, len(sessions), bool(comparison.pairs)),
        _image(chart_png, f"{title}: mean of each series at each point, 95 % CI bars"),
    ]
    if findings:
        body += ["<h2>Findings</h2>", findings]
    if not single:
        body += [
            "<h2>Pairs</h2>",
            f'<p class="note">Difference = other − baseline; n = runs (baseline / other). '
            f"Welch's two-sided t-test per point (unequal variances); significance at α = "
            f"{ALPHA} after Holm's correction over the points of a pair; “untested” where a "
            f"side has a single run, and why where a side has no figure. {e(INTERVAL_METHOD)}</p>",
        ]
    else:
        body.append("<h2>Series</h2>")
    body += sections
    body += ["<h2>Standard deviation</h2>", _std_section(data)]
    body += ["<h2>Sessions</h2>", "".join(session_section(s) for s in sessions)]
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="LinkLab {e(__version__)}">
<title>{e(title)}</title>
<style>{STYLE}</style>
</head>
<body>
{"".join(body)}
</body>
</html>
"""


def _items(sentences: Sequence[str]) -> str:
    return "<ul>" + "".join(f"<li>{e(sentence)}</li>" for sentence in sentences) + "</ul>"


def _findings(data: ReportData) -> str:
    """The findings as the window gives them: of one session, its own results' sentences
    (the expected goodput, working latency) and then its series against each other, as its
    view's Findings tab; of several, the comparison's, then each session's own under its
    name. Empty when there is nothing to say."""
    comparison = data.comparison
    sessions = comparison.sessions
    own = {s.id: session_findings(s.plan, data.points.get(s.id, [])) for s in sessions}
    compared = list(comparison.findings)
    if comparison.pairs and not compared:
        compared = ["No findings: nothing was measured on both sides."]
    if len(sessions) == 1:
        mine = own[sessions[0].id]
        if mine and compared:
            return _items(mine) + f"<h3>{e(COMPARED_HEADING)}</h3>" + _items(compared)
        return _items(mine or compared) if mine or compared else ""
    parts = [_items(compared)] if compared else []
    for session in sessions:
        if own[session.id]:
            name = session.name or session.short_id
            parts.append(f"<h3>Within {e(name)}</h3>" + _items(own[session.id]))
    return "".join(parts)


def _compared_text(data: ReportData) -> str:
    comparison = data.comparison
    if comparison.mode is Mode.SESSIONS and comparison.baseline_session is not None:
        base = comparison.baseline_session
        others = [s for s in comparison.sessions if s.id != base.id]
        return (
            f"Baseline session: <b>{e(base.name or base.short_id)}</b>; compared: "
            f"{', '.join(e(s.name or s.short_id) for s in others)}; each series against the "
            f"baseline's series of the same protocol, IP version and direction."
        )
    return (
        "Series of one session in pairs that differ in one way only "
        "(protocol, IP version or direction)."
    )
