"""A stored monitor's report as a self-contained HTML page (the window layer draws its chart and
lays the same page out as a PDF): what its view in Sessions shows, its warnings and findings,
its chart over time, its figures over the whole monitor, then each chained run and how it was
measured."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from app.analysis.context_checks import context_checks
from app.analysis.latency_findings import session_findings
from app.analysis.monitor_trace import STORED_ROWS, Figures, figure_text, figures
from app.analysis.points import point_summaries
from app.domain.net import Protocol
from app.domain.records import RunRecord
from app.domain.units import DASH, format_rate
from app.report.html_parts import CSP, STYLE, e, png_size, session_section, table
from app.study.sweep.describe import describe_latency, describe_plan, local_time
from app.study.sweep.monitor_record import MonitorRecord


def heading(column: Figures) -> str:
    """A column's heading, as the window's table gives it: 'Upload (received)', 'Latency'."""
    return column.what[:1].upper() + column.what[1:]


def figure_rows(columns: Sequence[Figures]) -> list[list[str]]:
    """The figures over the whole monitor as the window's table shows them: a row each for
    the last value, the mean, the lowest and the highest, a cell per curve."""
    rows = []
    for index, label in enumerate(STORED_ROWS):
        cells = [label]
        for column in columns:
            value = (column.now, column.mean, column.low, column.high)[index]
            cells.append(figure_text(value, column.unit))
        rows.append(cells)
    return rows


RUN_HEADERS_TCP = ("Run", "Started", "Measured", "Status", "Throughput", "Retransmits")
RUN_HEADERS_UDP = ("Run", "Started", "Measured", "Status", "Throughput", "Loss")
LATENCY_HEADERS = ("Working latency (median)", "Probes lost")


def _status(run: RunRecord) -> str:
    if run.partial:
        return "unfinished (LinkLab ended during it)"
    return "ok" if run.ok else f"failed: {run.error}"


def _throughput(run: RunRecord) -> str:
    """The run's rate as the receiver counted it, else the sender's, said so."""
    metrics = run.metrics
    if metrics.throughput_bps is None:
        return DASH
    sent = metrics.receiver_bps is None and metrics.sender_bps is not None
    return format_rate(metrics.throughput_bps) + (" (sent)" if sent else "")


def run_rows(monitor: MonitorRecord) -> tuple[tuple[str, ...], list[list[str]]]:
    """Each chained run: when it started, how long it measured, how it ended, its rate, its
    retransmits (TCP) or loss (UDP), and its working latency when measured."""
    plan = monitor.session.plan
    udp = plan.protocols[0] is Protocol.UDP
    latency = any(run.metrics.latency_ms is not None for run in monitor.runs)
    headers = (RUN_HEADERS_UDP if udp else RUN_HEADERS_TCP) + (LATENCY_HEADERS if latency else ())
    rows = []
    for run in monitor.runs:
        metrics = run.metrics
        if udp:
            loss = DASH if metrics.loss_pct is None else f"{metrics.loss_pct:.2f} %"
        else:
            loss = DASH if metrics.retransmits is None else str(metrics.retransmits)
        cells = [
            str(run.key.repetition),
            local_time(run.started_at),
            DASH if run.elapsed_s is None else f"{run.elapsed_s:.0f} s",
            _status(run),
            _throughput(run),
            loss,
        ]
        if latency:
            cells += [
                figure_text(metrics.latency_ms, "ms"),
                figure_text(metrics.latency_loss_pct, "%"),
            ]
        rows.append(cells)
    return headers, rows


def _image(png: bytes, alt: str) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    return (
        f'<p><img class="chart" alt="{e(alt)}"{png_size(png)} '
        f'src="data:image/png;base64,{encoded}"></p>'
    )


def _cells(rows: list[list[str]]) -> list[str]:
    return ["".join(f"<td>{e(cell)}</td>" for cell in row) for row in rows]


def monitor_report_html(monitor: MonitorRecord, chart_png: bytes) -> str:
    """The page: the warnings and findings its view shows, the chart, the figures over the
    whole monitor, its runs, and the session's plan, conditions and environment."""
    session = monitor.session
    plan = session.plan
    finished = [run for run in monitor.runs if not run.partial]
    warnings = [w.sentence for w in context_checks(session, finished)]
    findings = session_findings(plan, point_summaries(plan, finished))
    latency = describe_latency(finished)
    status = session.status_text + (f" ({session.status_reason})" if session.status_reason else "")
    meta = (
        f"{describe_plan(plan)} — peer {plan.peer.name or session.peer_host} — {status} — "
        f"{local_time(session.started_at or session.created_at)}"
    )
    columns = figures(monitor.traces(), live=False)
    headers, runs = run_rows(monitor)
    said = "".join(f"<li>{e(w)}</li>" for w in warnings)
    warned = f'<div class="warnings"><h2>Read first</h2><ul>{said}</ul></div>' if said else ""
    found = "".join(f"<li>{e(f)}</li>" for f in findings)
    notes = "".join(f"<p class='note'>{e(n)}</p>" for n in (latency,) if n)
    name = session.name or session.short_id
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{e(name)}</title><style>{STYLE}</style></head><body>
<h1>{e(name)}</h1>
<p class="meta">{e(meta)}</p>
{warned}
{f"<h2>Findings</h2><ul>{found}</ul>" if found else ""}
<h2>Over time</h2>
{_image(chart_png, "Throughput, loss or retransmits, and working latency over the monitor")}
<h2>Over the whole monitor</h2>
{table(["", *(heading(c) for c in columns)], _cells(figure_rows(columns)))}
<p class="note">Throughput is what the receiver counted; "sent" marks the intervals whose
receiver's count never came (the run Stop cut short, or a run the peer's absence ended), whose
figure is the sender's. Working latency is each second's median probe round trip under
load.</p>
<h2>Runs chained back to back</h2>
{table(headers, _cells(runs), wide=True)}
{notes}
<h2>How it was measured</h2>
{session_section(session)}
</body></html>
"""
