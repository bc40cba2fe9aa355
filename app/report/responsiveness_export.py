"""A kept responsiveness result (or two compared) as tables, CSV, JSON and an HTML page: the
cells are the ones the window shows, formatted once here for the window and every file."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from app.domain.units import DASH
from app.report.csv_export import write_rows
from app.report.html_parts import CSP, STYLE, e, facts, table
from app.study.responsiveness.comparison import TABLE_HEADERS, ResponsivenessComparison
from app.study.responsiveness.kept import KeptResult
from app.study.responsiveness.results import (
    LOAD_PHASES,
    Phase,
    latency_number,
    latency_text,
    rpm_number,
)
from app.study.sweep.describe import local_time

#: Bumped when a field of the JSON file changes meaning.
FORMAT_VERSION = 1
DIRECTION_NAMES = {Phase.DOWNLOAD: "Download", Phase.UPLOAD: "Upload", Phase.BOTH: "Both at once"}
SUMMARY_HEADERS = (
    "Direction",
    "Rating",
    "RPM",
    "Loaded latency (ms)",
    "Goodput (Mbit/s)",
    "Flows",
    "Confidence",
    "Probes answered",
    "Probes lost",
)
STEP_HEADERS = (
    "Direction",
    "Step",
    "Flows",
    "Start (s)",
    "End (s)",
    "Goodput (Mbit/s)",
    "Latency (ms)",
    "Probes answered",
    "Probes lost",
)


def _mbps(bps: float | None) -> str:
    return DASH if bps is None else f"{bps / 1e6:.1f}"


def summary_rows(kept: KeptResult) -> list[list[str]]:
    """Per direction the figures of the card; a last row with the idle latency."""
    rows = []
    for phase in LOAD_PHASES:
        load = kept.result.load(phase)
        if load is None:
            continue
        rows.append(
            [
                DIRECTION_NAMES[phase],
                load.rating.value,
                rpm_number(load.rpm),
                latency_number(load.loaded_latency_ms),
                _mbps(load.goodput_bps),
                str(load.flows),
                load.confidence.value,
                str(load.answered),
                str(load.lost),
            ]
        )
    idle = latency_number(kept.result.idle_latency_ms)
    answered = str(kept.result.idle_answered)
    rows.append(["Idle", DASH, DASH, idle, DASH, "0", DASH, answered, DASH])
    return rows


def step_rows(kept: KeptResult) -> list[list[str]]:
    """Each step of each direction's ramp, in the order it ran (the chart over time)."""
    return [
        [
            DIRECTION_NAMES[load.phase],
            str(number),
            str(step.flows),
            f"{step.start_s:.1f}",
            f"{step.end_s:.1f}",
            _mbps(step.goodput_bps),
            latency_number(step.latency_ms),
            str(step.answered),
            str(step.lost),
        ]
        for load in kept.result.loads
        for number, step in enumerate(load.steps, 1)
    ]


def result_csv(kept: KeptResult) -> str:
    """The summary table, an empty line, then the steps table (each with its header)."""
    out = io.StringIO()
    write_rows(out, SUMMARY_HEADERS, summary_rows(kept))
    out.write("\n")
    steps = io.StringIO()
    write_rows(steps, STEP_HEADERS, step_rows(kept))
    out.write(steps.getvalue().removeprefix("\ufeff"))
    return out.getvalue()


def result_json(kept: KeptResult) -> str:
    """The whole result with every step (`linklab sessions show ID --json` adds no more)."""
    return json.dumps({"format_version": FORMAT_VERSION, **kept.to_dict()}, indent=2) + "\n"


def comparison_csv(comparison: ResponsivenessComparison) -> str:
    out = io.StringIO()
    write_rows(out, TABLE_HEADERS, comparison.table())
    return out.getvalue()


def comparison_json(comparison: ResponsivenessComparison) -> str:
    data: dict[str, Any] = {"format_version": FORMAT_VERSION, **comparison.to_dict()}
    return json.dumps(data, indent=2) + "\n"


def headline(kept: KeptResult) -> str:
    """One line per direction: “Download: Good, 2,400 RPM (25 ms loaded)”."""
    parts = []
    for phase in LOAD_PHASES:
        load = kept.result.load(phase)
        if load is not None:
            latency = latency_text(load.loaded_latency_ms)
            parts.append(
                f"{DIRECTION_NAMES[phase]}: {load.rating.value}, {rpm_number(load.rpm)} RPM "
                f"({latency} loaded)"
            )
    return "; ".join(parts)


def _image(data: bytes, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<p><img class="chart" alt="{e(alt)}" src="data:image/png;base64,{encoded}"></p>'


def result_html(kept: KeptResult, card_png: bytes, chart_png: bytes) -> str:
    """A self-contained page: the card as the window draws it, the chart over time, and the
    summary and steps tables with the same figures."""

    def rows(cells: list[list[str]]) -> list[str]:
        return ["".join(f"<td>{e(c)}</td>" for c in row) for row in cells]

    result = kept.result
    settings = kept.settings
    details = [
        ("Peer", kept.peer_name),
        ("Measured", local_time(kept.created_at)),
        ("Latency", result.method_sentence),
        ("Idle latency", latency_text(result.idle_latency_ms)),
        ("Duration", f"{result.elapsed_s:.0f} s"),
        ("LinkLab", kept.app_version),
    ]
    if settings is not None:
        details.append(
            (
                "Settings",
                f"up to {settings.max_flows} flows, a step every {settings.step_s} s, "
                f"at most {settings.phase_s:g} s per direction",
            )
        )
    notes = "".join(f"<p class='note'>{e(n)}</p>" for n in result.notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{e(kept.name)}</title><style>{STYLE}</style></head><body>
<h1>{e(kept.name)}</h1>
<p class="meta">{e(headline(kept))}</p>
{_image(card_png, "The result card")}
<h2>Goodput and latency over time</h2>
{_image(chart_png, "Goodput and latency per step of the ramp")}
<h2>Result per direction</h2>
{table(SUMMARY_HEADERS, rows(summary_rows(kept)))}
<h2>Steps of the ramp</h2>
{table(STEP_HEADERS, rows(step_rows(kept)), wide=True)}
<h2>How it was measured</h2>
{facts((label, e(value)) for label, value in details)}
{notes}
<p class="note">RPM = round trips per minute under load (60,000 / loaded latency in ms):
Poor below 300, Fair below 1,000, Good up to 6,000, Excellent above.</p>
</body></html>
"""
