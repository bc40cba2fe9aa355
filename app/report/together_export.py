"""What a class measured together, to take away: one JSON object (`linklab class …
--together --json`), the columns it adds to the grades table, and the class report's HTML
(its chart drawn by the window layer), with the same figures and sentences the Class tab
shows."""

from __future__ import annotations

import base64
import datetime as dt
from typing import Any

from app import __version__
from app.analysis.stats import Summary
from app.domain.together import SlotKind
from app.domain.units import counted
from app.report.html_parts import CSP, STYLE, e, png_size, table
from app.study.lab.together_results import SlotResult, StationSummary, TogetherResult
from app.study.lab.together_words import (
    bounds_text,
    findings,
    index_text,
    mbit_text,
    ms_text,
    percent_text,
    rate_text,
)

__all__ = ["TOGETHER_COLUMNS", "together_grades", "together_html", "together_json"]

#: What the grades table gains per student when the class measured together.
TOGETHER_COLUMNS = (
    "together_mbit_s",
    "together_ci95_low_mbit_s",
    "together_ci95_high_mbit_s",
    "together_share_pct",
    "together_share_ci95_low_pct",
    "together_share_ci95_high_pct",
    "together_rounds_counted",
    "alone_mbit_s",
    "contention_loss_pct",
    "clock_offset_ms",
    "together_left_out",
)


def _summary(summary: Summary) -> dict[str, Any]:
    return {
        "mean": summary.mean,
        "ci95_low": summary.ci_low,
        "ci95_high": summary.ci_high,
        "n": summary.n,
    }


def _slot_json(slot: SlotResult) -> dict[str, Any]:
    return {
        "number": slot.slot.number,
        "kind": slot.slot.kind.value,
        "round": slot.slot.round,
        "label": slot.slot.label,
        "start_at": slot.slot.start_at,
        "settled": slot.settled,
        "total_bps": slot.total_bps,
        "index": slot.index,
        "slowest": slot.slowest,
        "fastest": slot.fastest,
        "start_spread_s": slot.start_spread_s,
        "stations": [
            {
                "student": s.student,
                "status": s.status.value,
                "counted": s.counted,
                "reason": s.reason,
                "mean_bps": s.mean_bps,
                "share": slot.share(s.student),
                "start_error_s": s.start_error_s,
                "final": s.final,
                "figures": [[t, bps] for t, bps in s.figures],
            }
            for s in slot.stations
        ],
        "seconds": [
            {"second": x.second, "total_bps": x.total_bps, "index": x.index, "stations": x.stations}
            for x in slot.seconds
        ],
    }


def _station_json(station: StationSummary) -> dict[str, Any]:
    return {
        "student": station.student,
        "clock_offset_s": station.offset_s,
        "clock_round_trip_s": station.delay_s,
        "throughput_bps": _summary(station.throughput),
        "share": _summary(station.share),
        "alone_bps": station.alone_bps,
        "contention_loss": station.contention_loss,
        "rounds_counted": station.rounds_counted,
        "rounds": station.rounds,
        "left_out": [
            {"slot": label, "status": status.value, "reason": why}
            for label, status, why in station.left_out
        ],
    }


def together_json(result: TogetherResult) -> dict[str, Any]:
    together = result.together
    return {
        "together": together.id,
        "plan": together.plan.to_dict(),
        "plan_words": together.plan.words,
        "state": result.state,
        "start_at": together.start_at,
        "index": _summary(result.index),
        "total_bps": _summary(result.total),
        "start_spread_s": result.start_spread_s,
        "stations": [_station_json(s) for s in result.stations],
        "left_out": [
            {"student": who, "status": status.value, "reason": why}
            for who, status, why in together.left_out
        ],
        "slots": [_slot_json(s) for s in result.slots],
        "findings": findings(result),
    }


def _mbit(bps: float | None) -> float | None:
    return None if bps is None else round(bps / 1e6, 3)


def _pct(fraction: float | None) -> float | None:
    return None if fraction is None else round(fraction * 100, 2)


def together_grades(result: TogetherResult) -> dict[str, list[object]]:
    """Per student, the values of TOGETHER_COLUMNS."""
    found: dict[str, list[object]] = {}
    for s in result.stations:
        left_out = "; ".join(f"{label}: {why}" for label, _status, why in s.left_out)
        found[s.student] = [
            _mbit(s.throughput.mean),
            _mbit(s.throughput.ci_low),
            _mbit(s.throughput.ci_high),
            _pct(s.share.mean),
            _pct(s.share.ci_low),
            _pct(s.share.ci_high),
            s.rounds_counted,
            _mbit(s.alone_bps),
            _pct(s.contention_loss),
            None if s.offset_s is None else round(s.offset_s * 1000, 3),
            left_out,
        ]
    for who, _status, why in result.together.left_out:
        found[who] = [None] * (len(TOGETHER_COLUMNS) - 1) + [f"did not take part: {why}"]
    return found


def _whole(text: str) -> str:
    """A figure kept on one line (a narrow column of the PDF's page would break it)."""
    return e(text).replace(" ", "&nbsp;")


def _rounds_table(result: TogetherResult) -> str:
    rows = []
    for slot in result.slots:
        if slot.slot.kind is not SlotKind.TOGETHER:
            continue
        left = [s for s in slot.stations if not s.counted]
        rows.append(
            f"<td>{e(slot.slot.label)}</td><td class='num'>{e(index_text(slot.index))}</td>"
            f"<td class='num'>{e(rate_text(slot.total_bps))}</td>"
            f"<td>{e(slot.slowest or '—')}</td><td>{e(slot.fastest or '—')}</td>"
            f"<td class='num'>{e(ms_text(slot.start_spread_s))}</td>"
            f"<td>{e('; '.join(f'{s.student}: {s.reason}' for s in left) or '—')}</td>"
        )
    header = ["Round", "Jain's index", "Total", "Slowest", "Fastest", "Starts' spread", "Left out"]
    return table(header, rows, wide=True)


def _stations_table(result: TogetherResult) -> str:
    rows = []
    for s in result.stations:
        cells = [
            mbit_text(s.throughput.mean),
            bounds_text(s.throughput, kind="mbit"),
            percent_text(s.share.mean),
            bounds_text(s.share, kind="share"),
            f"{s.rounds_counted} of {s.rounds}",
            mbit_text(s.alone_bps),
            percent_text(s.contention_loss),
            "—" if s.offset_s is None else f"{s.offset_s * 1000:+.1f} ms",
        ]
        rows.append(
            f"<td>{_whole(s.student)}</td>"
            + "".join(f"<td class='num'>{_whole(c)}</td>" for c in cells)
        )
    header = [
        "Station",
        "Together (Mbit/s)",
        "95 % interval",
        "Share",
        "95 % interval",
        "Rounds counted",
        "Alone (Mbit/s)",
        "Loss under contention",
        "Clock offset",
    ]
    return table(header, rows, wide=True)


def together_html(result: TogetherResult, chart_png: bytes, title: str = "") -> str:
    """The class report: the plan, the findings, the chart of every station's per-second
    throughput with the total, the rounds with their index, and each station's share."""
    together = result.together
    heading = title or "The class, measured together"
    started = dt.datetime.fromtimestamp(together.start_at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    chart = base64.b64encode(chart_png).decode("ascii")
    items = "".join(f"<li>{e(s)}</li>" for s in findings(result))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{e(heading)}</title><style>{STYLE}</style></head><body>
<h1>{e(heading)}</h1>
<p class="meta">{e(together.plan.words)} · {counted(len(together.stations), "station")} · started
{e(started)} · LinkLab {e(__version__)}</p>
<h2>Findings</h2><ul>{items}</ul>
<h2>Every station's throughput, second by second</h2>
<p><img class="chart" src="data:image/png;base64,{chart}"{png_size(chart_png)}
alt="Each station's received throughput per second, and the total"></p>
<h2>Rounds</h2>{_rounds_table(result)}
<h2>Stations</h2>{_stations_table(result)}
<p class="note">Jain's fairness index (Σx)² / (n·Σx²) over the stations' mean throughputs:
1 is an even share. Intervals are Student-t 95 % intervals over the rounds. A station that
does not count in a round is named with its reason, never counted as a zero share.</p>
</body></html>
"""
