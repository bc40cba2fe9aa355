"""Pieces of the HTML reports: escaping, numbers in a table's unit, tables, and the facts of a
session (plan, conditions, environment). Every piece of user text is escaped."""

from __future__ import annotations

import datetime as dt
import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from app.analysis.compare import METRIC_INFO
from app.domain.clock import step_sentence
from app.domain.net import DIRECTION_WORDS
from app.domain.plan import Security
from app.domain.plan_fields import VARIABLE_LABELS, value_word
from app.domain.precision import ALONE_DIGITS, fixed, places
from app.domain.records import SessionRecord
from app.domain.units import DASH, counted, format_p, format_rate, plain_rate, rate_unit
from app.study.sweep.describe import describe_security

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

# Kept to what both browsers and Qt's QTextDocument (the PDF path) understand.
STYLE = """
body { font-family: "DejaVu Sans", "Segoe UI", Arial, sans-serif; font-size: 10pt;
       color: #000; background: #fff; margin: 1.5em; max-width: 1200px; }
h1 { font-size: 17pt; margin: 0 0 0.2em 0; }
h2 { font-size: 13pt; margin: 1.4em 0 0.4em 0; border-bottom: 1px solid #888; }
h3 { font-size: 11pt; margin: 1.1em 0 0.3em 0; }
p.meta { color: #333; margin: 0 0 1em 0; }
img.chart, img.timeline { max-width: 100%; height: auto; border: 1px solid #ccc; }
div.warnings { border: 2px solid #E69F00; background-color: #fff4dc; padding: 0.2em 1em;
               margin: 0.8em 0; }
div.warnings h2 { border-bottom: none; margin-top: 0.4em; }
table { border-collapse: collapse; margin: 0.3em 0 0.6em 0; font-size: 9pt; }
th, td { border: 1px solid #999; padding: 3px 7px; vertical-align: top; }
th { background-color: #eee; text-align: left; }
td.num { text-align: right; }
td.yes { font-weight: bold; }
table.facts th { font-weight: normal; background-color: #f4f4f4; }
div.session { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
div.session h4 { margin: 0.8em 0 0.2em 0; }
.note { color: #333; font-size: 9pt; }
h1, h2, h3, h4, p, li { overflow-wrap: anywhere; }
th { overflow-wrap: break-word; word-break: normal; hyphens: manual; }
h2, h3, h4 { page-break-after: avoid; break-after: avoid; }
table { break-inside: auto; }
tr { page-break-inside: avoid; break-inside: avoid; }
"""


def e(value: object) -> str:
    """User text as HTML text (quotes too, so it is safe inside attributes)."""
    return escape(str(value), quote=True)


def scale(metric: str, largest: float) -> tuple[str, float]:
    """One unit for a table's numbers, as in the papers: a rate unit that suits the largest
    (Mbit/s for Wi-Fi, Gbit/s for 10 GbE), else the metric's own unit."""
    if metric == "throughput_bps":
        return rate_unit(largest)
    return METRIC_INFO[metric][1], 1.0


def number(value: float | None, scale: float, *, signed: bool = False) -> str:
    """Three significant digits in the table's unit: 34.2, 1.28, 0.790; "−" for less."""
    if value is None or not math.isfinite(value):
        return DASH
    shown = value / scale
    if shown == 0:
        return "0"
    return fixed(shown, places(shown, ALONE_DIGITS), plus=signed)


def with_unit(title: str, unit: str) -> str:
    return f"{title} ({unit})" if unit else title


def p_value(p: float | None) -> str:
    return html.escape(format_p(p))


def when(text: str | None) -> str:
    if not text:
        return DASH
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return e(text)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def x(value: float | str) -> str:
    return value_word(value)


def cells(cells: Iterable[tuple[str, str]]) -> str:
    """Cells as (css class, already-escaped html)."""
    return "".join(
        f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>" for cls, text in cells
    )


#: A rate's unit in brackets, such as "(Mbit/s)" or "(pkt/s)": one word, never broken at
#: its slash.
_UNIT = re.compile(r"\((?:[A-Za-zµ]{1,6})/(?:[A-Za-z]{1,3})\)")


def title(text: str) -> str:
    """A column's or a row's title as HTML."""
    return e(text)


def unbroken_units(html: str) -> str:
    """The report's HTML for Qt's PDF layout, which breaks "(Mbit/s)" after its slash in a
    narrow column (and ignores no-wrap styles): a word joiner (U+2060, never painted) after
    each such unit's slash. Only the PDF gets it; the HTML file stays as written, so text
    copied from it carries no invisible character."""
    return _UNIT.sub(lambda unit: unit[0].replace("/", "/\u2060"), html)


def table(header: Sequence[str], rows: Iterable[str], *, wide: bool = False) -> str:
    head = "".join(f"<th>{title(h)}</th>" for h in header)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    # Full width, or Qt's PDF layout squeezes the columns and breaks words.
    attr = ' width="100%"' if wide else ""
    return (
        f'<table{attr} border="1" cellspacing="0" cellpadding="4">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def facts(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of label and already-escaped value."""
    body = "".join(f"<tr><th>{title(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="facts" border="1" cellspacing="0" cellpadding="4">{body}</table>'


def _plan_facts(session: SessionRecord) -> list[tuple[str, str]]:
    plan = session.plan
    if plan.is_monitor:
        return _monitor_facts(session)
    label, unit = VARIABLE_LABELS[plan.variable]
    values = ", ".join(x(v) for v in plan.values)
    values_text = f"{values} {unit}".strip()
    runs = (
        f"{counted(plan.repetitions, 'run')} × {plan.duration_s} s "
        "per point"
        + (f", first {plan.omit_s} s omitted" if plan.omit_s else "")
        + f", {plan.order.value} order"
    )
    return [
        ("Peer", e(plan.peer.name or session.peer_host)),  # as the window names it
        ("Engine", e(plan.engine.value)),
        ("Protocols", e(", ".join(p.value.upper() for p in plan.protocols))),
        ("IP versions", e(", ".join(f"IPv{int(v)}" for v in plan.ip_versions))),
        ("Direction", e(DIRECTION_WORDS[plan.direction])),
        ("Swept variable", e(f"{label}: {values_text}")),
        ("Runs", e(runs)),
        ("Metrics", e(", ".join(m.value for m in plan.metrics))),
    ]


def _monitor_facts(session: SessionRecord) -> list[tuple[str, str]]:
    """A monitor's plan: one flow, its runs chained back to back, its report interval."""
    plan = session.plan
    runs = counted(plan.repetitions, "run")
    chained = (
        f"{runs} of up to {plan.duration_s} s, back to back; a report every {plan.interval_s:g} s"
    )
    facts = [
        ("Peer", e(plan.peer.name or session.peer_host)),  # as the window names it
        ("Engine", e(plan.engine.value)),
        ("Protocol", e(plan.protocols[0].value.upper())),
        ("IP version", e(f"IPv{int(plan.ip_versions[0])}")),
        ("Direction", e(DIRECTION_WORDS[plan.direction])),
        ("Monitor", e(chained)),
        ("Metrics", e(", ".join(m.value for m in plan.metrics))),
    ]
    if plan.bitrate_bps:
        facts.insert(5, ("UDP rate", e(format_rate(plan.bitrate_bps))))
    return facts


def _condition_facts(session: SessionRecord) -> list[tuple[str, str]]:
    conditions = session.plan.conditions
    said = describe_security(conditions, session.environment)
    security = (
        said.removeprefix("Security: ")
        if said
        else ("Open" if conditions.security is Security.OPEN else conditions.security.value)
    )
    tags = ", ".join(f"{k}={v}" if v else k for k, v in conditions.tags)
    notes = e(conditions.notes).replace("\n", "<br>") if conditions.notes else DASH
    medium = conditions.medium.value
    if conditions.medium_detected_by:
        medium += f" (detected from {conditions.medium_detected_by})"
    rate = DASH
    if conditions.link_rate_bps is not None:
        source = conditions.link_rate_detected_by
        kind = f"detected: {source}" if source else "stated"
        rate = e(f"{plain_rate(conditions.link_rate_bps)} ({kind})")
    overhead = conditions.frame_overhead
    return [
        ("Security", e(security)),
        ("Medium", e(medium)),
        ("Link rate", rate),
        ("Frame overhead", e(f"{overhead} B per frame") if overhead is not None else DASH),
        ("Tags", e(tags) if tags else DASH),
        ("Notes", notes),
    ]


_ENVIRONMENT = (
    ("os_name", "Operating system"),
    ("os_version", "OS version"),
    ("cpu_model", "CPU"),
    ("cpu_count", "Logical CPUs"),
    ("interface", "Interface"),
    ("interface_speed_mbps", "Adapter speed (Mbit/s), not the path's"),
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


def session_section(session: SessionRecord) -> str:
    status = session.status.value
    if session.status_reason:
        status += f": {session.status_reason}"
    general = [
        ("Session id", e(session.id)),
        ("Status", e(status)),
        ("Created", when(session.created_at)),
        ("Started", when(session.started_at)),
        ("Ended", when(session.ended_at)),
        (
            "Runs",
            e(f"{session.runs_done} of {session.total_runs} done, {session.runs_failed} failed"),
        ),
        ("LinkLab version", e(session.app_version or DASH)),
    ]
    if session.clock_step_s is not None:
        general.insert(5, ("Clock", e(step_sentence(session.clock_step_s))))
    environment = _environment_facts(session.environment)
    boxes = [
        ("Session", facts(general)),
        ("Plan", facts(_plan_facts(session))),
        ("Conditions", facts(_condition_facts(session))),
        (
            "Environment",
            facts(environment)
            if environment
            else '<p class="note">No environment snapshot was recorded.</p>',
        ),
    ]
    # Side by side in a browser (flex); one under the other in Qt's PDF, which ignores flex.
    inner = "".join(f"<div><h4>{title}</h4>{body}</div>" for title, body in boxes)
    return f'<h3>{e(session.name or session.short_id)}</h3><div class="session">{inner}</div>'


def png_size(data: bytes) -> str:
    """width and height attributes from the PNG header, so the page does not jump."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return ""
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return f' width="{width}" height="{height}"'
