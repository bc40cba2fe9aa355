"""What the study commands print: a progress bar on stderr and the --json shapes."""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict
from typing import Any, TextIO

from app.analysis.context_checks import context_checks
from app.analysis.latency_findings import session_findings
from app.analysis.points import efficiency_text, point_summaries
from app.analysis.shares import link_shares
from app.domain.metrics import ranked
from app.domain.plan_fields import value_word
from app.domain.precision import precision
from app.domain.records import RunRecord, SessionRecord, status_words
from app.domain.units import counted, format_rate
from app.study.sweep.describe import latency_methods
from app.study.sweep.events import (
    LatencyNote,
    Progress,
    RunFailed,
    RunStarted,
    ServerNote,
    SessionFinished,
    SessionStarted,
    StudyEvent,
    StudyPrepared,
)


def json_text(data: Any) -> str:
    """Strict JSON for --json: a figure that is not finite (never stored by LinkLab, but a
    database edited by hand may hold one) is null, never the NaN or Infinity of Python's json."""
    return json.dumps(_finite(data), indent=2, allow_nan=False)


def _finite(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(value) for value in data]
    return data


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressPrinter:
    """Observer for the runner: a live bar on a terminal, one line per run otherwise."""

    def __init__(self, out: TextIO, *, quiet: bool = False) -> None:
        self._out = out
        self._tty = out.isatty()
        self._quiet = quiet
        self._line = ""
        self._last_draw = 0.0

    def __call__(self, event: StudyEvent) -> None:
        if isinstance(event, StudyPrepared):
            for note in event.notes:  # before the first run: what will not run, and why
                self._print(note)
        elif isinstance(event, SessionStarted):
            resumed = f", resuming after {event.already_done}" if event.already_done else ""
            runs = counted(event.total_runs, "run")
            self._print(f"Session {event.session_id[:8]}: {runs}{resumed}.")
        elif isinstance(event, LatencyNote | ServerNote):
            # How working latency is measured (or why it is not); a server of this computer's
            # that LinkLab started again.
            self._print(event.sentence)
        elif isinstance(event, RunFailed) and event.will_retry:
            self._print(f"Note: {event.retry_note}")
        elif isinstance(event, RunFailed):
            self._print(f"Run failed: {event.sentence} {event.then_words}".strip())
        elif isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, RunStarted) and event.attempt == 1 and not self._tty:
            pass
        elif isinstance(event, SessionFinished):
            self._clear()
            # "completed with failures. 3 of 24 runs failed. The first failure: ...", the
            # status in the words of the window and `linklab sessions`.
            words = status_words(event.status, event.runs_failed)
            reason = f" {event.reason}" if event.reason else ""
            self._print(f"Session {event.session_id[:8]} {words}.{reason}")

    def _progress(self, event: Progress) -> None:
        text = (
            f"point {event.point}/{event.points} · run {event.repetition}/{event.repetitions} "
            f"· {event.series} · {event.done}/{event.total} done · ETA "
            f"{format_duration(event.eta_s)}"
        )
        if not self._tty:
            self._print(text)
            return
        width = 24
        filled = int(width * event.done / max(1, event.total))
        self._line = f"[{'#' * filled}{'.' * (width - filled)}] {text}"
        now = time.monotonic()
        if now - self._last_draw > 0.1 or event.done == event.total:
            self._out.write("\r\x1b[2K" + self._line)
            self._out.flush()
            self._last_draw = now

    def _clear(self) -> None:
        if self._tty and self._line:
            self._out.write("\r\x1b[2K")
            self._line = ""

    def _print(self, text: str) -> None:
        if self._quiet:
            return
        self._clear()
        self._out.write(text + "\n")
        self._out.flush()


def session_summary(session: SessionRecord) -> dict[str, Any]:
    """The session fields shared by `run --json`, `sessions --json` and `sessions show`."""
    plan = session.plan
    return {
        "session_id": session.id,
        "name": session.name,
        "kind": "monitor" if plan.is_monitor else "sweep",  # one flow over time, or a sweep
        "status": session.status.value,
        # As the window and `linklab sessions` say it: "completed with failures".
        "status_text": session.status_text,
        "status_reason": session.status_reason,
        "peer": session.peer_host,
        "engine": plan.engine.value,
        "protocols": [p.value for p in plan.protocols],
        "ip_versions": [int(v) for v in plan.ip_versions],
        "direction": plan.direction.value,
        "variable": plan.variable.value,
        "values": list(plan.values),
        "repetitions": plan.repetitions,
        "duration_s": plan.duration_s,  # seconds per run (where the runs' length is not swept)
        "interval_s": plan.interval_s,  # the engine's report interval
        "metrics": [m.value for m in plan.metrics],
        "bitrate_bps": plan.bitrate_bps,  # UDP's target when one is held fixed (0: none)
        "concurrent": plan.concurrent,
        "conditions": {
            "security": plan.conditions.security.value,
            "medium": plan.conditions.medium.value,
            "tags": plan.conditions.tag_dict,
            "notes": plan.conditions.notes,
            "link_rate_bps": plan.conditions.link_rate_bps,
            "frame_overhead": plan.conditions.frame_overhead,
            # What detected the medium or the rate ("" when the user stated it).
            "medium_detected_by": plan.conditions.medium_detected_by,
            "link_rate_detected_by": plan.conditions.link_rate_detected_by,
        },
        "created_at": session.created_at,
        "ended_at": session.ended_at,
        "runs_done": session.runs_done,
        "runs_failed": session.runs_failed,
        "runs_partial": session.runs_partial,
        "total_runs": session.total_runs,
        # Who measured it for which step of which lab exercise (null outside exercises).
        "assignment": asdict(plan.assignment) if plan.assignment else None,
    }


def session_json(session: SessionRecord, runs: list[RunRecord]) -> dict[str, Any]:
    data = session_summary(session)
    data["environment"] = session.environment  # this computer, the link, engines, Wi-Fi
    # Where the numbers cannot mean what the labels say, each with what to do.
    data["warnings"] = [w.sentence for w in context_checks(session, runs)]
    points = point_summaries(session.plan, runs)
    data["points"] = [p.as_dict() for p in points]
    data["findings"] = session_findings(session.plan, points)
    # How working latency was measured: method name -> runs (empty when it was not).
    data["latency_methods"] = latency_methods(runs)
    if session.plan.concurrent:
        data["shares"] = [
            {
                "value": point.value,
                "total_bps": point.total_bps,
                "series": [
                    {
                        "protocol": s.series.protocol.value,
                        "ip_version": int(s.series.ip_version),
                        "mean_bps": s.mean_bps,
                        "share_pct": s.share_pct,
                    }
                    for s in point.shares
                ],
            }
            for point in link_shares(session.plan, runs)
        ]
    return data


#: Columns of the points table beyond throughput: (metric, header), shown when measured,
#: and how each is written: the metrics the metric table shows there.
EXTRA_COLUMNS = tuple(
    (m.name, m.shown.terminal[1]) for m in ranked("terminal") if m.shown.terminal is not None
)
EXTRA_FORMATS = {
    m.name: f"{{:.{m.shown.terminal[2]}f}}" for m in ranked("terminal") if m.shown.terminal
}


def print_points(session: SessionRecord, runs: list[RunRecord], out: TextIO) -> None:
    """A readable table of the point summaries (throughput, and RTT and working latency when
    measured), after the warnings of the session's context checks."""
    plan = session.plan
    for warning in context_checks(session, runs):
        out.write(f"Warning: {warning.sentence}\n")
    points = point_summaries(plan, runs)
    has_rtt = any(p.metrics["rtt_ms"].n for p in points)
    has_latency = any(p.metrics["latency_ms"].n or p.metrics["latency_idle_ms"].n for p in points)
    has_expected = any(p.expected_bps for p in points)
    # What the engine measured besides throughput, a column each only when some run has it.
    extra = [
        (name, label) for name, label in EXTRA_COLUMNS if any(p.metrics[name].n for p in points)
    ]
    # A monitor's one point is its whole span, its runs the stretches it was measured in.
    column = "monitor" if plan.is_monitor else plan.variable.value
    header = f"{'series':<14} {column:>10} {'runs' if plan.is_monitor else 'n':>4} "
    header += f"{'mean':>12} {'std':>12}"
    header += f" {'95 % CI ±':>12}" + "".join(f" {label:>11}" for _, label in extra)
    header += f" {'RTT ms':>9}" if has_rtt else ""
    header += f" {'idle ms':>9} {'loaded ms':>9}" if has_latency else ""
    header += f" {'expected':>12} {'of exp.':>8}" if has_expected else ""
    out.write(header + "\n")
    for point in points:
        tp = point.metrics["throughput_bps"]
        precise = precision(tp.mean, tp.std, rate=True)  # one unit, one precision
        line = (
            f"{point.series.label:<14} "
            f"{'whole' if plan.is_monitor else value_word(point.value):>10} {point.n:>4} "
            f"{precise.text(tp.mean):>12} {precise.text(tp.std):>12} {precise.text(tp.ci95):>12}"
        )
        for name, _label in extra:
            mean = point.metrics[name].mean
            shown = EXTRA_FORMATS[name].format(mean) if mean is not None else "—"
            line += f" {shown:>11}"
        if has_rtt:
            rtt = point.metrics["rtt_ms"].mean
            line += f" {rtt:>9.3f}" if rtt is not None else f" {'—':>9}"
        if has_latency:
            for name in ("latency_idle_ms", "latency_ms"):
                value = point.metrics[name].mean
                line += f" {value:>9.3f}" if value is not None else f" {'—':>9}"
        if has_expected:
            pct = point.efficiency_pct
            line += f" {format_rate(point.expected_bps):>12} "
            line += f"{efficiency_text(pct):>6} %" if pct is not None else f"{'—':>8}"
        if point.failed:
            line += f"  ({point.failed} failed)"
        out.write(line + "\n")
    for share in link_shares(plan, runs):
        parts = ", ".join(f"{s.series.label} {s.share_pct:.1f} %" for s in share.shares)
        out.write(
            f"Share of the link at {value_word(share.value)}: {parts} "
            f"(together {format_rate(share.total_bps)})\n"
        )
    for sentence in session_findings(plan, points):
        out.write(sentence + "\n")
