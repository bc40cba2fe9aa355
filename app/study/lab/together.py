"""The collector's side of a class measuring together: a Start together made into a schedule
(one start time per slot on the collector's clock, the stations in it with the clock offsets
they checked in with; the stations that cannot take part left out with their reasons), each
station's schedule when it asks, and a station's report checked before it is stored."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.errors import BadOption
from app.domain.exercise import student_name
from app.domain.metrics import FIGURE
from app.domain.plan import clean_text
from app.domain.together import (
    Slot,
    SlotKind,
    StationStatus,
    TogetherPlan,
    slot_from_dict,
    slot_to_dict,
)
from app.store.class_store import ClassStore
from app.store.class_together import CheckinRow, ReportRow, TogetherRow

__all__ = [
    "FINAL",
    "GAP_S",
    "LEAD_S",
    "REPORT_FORMAT",
    "StationAt",
    "Together",
    "TogetherRefused",
    "assignment",
    "check_in",
    "check_report",
    "read_together",
    "schedule",
    "start_together",
    "station_name",
    "within",
]

REPORT_FORMAT = "linklab-together"
REPORT_VERSION = 1
#: From Start together to the first slot: every station, asking each half second, hears of
#: it and gets its engine ready in time.
LEAD_S = 4.0
#: Between one slot's end and the next one's start: the engines end their test and report,
#: the servers are free again.
GAP_S = 2.0
#: A station not heard from for this long when Start together is pressed has stopped waiting.
STALE_S = 10.0
#: Stations heard from longer ago than this are not named at all (another lesson's).
FORGOTTEN_S = 3600.0
#: The part number of a station's last word about a slot (its parts of figures are 0, 1, …).
FINAL = -1
MAX_PARTS = 10_000
MAX_REASON = 2000
_MAX_BPS = FIGURE["throughput_bps"].largest


class TogetherRefused(BadOption):
    """A Start together or a report the collector will not take, with the HTTP status."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status


@dataclass(frozen=True)
class StationAt:
    """A station as it was when the round was started: its clock's offset to the collector's
    (collector minus station, seconds), the round trip it was measured over, and its server."""

    student: str
    offset_s: float | None
    delay_s: float | None
    clock_problem: str
    host: str
    port: int | None


@dataclass(frozen=True)
class Together:
    """One Start together as stored."""

    id: str
    exercise_id: str
    plan: TogetherPlan
    slots: tuple[Slot, ...]
    stations: tuple[StationAt, ...]  # those in the schedule
    left_out: tuple[tuple[str, StationStatus, str], ...]  # student, why (status and words)
    created_at: str
    start_at: float
    end_at: float

    def station(self, student: str) -> StationAt | None:
        return next((s for s in self.stations if s.student == student), None)


def within(value: object, low: float, high: float) -> bool:
    """A JSON number from low to high: not true or false, not NaN or infinite, not an
    integer too large for a float (compared as it is, never converted first)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def station_name(value: object) -> str:
    """A station's name as it checked in; refused (422) when it gives none."""
    try:
        return student_name(str(value or ""))
    except BadOption as err:
        raise TogetherRefused(422, err.sentence) from None


def _natural(name: str) -> list[object]:
    """ "Station 2" before "Station 10"."""
    return [int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", name)]


def schedule(plan: TogetherPlan, stations: Sequence[str], start_at: float) -> tuple[Slot, ...]:
    """The slots of a plan: each station alone in turn (when asked), then every round with
    every station at once; one slot's seconds and a gap apart."""
    slots: list[Slot] = []
    at = start_at
    if plan.alone and len(stations) > 1:
        for student in stations:
            slots.append(Slot(len(slots), SlotKind.ALONE, 0, (student,), at))
            at += plan.seconds + GAP_S
    for number in range(1, plan.rounds + 1):
        slots.append(Slot(len(slots), SlotKind.TOGETHER, number, tuple(stations), at))
        at += plan.seconds + GAP_S
    return tuple(slots)


def check_in(store: ClassStore, data: object, now: float) -> CheckinRow:
    """A station's check-in (its name, exercise, the server it measures against and the clock
    offset it measured), stored."""
    if not isinstance(data, dict):
        raise TogetherRefused(422, "The check-in is not an object: update LinkLab.")
    student = station_name(data.get("student"))
    exercise_id = clean_text(data.get("exercise_id", ""), 100)
    offset, delay = data.get("offset_s"), data.get("delay_s")
    problem = clean_text(data.get("clock_problem", ""), MAX_REASON)
    exchanges = data.get("exchanges", 0)
    if not isinstance(exchanges, int) or isinstance(exchanges, bool) or not 0 <= exchanges < 1000:
        raise TogetherRefused(422, "The check-in's count of clock exchanges is not a count.")
    ten_years = 10 * 365 * 86400.0
    for value in (offset, delay):
        if value is not None and not within(value, -ten_years, ten_years):
            raise TogetherRefused(422, "The check-in's clock offset is not a number of seconds.")
    if (offset is None) != (delay is None) or (offset is None and not problem):
        raise TogetherRefused(
            422, "The check-in gives a clock offset without its round trip, or neither nor why."
        )
    host, port = data.get("host", ""), data.get("port")
    if (
        not isinstance(host, str)
        or len(host) > 300
        or not (
            port is None
            or (isinstance(port, int) and not isinstance(port, bool) and 0 < port < 65536)
        )
    ):
        raise TogetherRefused(422, "The check-in names a server that is not a host and a port.")
    host = clean_text(host, 300)
    row = CheckinRow(
        student,
        exercise_id,
        None if offset is None else float(offset),
        None if delay is None else float(delay),
        exchanges,
        "" if offset is not None else problem,
        host,
        port,
        now,
    )
    store.check_in(row)
    return row


def start_together(
    store: ClassStore,
    plan: TogetherPlan,
    now: float,
    exercise_id: str = "",
    lead_s: float = LEAD_S,
) -> Together:
    """Schedule a Start together for every station waiting; TogetherRefused (409) while
    another is under way or when no station can take part."""
    taking: list[dict[str, Any]] = []
    left_out: list[tuple[str, StationStatus, str]] = []
    for row in store.checkins():
        waited = now - float(row["seen_at"])
        if waited > FORGOTTEN_S:
            continue
        if waited > STALE_S:
            left_out.append(
                (
                    row["student"],
                    StationStatus.AWAY,
                    f"it had stopped waiting (last heard {waited:.0f} s before the start)",
                )
            )
        elif row["offset_s"] is None:
            left_out.append(
                (
                    row["student"],
                    StationStatus.NO_CLOCK,
                    "its clock offset to the collector could not be measured "
                    f"({row['clock_problem'].rstrip('.')})",
                )
            )
        else:
            taking.append(row)
    if not taking:
        said = "; ".join(f"{who}: {why}" for who, _, why in left_out)
        raise TogetherRefused(
            409,
            "No station is waiting to measure together: start LinkLab on each station with the "
            "exercise (linklab run --exercise FILE --wait-for-start), then press Start together "
            "again." + (f" Not taking part: {said}." if said else ""),
        )
    taking.sort(key=lambda r: _natural(r["student"]))
    names = [r["student"] for r in taking]
    slots = schedule(plan, names, now + lead_s)
    end_at = slots[-1].start_at + plan.seconds
    stations = tuple(
        StationAt(
            r["student"],
            float(r["offset_s"]),
            float(r["delay_s"]),
            "",
            r["host"],
            None if r["port"] is None else int(r["port"]),
        )
        for r in taking
    )
    together = Together(
        uuid.uuid4().hex,
        exercise_id,
        plan,
        slots,
        stations,
        tuple(left_out),
        "",
        slots[0].start_at,
        end_at,
    )
    busy = store.add_together(_row(together), now)
    if busy is not None:
        raise TogetherRefused(
            409,
            "The class is measuring together already: wait until its last round has ended "
            "(or read its results), then start again.",
        )
    return together


def _row(together: Together) -> TogetherRow:
    return TogetherRow(
        together.id,
        together.exercise_id,
        json.dumps(together.plan.to_dict()),
        json.dumps([slot_to_dict(s) for s in together.slots]),
        json.dumps(
            [
                {
                    "student": s.student,
                    "offset_s": s.offset_s,
                    "delay_s": s.delay_s,
                    "host": s.host,
                    "port": s.port,
                }
                for s in together.stations
            ]
        ),
        json.dumps([[who, status.value, why] for who, status, why in together.left_out]),
        together.start_at,
        together.end_at,
    )


def read_together(row: dict[str, Any]) -> Together:
    """A stored Start together as its typed value."""
    stations = tuple(
        StationAt(s["student"], s["offset_s"], s["delay_s"], "", s.get("host", ""), s.get("port"))
        for s in json.loads(row["stations_json"])
    )
    return Together(
        row["id"],
        row["exercise_id"],
        TogetherPlan.from_dict(json.loads(row["plan_json"])),
        tuple(slot_from_dict(s) for s in json.loads(row["schedule_json"])),
        stations,
        tuple((w, StationStatus(s), r) for w, s, r in json.loads(row["left_out_json"])),
        str(row["created_at"]),
        float(row["start_at"]),
        float(row["end_at"]),
    )


def assignment(store: ClassStore, student: str, now: float) -> dict[str, Any] | None:
    """What a station is to measure: the newest Start together not over yet that has it in a
    slot (the plan, its own slots, its recorded offset); None when none has."""
    for row in store.togethers(5):
        if float(row["end_at"]) <= now:
            continue
        full = store.together(row["id"])
        if full is None:
            continue
        together = read_together(full)
        mine = [s for s in together.slots if student in s.stations]
        station = together.station(student)
        if mine and station is not None:
            return {
                "together": together.id,
                "plan": together.plan.to_dict(),
                "slots": [slot_to_dict(s) for s in mine],
                "offset_s": station.offset_s,
                "host": station.host,
                "port": station.port,
            }
    return None


# -- a station's report ---------------------------------------------------------------------
def _refuse(problem: str) -> TogetherRefused:
    return TogetherRefused(422, f"The report {problem}: LinkLab refused it and stored nothing.")


def _figures(value: object) -> list[list[float]]:
    """[[second, bit/s], …]: each interval's end since the start and its throughput."""
    if not isinstance(value, list) or len(value) > 100_000:
        raise _refuse("has figures that are not a list")
    found = []
    for pair in value:
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not within(pair[0], 0, 86400)
            or not within(pair[1], 0, _MAX_BPS)
        ):
            raise _refuse("has a figure that is not a time and a throughput LinkLab can measure")
        found.append([float(pair[0]), float(pair[1])])
    return found


def _number(value: object, what: str, low: float, high: float) -> float | None:
    if value is None:
        return None
    if not within(value, low, high):
        raise _refuse(f"has a {what} that is not one")
    assert isinstance(value, int | float)
    return float(value)


def check_report(store: ClassStore, data: object) -> tuple[ReportRow, str]:
    """A station's report of one slot checked against the schedule it was given; the row to
    store and what it is, in words, for the collector's log."""
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        raise _refuse("is not a LinkLab report of a round together")
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _refuse("has no valid format_version")
    if version > REPORT_VERSION:
        raise TogetherRefused(
            422,
            f"The report was sent by a newer LinkLab (format {version}; this collector reads up "
            f"to {REPORT_VERSION}): update LinkLab on the instructor's computer.",
        )
    student = station_name(data.get("student"))
    together_id, slot_number, part = data.get("together"), data.get("slot"), data.get("part")
    if not isinstance(together_id, str) or len(together_id) > 64:
        raise _refuse("names no round together")
    if not isinstance(slot_number, int) or isinstance(slot_number, bool):
        raise _refuse("names no slot")
    if not isinstance(part, int) or isinstance(part, bool) or not FINAL <= part <= MAX_PARTS:
        raise _refuse("has no valid part")
    row = store.together(together_id)
    if row is None:
        raise TogetherRefused(
            404, "This collector never started that round together: nothing was stored."
        )
    together = read_together(row)
    if not 0 <= slot_number < len(together.slots) or student not in (
        together.slots[slot_number].stations
    ):
        raise _refuse(f"is of a slot {student} was not given")
    body: dict[str, Any] = {"figures": _figures(data.get("figures", []))}
    if part == FINAL:
        status = data.get("status")
        if status not in (StationStatus.OK, StationStatus.FAILED, StationStatus.LATE):
            raise _refuse("says neither that the run ended, failed nor started late")
        body |= {
            "status": status,
            "reason": str(data.get("reason", ""))[:MAX_REASON],
            "started_at": _number(data.get("started_at"), "start", 0, 1e11),
            "mean_bps": _number(data.get("mean_bps"), "mean throughput", 0, _MAX_BPS),
            "receiver": bool(data.get("receiver", False)),
            "session_id": str(data.get("session_id", ""))[:64],
        }
    text = json.dumps(body, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()
    slot = together.slots[slot_number]
    what = (
        f"{student}'s last word on {slot.label}"
        if part == FINAL
        else f"{student}'s figures of {slot.label} (part {part + 1})"
    )
    return ReportRow(together_id, slot_number, student, part, digest, text), what
