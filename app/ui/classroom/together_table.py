"""What the Together page shows of a class's result besides its chart: Jain's fairness index in
words, and the table of stations (each round's rate, the share with its interval, the loss
under contention, the clock offset, what was left out and why)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from app.analysis.stats import Summary
from app.domain.together import StationStatus
from app.domain.units import counted
from app.study.lab.together_results import TogetherResult
from app.study.lab.together_words import (
    bounds_text,
    index_text,
    interval_text,
    mbit_text,
    ms_text,
    percent_text,
    rate_text,
)


def _with_bounds(mean: str, summary: Summary, kind: str) -> str:
    """ "4.26 (3.41 to 5.11)": the mean and its 95 % interval, as the columns' heads say."""
    bounds = bounds_text(summary, kind=kind)
    return mean if bounds == "—" else f"{mean} ({bounds})"


def offset_words(offset_s: float | None) -> str:
    """A station's clock against the collector's: "clock +1.2 ms"."""
    return "no clock offset" if offset_s is None else f"clock {offset_s * 1000:+.1f} ms"


def index_words(result: TogetherResult) -> str:
    """The fairness index over the rounds, of the last round and of its last second."""
    rounds = [r for r in result.rounds if r.index is not None]
    parts = []
    if result.index.mean is not None:
        n = result.index.n
        parts.append(
            f"Jain's fairness index: {interval_text(result.index)} over {counted(n, 'round')}"
        )
    if rounds:
        last = rounds[-1]
        provisional = " so far" if last.provisional else ""
        parts.append(f"{last.slot.label}: {index_text(last.index)}{provisional}")
        if last.seconds and last.seconds[-1].index is not None:
            parts.append(f"second {last.seconds[-1].second}: {index_text(last.seconds[-1].index)}")
    if not parts:
        state = {"waiting": "about to start", "running": "measuring"}.get(result.state, "")
        return f"Jain's fairness index: — ({state or 'no round counted'})"
    return " · ".join(parts)


def fill_stations(table: QTableWidget, result: TogetherResult) -> None:
    """A row per station (its rounds, share, loss under contention, clock offset, what was
    left out), then a row per station that did not take part."""
    rounds = result.rounds
    headers = ["Station", "Now"]
    headers += [f"Round {r.slot.round} (Mbit/s)" for r in rounds]
    headers += ["Together (Mbit/s, 95 % interval)", "Share (95 % interval)", "Alone (Mbit/s)"]
    headers += ["Loss under contention", "Clock offset"]
    headers += ["Engine started", "Left out"]
    table.clear()
    table.setColumnCount(len(headers))
    table.setHorizontalHeaderLabels(headers)
    left_at_start = list(result.together.left_out)
    table.setRowCount(len(result.stations) + len(left_at_start))
    current = next(
        (s for s in result.slots if not s.settled), result.slots[-1] if result.slots else None
    )
    for row, station in enumerate(result.stations):
        here = None
        if current is not None:
            here = next((s for s in current.stations if s.student == station.student), None)
        now = "" if here is None else here.status.value
        if here is not None and here.status is StationStatus.RUNNING:
            now = f"measuring: {rate_text(here.mean_bps)}"
        cells = [station.student, now]
        for r in rounds:
            mine = next((s for s in r.stations if s.student == station.student), None)
            if mine is None or mine.mean_bps is None:
                cells.append("—")
            else:
                shown = f"{mine.mean_bps / 1e6:.2f}"
                cells.append(shown if mine.counted else f"({shown})")
        starts = [
            s.start_error_s
            for slot in rounds
            for s in slot.stations
            if s.student == station.student and s.start_error_s is not None
        ]
        cells += [
            _with_bounds(mbit_text(station.throughput.mean), station.throughput, "mbit"),
            _with_bounds(percent_text(station.share.mean), station.share, "share"),
            mbit_text(station.alone_bps),
            percent_text(station.contention_loss),
            offset_words(station.offset_s),
            "—" if not starts else f"+{ms_text(max(starts))}",
            "; ".join(f"{label}: {why}" for label, _s, why in station.left_out),
        ]
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if 2 <= column < len(cells) - 1:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, column, item)
    for offset, (who, status, why) in enumerate(left_at_start):
        row = len(result.stations) + offset
        table.setItem(row, 0, QTableWidgetItem(who))
        table.setItem(row, 1, QTableWidgetItem(status.value))
        table.setItem(row, len(headers) - 1, QTableWidgetItem(f"did not take part: {why}"))
    head = table.horizontalHeader()
    head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    head.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
