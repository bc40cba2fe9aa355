"""What a class measured together, worked out from what its stations reported (whenever it is
read, so that a report arriving late counts as soon as it is stored): per slot each station's
status, start, per-second figures and mean; per second and per round the total and Jain's
fairness index over the stations that count, the slowest and fastest named; over the rounds
each station's throughput and share with a mean and 95 % interval, and alone against together
its loss under contention. A station that does not count is never a zero share: it is named
with its reason."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.analysis.fairness import jain_index
from app.analysis.stats import EMPTY, Summary, summarize
from app.domain.together import Slot, SlotKind, StationStatus
from app.study.lab.together import FINAL, Together

__all__ = [
    "START_TOLERANCE_S",
    "Second",
    "SlotResult",
    "StationSlot",
    "StationSummary",
    "TogetherResult",
    "together_result",
]

#: A station whose engine started later than this after the slot's start is not counted: it
#: missed too much of what the others shared.
START_TOLERANCE_S = 0.5
#: How long after a slot's end a station's last word may take to arrive before the station is
#: taken to have dropped out (its outbox keeps trying; a late word still counts when it comes).
LAST_WORD_S = 8.0
_TERMINAL = frozenset(
    {
        StationStatus.OK,
        StationStatus.LATE,
        StationStatus.FAILED,
        StationStatus.DROPPED,
        StationStatus.SILENT,
    }
)


@dataclass(frozen=True)
class StationSlot:
    """One station in one slot."""

    student: str
    status: StationStatus
    reason: str  # why it does not count ("" when it does)
    mean_bps: float | None  # its mean throughput (the receiver's, once its last word came)
    figures: tuple[tuple[int, float], ...]  # (second 1…N, bit/s)
    start_error_s: float | None  # its engine's start minus the slot's, on the collector's clock
    final: bool  # its last word arrived (else the figures are those sent as it measured)

    @property
    def counted(self) -> bool:
        return self.status in (StationStatus.OK, StationStatus.RUNNING)


@dataclass(frozen=True)
class Second:
    second: int
    total_bps: float
    index: float | None
    stations: int  # how many stations' figures make it


@dataclass(frozen=True)
class SlotResult:
    slot: Slot
    stations: tuple[StationSlot, ...]
    total_bps: float | None
    index: float | None  # Jain's, over the stations that count
    slowest: str | None
    fastest: str | None
    start_spread_s: float | None  # the latest start minus the earliest, of those that started
    seconds: tuple[Second, ...]
    settled: bool  # every station's outcome is known
    provisional: bool  # figures still arriving: the index will change

    @property
    def counted(self) -> tuple[StationSlot, ...]:
        return tuple(s for s in self.stations if s.counted)

    def share(self, student: str) -> float | None:
        """A counted station's fraction of the total."""
        total = self.total_bps
        found = next((s for s in self.counted if s.student == student), None)
        if found is None or found.mean_bps is None or not total:
            return None
        return found.mean_bps / total


@dataclass(frozen=True)
class StationSummary:
    """One station over the rounds together (and alone)."""

    student: str
    offset_s: float | None
    delay_s: float | None
    throughput: Summary  # bit/s, over the rounds it counted in
    share: Summary  # fraction of each round's total
    alone_bps: float | None
    rounds_counted: int
    rounds: int
    left_out: tuple[tuple[str, StationStatus, str], ...]  # slot label, status, reason

    @property
    def contention_loss(self) -> float | None:
        """1 − together ÷ alone: what sharing the link cost it (negative: it gained)."""
        if self.alone_bps is None or not self.alone_bps or self.throughput.mean is None:
            return None
        return 1.0 - self.throughput.mean / self.alone_bps


@dataclass(frozen=True)
class TogetherResult:
    together: Together
    slots: tuple[SlotResult, ...]
    stations: tuple[StationSummary, ...]
    index: Summary  # Jain's index over the settled rounds together
    total: Summary  # bit/s, over the settled rounds together
    start_spread_s: float | None  # the largest spread of starts over the rounds
    state: str  # "waiting", "running" or "done"
    now: float

    @property
    def rounds(self) -> tuple[SlotResult, ...]:
        return tuple(s for s in self.slots if s.slot.kind is SlotKind.TOGETHER)

    @property
    def alone(self) -> tuple[SlotResult, ...]:
        return tuple(s for s in self.slots if s.slot.kind is SlotKind.ALONE)

    def slowest(self) -> StationSummary | None:
        ranked = [s for s in self.stations if s.throughput.mean is not None]
        return min(ranked, key=lambda s: s.throughput.mean or 0.0, default=None)

    def fastest(self) -> StationSummary | None:
        ranked = [s for s in self.stations if s.throughput.mean is not None]
        return max(ranked, key=lambda s: s.throughput.mean or 0.0, default=None)


def _seconds(figures: Sequence[Sequence[float]], length: int) -> tuple[tuple[int, float], ...]:
    """Each figure in the second it ends in (1…length); two in one second averaged."""
    found: dict[int, list[float]] = {}
    for end, bps in figures:
        second = min(max(round(end), 1), length)
        found.setdefault(second, []).append(bps)
    return tuple((s, statistics.fmean(v)) for s, v in sorted(found.items()))


def _station(
    student: str,
    slot: Slot,
    length: int,
    parts: dict[int, dict[str, Any]],
    now: float,
) -> StationSlot:
    final = parts.get(FINAL)
    live = [
        pair for part, body in sorted(parts.items()) if part != FINAL for pair in body["figures"]
    ]
    figures = _seconds(final["figures"] if final and final["figures"] else live, length)
    heard = len(figures)
    mean = statistics.fmean(bps for _, bps in figures) if figures else None
    start_error = None
    if final is not None:
        if final.get("started_at") is not None:
            start_error = float(final["started_at"]) - slot.start_at
        status = StationStatus(final["status"])
        reason = str(final.get("reason", ""))
        if final.get("mean_bps") is not None:
            mean = float(final["mean_bps"])
        if status is StationStatus.FAILED and heard:
            status = StationStatus.DROPPED
            reason = f"it dropped out after {heard} s of {length}: {reason.rstrip('.')}"
        elif status is StationStatus.FAILED:
            reason = f"its measurement failed: {reason.rstrip('.')}"
        elif status is StationStatus.LATE:
            reason = f"it could not start in time: {reason.rstrip('.')}"
        elif start_error is not None and abs(start_error) > START_TOLERANCE_S:
            status = StationStatus.LATE
            when = "after" if start_error > 0 else "before"
            reason = (
                f"it could not start in time: its engine started {abs(start_error):.2f} s "
                f"{when} the round's start (more than {START_TOLERANCE_S:g} s)"
            )
        return StationSlot(student, status, reason, mean, figures, start_error, True)
    end = slot.start_at + length
    if now < slot.start_at:
        return StationSlot(student, StationStatus.WAITING, "", None, (), None, False)
    if now < end + LAST_WORD_S:
        status = StationStatus.RUNNING if figures else StationStatus.WAITING
        return StationSlot(student, status, "", mean, figures, None, False)
    if figures:
        return StationSlot(
            student,
            StationStatus.DROPPED,
            f"it dropped out after {heard} s of {length}: nothing was heard from it since",
            mean,
            figures,
            None,
            False,
        )
    return StationSlot(
        student,
        StationStatus.SILENT,
        "nothing was heard from it for this measurement",
        None,
        (),
        None,
        False,
    )


def _slot(
    slot: Slot, length: int, reports: dict[str, dict[int, dict[str, Any]]], now: float
) -> SlotResult:
    stations = tuple(_station(s, slot, length, reports.get(s, {}), now) for s in slot.stations)
    counted = [s for s in stations if s.counted and s.mean_bps is not None]
    means = [s.mean_bps for s in counted if s.mean_bps is not None]
    total = math.fsum(means) if counted else None
    seconds = []
    for second in range(1, length + 1):
        here = [bps for s in counted for t, bps in s.figures if t == second]
        if here:
            seconds.append(Second(second, math.fsum(here), jain_index(here), len(here)))
    starts = [s.start_error_s for s in stations if s.start_error_s is not None]
    return SlotResult(
        slot,
        stations,
        total,
        jain_index(means) if len(means) > 1 else None,
        min(counted, key=lambda s: s.mean_bps or 0.0).student if counted else None,
        max(counted, key=lambda s: s.mean_bps or 0.0).student if counted else None,
        max(starts) - min(starts) if len(starts) > 1 else None,
        tuple(seconds),
        all(s.status in _TERMINAL for s in stations),
        any(s.status is StationStatus.RUNNING for s in stations),
    )


def together_result(
    together: Together, report_rows: Sequence[dict[str, Any]], now: float
) -> TogetherResult:
    """The results of one Start together from the reports stored so far."""
    reports: dict[int, dict[str, dict[int, dict[str, Any]]]] = {}
    for row in report_rows:
        per_slot = reports.setdefault(int(row["slot"]), {})
        per_slot.setdefault(row["student"], {})[int(row["part"])] = json.loads(row["body_json"])
    length = together.plan.seconds
    slots = tuple(_slot(s, length, reports.get(s.number, {}), now) for s in together.slots)
    rounds = [s for s in slots if s.slot.kind is SlotKind.TOGETHER]
    settled = [s for s in rounds if s.settled]
    summaries = []
    for station in together.stations:
        mine = [
            (r, next(s for s in r.stations if s.student == station.student))
            for r in rounds
            if station.student in r.slot.stations
        ]
        ok = [(r, s) for r, s in mine if s.status is StationStatus.OK]
        alone = next(
            (
                s
                for a in slots
                if a.slot.kind is SlotKind.ALONE and a.slot.stations == (station.student,)
                for s in a.stations
                if s.status is StationStatus.OK
            ),
            None,
        )
        left_out = tuple(
            (r.slot.label, s.status, s.reason)
            for a in slots
            for r, s in [(a, next((x for x in a.stations if x.student == station.student), None))]
            if s is not None and s.status in _TERMINAL and s.status is not StationStatus.OK
        )
        summaries.append(
            StationSummary(
                station.student,
                station.offset_s,
                station.delay_s,
                summarize(s.mean_bps for _, s in ok),
                summarize(r.share(station.student) for r, _ in ok),
                alone.mean_bps if alone is not None else None,
                len(ok),
                len(mine),
                left_out,
            )
        )
    spreads = [r.start_spread_s for r in rounds if r.start_spread_s is not None]
    if now < together.start_at:
        state = "waiting"
    elif all(s.settled for s in slots):
        state = "done"
    else:
        state = "running"
    return TogetherResult(
        together,
        slots,
        tuple(summaries),
        summarize(r.index for r in settled) if settled else EMPTY,
        summarize(r.total_bps for r in settled) if settled else EMPTY,
        max(spreads) if spreads else None,
        state,
        now,
    )
