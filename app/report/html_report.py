"""The comparison report as one self-contained HTML file: chart, findings, tables, and what
each session measured and where. Every piece of user text is escaped; nothing is fetched."""

from __future__ import annotations

import base64
import datetime as dt
import html
import math
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from app import __version__
from app.analysis.compare import ALPHA, METRIC_INFO, ComparedPoint, Comparison
from app.domain.plan import VARIABLE_LABELS, Security
from app.domain.records import SessionRecord, utc_now
from app.domain.units import DASH, MINUS, format_p, rate_unit
from app.report.compare_export import std_table

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

# Kept to what both browsers and Qt's QTextDocument (the PDF path) understand.
_STYLE = """
body { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; font-size: 10pt;
       color: #000; background: #fff; margin: 1.5em; max-width: 1200px; }
h1 { font-size: 17pt; margin: 0 0 0.2em 0; }
h2 { font-size: 13pt; margin: 1.4em 0 0.4em 0; border-bottom: 1px solid #888; }
h3 { font-size: 11pt; margin: 1.1em 0 0.3em 0; }
p.meta { color: #333; margin: 0 0 1em 0; }
img.chart { max-width: 100%; height: auto; border: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.3em 0 0.6em 0; font-size: 9pt; }
th, td { border: 1px solid #999; padding: 3px 7px; vertical-align: top; }
th { background-color: #eee; text-align: left; }
td.num { text-align: right; }
td.yes { font-weight: bold; }
table.facts th { font-weight: normal; background-color: #f4f4f4; }
div.session { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
div.session h4 { margin: 0.8em 0 0.2em 0; }
.note { color: #333; font-size: 9pt; }
"""


def e(value: object) -> str:
    """User text as HTML text (quotes too, so it is safe inside attributes)."""
    return escape(str(value), quote=True)


def _scale(metric: str, largest: float) -> tuple[str, float]:
    """One unit for a table's numbers, as in the papers: a rate unit that suits the largest
    (Mbit/s for Wi-Fi, Gbit/s for 10 GbE), else the metric's own unit."""
    if metric == "throughput_bps":
        return rate_unit(largest)
    return METRIC_INFO[metric][1], 1.0


def _number(value: float | None, scale: float, *, signed: bool = False) -> str:
    """Three significant digits in the table's unit: 34.2, 1.28, 0.790; "−" for less."""
    if value is None or not math.isfinite(value):
        return DASH
    shown = value / scale
    if shown == 0:
        return "0"
    places = max(0, 2 - math.floor(math.log10(abs(shown))))
    sign = MINUS if shown < 0 else ("+" if signed else "")
    return f"{sign}{abs(shown):.{places}f}"


def _with_unit(title: str, unit: str) -> str:
    return f"{title} ({unit})" if unit else title


def _p_value(p: float | None) -> str:
    return html.escape(format_p(p))


def _when(text: str | None) -> str:
    if not text:
        return DASH
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return e(text)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _x(value: float) -> str:
    return f"{value:g}"


def _cells(cells: Iterable[tuple[str, str]]) -> str:
    """Cells as (css class, already-escaped html)."""
    return "".join(
        f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>" for cls, text in cells
    )


def _table(header: Sequence[str], rows: Iterable[str], *, wide: bool = False) -> str:
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    # Full width, or Qt's PDF layout squeezes the columns and breaks words.
    attr = ' width="100%"' if wide else ""
    return (
        f'<table{attr} border="1" cellspacing="0" cellpadding="4">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _facts(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of label and already-escaped value."""
    body = "".join(f"<tr><th>{e(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="facts" border="1" cellspacing="0" cellpadding="4">{body}</table>'


# -- sections ------------------------------------------------------------------------------------
def _difference_row(p: ComparedPoint, scale: float) -> str:
    relative = DASH
    if p.relative_pct is not None:
        relative = f"{MINUS if p.relative_pct < 0 else '+'}{abs(p.relative_pct):.1f}&nbsp;%"
    interval = (
        DASH
        if p.ci_low is None or p.ci_high is None
        else f"{_number(p.ci_low, scale, signed=True)} to {_number(p.ci_high, scale, signed=True)}"
    )
    significant = {True: "yes", False: "no", None: "untested"}[p.significant]
    return _cells(
        [
            ("num", e(_x(p.value))),
            ("num", f"{p.baseline.n}&nbsp;/&nbsp;{p.other.n}"),
            ("num", _number(p.baseline.mean, scale)),
            ("num", _number(p.other.mean, scale)),
            ("num", _number(p.difference, scale, signed=True)),
            ("num", relative),
            ("num", interval),
            ("num", _p_value(p.p_value).replace(" ", "&nbsp;")),
            ("yes" if p.significant else "", significant),
        ]
    )


def _differences(comparison: Comparison) -> str:
    means = [
        abs(m)
        for r in comparison.results
        for p in r.points
        for m in (p.baseline.mean, p.other.mean)
        if m is not None
    ]
    unit, scale = _scale(comparison.metric, max(means, default=0.0))
    header = [
        _with_unit(comparison.variable_label, comparison.variable_unit),
        "n",
        _with_unit("Baseline mean", unit),
        _with_unit("Other mean", unit),
        _with_unit("Difference", unit),
        "Relative",
        _with_unit("95 % CI of the difference", unit),
        "p (Welch)",
        "Significant",
    ]
    parts = [
        f'<p class="note">Difference = other − baseline; n = runs (baseline / other). '
        f"Significance: Welch's two-sided t-test at α = {ALPHA} (unequal variances); "
        f"“untested” where a side has fewer than two runs.</p>"
    ]
    for result in comparison.results:
        parts.append(f"<h3>{e(result.other.label)} vs {e(comparison.baseline.label)}</h3>")
        rows = (_difference_row(p, scale) for p in result.points)
        parts.append(_table(header, rows, wide=True))
    return "".join(parts)


def _std_section(comparison: Comparison) -> str:
    header, rows = std_table(comparison)
    header = [_with_unit(comparison.variable_label, comparison.variable_unit), *header[1:]]
    metric = comparison.metric
    stds = [v for row in rows for v in row[1:] if isinstance(v, int | float)]
    unit, scale = _scale(metric, max(stds, default=0.0))
    body = []
    for value, *cells in rows:
        shown = [("num", e(_x(value) if isinstance(value, int | float) else value))]
        shown += [("num", _number(v, scale) if isinstance(v, int | float) else DASH) for v in cells]
        body.append(_cells(shown))
    name = METRIC_INFO[metric][0]
    in_unit = f" ({e(unit)})" if unit else ""
    return (
        f'<p class="note">Sample standard deviation (n − 1) of {e(name)}{in_unit} over the '
        f"runs at each point, one column per series, as in the published studies' Table 1.</p>"
        + _table(header, body)
    )


def _plan_facts(session: SessionRecord) -> list[tuple[str, str]]:
    plan = session.plan
    label, unit = VARIABLE_LABELS[plan.variable]
    values = ", ".join(_x(v) for v in plan.values)
    values_text = f"{values} {unit}".strip()
    runs = (
        f"{plan.repetitions} runs × {plan.duration_s} s per point"
        + (f", first {plan.omit_s} s omitted" if plan.omit_s else "")
        + f", {plan.order.value} order"
    )
    return [
        ("Peer", e(session.peer_host)),
        ("Engine", e(plan.engine.value)),
        ("Protocols", e(", ".join(p.value.upper() for p in plan.protocols))),
        ("IP versions", e(", ".join(f"IPv{int(v)}" for v in plan.ip_versions))),
        ("Direction", e(plan.direction.value)),
        ("Swept variable", e(f"{label}: {values_text}")),
        ("Runs", e(runs)),
        ("Metrics", e(", ".join(m.value for m in plan.metrics))),
    ]


def _condition_facts(session: SessionRecord) -> list[tuple[str, str]]:
    conditions = session.plan.conditions
    security = "Open" if conditions.security is Security.OPEN else conditions.security.value
    if conditions.security_detected:
        security += " (detected, not confirmed)"
    tags = ", ".join(f"{k}={v}" if v else k for k, v in conditions.tags)
    notes = e(conditions.notes).replace("\n", "<br>") if conditions.notes else DASH
    return [
        ("Security", e(security)),
        ("Medium", e(conditions.medium.value)),
        ("Tags", e(tags) if tags else DASH),
        ("Notes", notes),
    ]


_ENVIRONMENT = (
    ("os_name", "Operating system"),
    ("os_version", "OS version"),
    ("cpu_model", "CPU"),
    ("cpu_count", "Logical CPUs"),
    ("interface", "Interface"),
    ("interface_speed_mbps", "Interface speed (Mbit/s)"),
    ("interface_mtu", "MTU"),
    ("detected_security", "Detected security"),
)
_WIFI = (
    ("ssid", "Wi-Fi SSID"),
    ("security", "Wi-Fi security"),
    ("standard", "Wi-Fi standard"),
    ("phy_rate_mbps", "Wi-Fi PHY rate (Mbit/s)"),
    ("channel", "Wi-Fi channel"),
    ("frequency_mhz", "Wi-Fi frequency (MHz)"),
    ("signal_dbm", "Wi-Fi signal (dBm)"),
    ("signal_pct", "Wi-Fi signal (%)"),
)


def _present(value: Any) -> bool:
    return value is not None and value != "" and not isinstance(value, Mapping | list)


def _environment_facts(environment: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = [(label, e(environment[k])) for k, label in _ENVIRONMENT if _present(environment.get(k))]
    versions = environment.get("engine_versions")
    if isinstance(versions, Mapping) and versions:
        text = ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))
        rows.insert(3, ("Engine versions", e(text)))
    wifi = environment.get("wifi")
    if isinstance(wifi, Mapping):
        rows += [(label, e(wifi[k])) for k, label in _WIFI if _present(wifi.get(k))]
    return rows


def _session_section(session: SessionRecord) -> str:
    status = session.status.value
    if session.status_reason:
        status += f": {session.status_reason}"
    general = [
        ("Session id", e(session.id)),
        ("Status", e(status)),
        ("Created", _when(session.created_at)),
        ("Started", _when(session.started_at)),
        ("Ended", _when(session.ended_at)),
        (
            "Runs",
            e(f"{session.runs_done} of {session.total_runs} done, {session.runs_failed} failed"),
        ),
        ("LinkLab version", e(session.app_version or DASH)),
    ]
    environment = _environment_facts(session.environment)
    boxes = [
        ("Session", _facts(general)),
        ("Plan", _facts(_plan_facts(session))),
        ("Conditions", _facts(_condition_facts(session))),
        (
            "Environment",
            _facts(environment)
            if environment
            else '<p class="note">No environment snapshot was recorded.</p>',
        ),
    ]
    # Side by side in a browser (flex); one under the other in Qt's PDF, which ignores flex.
    inner = "".join(f"<div><h4>{title}</h4>{body}</div>" for title, body in boxes)
    return f'<h3>{e(session.name or session.short_id)}</h3><div class="session">{inner}</div>'


def _png_size(data: bytes) -> str:
    """width and height attributes from the PNG header, so the page does not jump."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return ""
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return f' width="{width}" height="{height}"'


def report_html(
    comparison: Comparison, chart_png_bytes: bytes, sessions: Sequence[SessionRecord]
) -> str:
    """One self-contained HTML page: no script, no remote anything, user text escaped."""
    name, _, _ = METRIC_INFO[comparison.metric]
    curves = [comparison.baseline, *(r.other for r in comparison.results)]
    title = f"LinkLab comparison: {name} by {comparison.variable_label.lower()}"
    chart = base64.b64encode(chart_png_bytes).decode("ascii")
    findings = "".join(f"<li>{e(sentence)}</li>" for sentence in comparison.findings)
    compared = ", ".join(e(c.label) for c in curves[1:])
    sections = "".join(_session_section(s) for s in sessions)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="LinkLab {e(__version__)}">
<title>{e(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<h1>{e(title)}</h1>
<p class="meta">Baseline: <b>{e(comparison.baseline.label)}</b>; compared: {compared}.
Made by LinkLab {e(__version__)} on {_when(utc_now())}.</p>
<p><img class="chart" src="data:image/png;base64,{chart}"{_png_size(chart_png_bytes)}
alt="{e(title)}: mean of each series at each point, with error bars"></p>
<h2>Findings</h2>
<ul>{findings or "<li>No findings: nothing was measured on both sides.</li>"}</ul>
<h2>Differences against the baseline</h2>
{_differences(comparison)}
<h2>Standard deviation</h2>
{_std_section(comparison)}
<h2>Sessions</h2>
{sections or '<p class="note">No session details were given.</p>'}
</body>
</html>
"""
