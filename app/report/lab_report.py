"""The student's lab report, drafted in the structure of the seed lab: aims, equipment and
network (from the sessions' environment snapshots), then each experiment with its plan, chart,
mean ± SD table and findings, then the student's answers. The same content goes to HTML (and
from it to PDF) and to an editable document (app.report.lab_docx)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app import __version__
from app.analysis.compare import Comparison, Mode, compare, series_data
from app.analysis.latency_findings import session_findings
from app.analysis.points import PointSummary, point_summaries
from app.analysis.range_findings import range_finding
from app.domain.exercise import Exercise, Step, asked_metrics
from app.domain.plan import Plan
from app.domain.plan_fields import VARIABLE_LABELS
from app.domain.precision import mean_and_spread
from app.domain.records import SessionRecord, utc_now
from app.domain.units import DASH, format_rate
from app.report.html_parts import CSP, STYLE, e, png_size, table, when, x
from app.study.frontdoor import FrontDoor
from app.study.sweep.describe import describe_environment, describe_plan

__all__ = ["LabReport", "StepReport", "collect_lab_report", "lab_report_html", "step_tables"]


@dataclass(frozen=True)
class StepReport:
    number: int
    step: Step
    session: SessionRecord | None  # the latest completed one, else the latest
    points: list[PointSummary]
    comparison: Comparison | None  # its series within the session (for chart and findings)
    answers: list[tuple[str, str, str]]  # (question id, question, answer)
    #: Per metric the step's questions ask about and the session measured, its series within
    #: the session: what the step's view charts (idle and loaded latency for a latency step).
    charts: tuple[Comparison, ...] = ()


@dataclass(frozen=True)
class LabReport:
    exercise: Exercise
    student: str
    group: str
    steps: list[StepReport]
    final_answers: list[tuple[str, str, str]]
    equipment: list[tuple[str, list[str]]]  # (computer, lines)


def collect_lab_report(door: FrontDoor, exercise: Exercise, student: str) -> LabReport:
    desk = door.exercises()
    work = desk.work(exercise, student)
    answers = work.answers if work else {}
    exercise = work.exercise if work else exercise
    steps = []
    machines: dict[str, list[str]] = {}
    for progress in desk.progress(exercise, student):
        session = progress.done_session or progress.latest
        points: list[PointSummary] = []
        comparison = None
        charts: list[Comparison] = []
        if session is not None:
            runs = door.sessions().runs(session.id)
            points = point_summaries(session.plan, runs)
            for metric in dict.fromkeys(("throughput_bps", *asked_metrics(progress.step))):
                items = series_data(session, runs, metric)
                if not any(v for item in items for v in item.values.values()):
                    continue
                compared = compare(items, metric, mode=Mode.WITHIN)
                if metric == "throughput_bps":
                    comparison = compared
                if metric in asked_metrics(progress.step):
                    charts.append(compared)
            if not charts and comparison is not None:  # asked about what was not measured
                charts.append(comparison)
            lines = describe_environment(session.environment)
            if lines:
                host = f"This computer (step {progress.number})"
                if lines not in machines.values():
                    machines[host] = lines
        asked = [
            (f"{progress.number}.{q}", text, answers.get(f"{progress.number}.{q}", ""))
            for q, text in enumerate(progress.step.questions, 1)
        ]
        steps.append(
            StepReport(
                progress.number, progress.step, session, points, comparison, asked, tuple(charts)
            )
        )
    final = [
        (f"E.{q}", text, answers.get(f"E.{q}", "")) for q, text in enumerate(exercise.questions, 1)
    ]
    peers = sorted({s.session.peer_host for s in steps if s.session is not None})
    equipment = list(machines.items())
    if peers:
        equipment.append(("Peer", [", ".join(peers)]))
    return LabReport(
        exercise,
        work.student if work else student,
        work.group if work else "",
        steps,
        final,
        equipment,
    )


def step_tables(step: StepReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the step's mean ± SD tables: throughput for every series,
    loss and jitter for UDP, as the seed studies print them."""
    if not step.points or step.session is None:
        return []
    plan = step.session.plan
    label, unit = VARIABLE_LABELS[plan.variable]
    series = plan.series
    values = sorted({p.value for p in step.points})
    by_key = {(p.series, p.value): p for p in step.points}
    tables = []
    for metric, title, udp_only in (
        ("throughput_bps", "Throughput", False),
        ("loss_pct", "UDP loss (%)", True),
        ("jitter_ms", "UDP jitter (ms)", True),
        ("latency_idle_ms", "Idle latency (ms, median per run)", False),
        ("latency_ms", "Working latency under load (ms, median per run)", False),
    ):
        shown = [s for s in series if not udp_only or s.protocol.value == "udp"]
        if not shown:
            continue
        header = [f"{label} ({unit})" if unit else label] + [f"{s.label}: mean ± SD" for s in shown]
        rows = []
        for value in values:
            row = [x(value)]
            for s in shown:
                point = by_key.get((s, value))
                summary = point.metrics.get(metric) if point else None
                row.append(_mean_sd(metric, summary.mean, summary.std) if summary else DASH)
            rows.append(row)
        if any(cell != DASH for row in rows for cell in row[1:]):
            tables.append((title, header, rows))
    return tables


def _mean_sd(metric: str, mean: float | None, sd: float | None) -> str:
    """'2.00 ± 0.35 Gbit/s', '0.52 ± 0.12': the mean and its SD to one precision."""
    return mean_and_spread(mean, sd, rate=metric == "throughput_bps")


def step_findings(step: StepReport) -> list[str]:
    """Sentences about the step's result: each series' range over the sweep in every metric
    the step charts (said as equal, or within the runs' noise, where it is), with two or more
    series how they differ (the comparison's own findings), with a link rate stated the
    share of the expected goodput each reached, and with working latency measured how much
    longer a probe waited under load than idle."""
    if step.session is None:
        return ["Not measured yet."]
    plan = step.session.plan
    sentences = []
    for charted in step.charts or ((step.comparison,) if step.comparison else ()):
        for curve in charted.curves:
            said = range_finding(curve.label, charted.metric, plan.variable, curve.values)
            if said is not None:
                sentences.append(said)
    if step.comparison is not None and step.comparison.pairs:
        sentences += step.comparison.findings
    # How close each series came to what the headers allow (with a link rate stated), and
    # how much longer a probe waited under load than idle (with working latency measured).
    sentences += session_findings(plan, step.points)
    return sentences


def _image(png: bytes | None, alt: str) -> str:
    if not png:
        return ""
    data = base64.b64encode(png).decode("ascii")
    return f'<img class="chart" src="data:image/png;base64,{data}"{png_size(png)} alt="{e(alt)}">'


def _answers(items: Sequence[tuple[str, str, str]]) -> str:
    parts = []
    for qid, question, answer in items:
        text = e(answer).replace("\n", "<br>") if answer.strip() else "<i>(not answered yet)</i>"
        parts.append(f"<p><b>Q{e(qid)}. {e(question)}</b></p><p>{text}</p>")
    return "".join(parts)


def plan_lines(plan: Plan) -> list[str]:
    label, unit = VARIABLE_LABELS[plan.variable]
    values = ", ".join(x(v) for v in plan.values)
    lines = [describe_plan(plan), f"{label}: {values} {unit}".strip()]
    if any(p.value == "udp" for p in plan.protocols) and plan.bitrate_bps:
        lines.append(f"UDP sent at {format_rate(plan.bitrate_bps)}")
    if plan.parallel > 1:
        lines.append(f"{plan.parallel} parallel streams")
    if plan.concurrent:
        lines.append("the series ran at the same time")
    return lines


def lab_report_html(report: LabReport, charts: Mapping[int, bytes]) -> str:
    exercise = report.exercise
    who = report.student + (f", group {report.group}" if report.group else "")
    body = [
        f"<h1>{e(exercise.title)}</h1>",
        f'<p class="meta">Lab report by {e(who)}. Drafted by LinkLab {e(__version__)} on '
        f"{when(utc_now())}.</p>",
        "<h2>Aims</h2>",
        f"<p>{e(exercise.aims) or DASH}</p>",
        "<h2>Equipment and network</h2>",
    ]
    for machine, lines in report.equipment:
        body.append(f"<h3>{e(machine)}</h3><ul>{''.join(f'<li>{e(t)}</li>' for t in lines)}</ul>")
    if not report.equipment:
        body.append('<p class="note">No environment snapshot was recorded.</p>')
    body.append("<h2>Experiments and results</h2>")
    for step in report.steps:
        body.append(f"<h3>{e(step.step.title)}</h3>")
        if step.step.instructions:
            body.append(f"<p>{e(step.step.instructions)}</p>")
        if step.session is None:
            body.append('<p class="note">Not measured yet.</p>')
        else:
            lines = plan_lines(step.session.plan)
            body.append(f"<p><b>Parameters:</b> {e('; '.join(lines))}.</p>")
            body.append(_image(charts.get(step.number), f"{step.step.title}: mean with 95 % CI"))
            for title, header, rows in step_tables(step):
                body.append(f"<h4>{e(title)}: mean ± standard deviation</h4>")
                body.append(table(header, ("".join(f"<td>{e(c)}</td>" for c in r) for r in rows)))
            findings = "".join(f"<li>{e(s)}</li>" for s in step_findings(step))
            body.append(f"<h4>Findings</h4><ul>{findings}</ul>")
        if step.answers:
            body.append("<h4>Questions</h4>" + _answers(step.answers))
    if report.final_answers:
        body.append("<h2>Discussion and conclusion</h2>" + _answers(report.final_answers))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="LinkLab {e(__version__)}">
<title>{e(exercise.title)}: {e(report.student)}</title>
<style>{STYLE}</style>
</head>
<body>
{"".join(body)}
</body>
</html>
"""


def report_json(report: LabReport) -> dict[str, Any]:
    """What the report holds, for tests and scripts."""
    return {
        "exercise": report.exercise.title,
        "student": report.student,
        "group": report.group,
        "steps": [
            {
                "number": s.number,
                "title": s.step.title,
                "session_id": s.session.id if s.session else None,
                "findings": step_findings(s),
                "answers": {qid: answer for qid, _, answer in s.answers},
            }
            for s in report.steps
        ],
    }
