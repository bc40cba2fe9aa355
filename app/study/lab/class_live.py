"""A class collected live: its view built from the class store (the same rows, flags and
medians as a folder of hand-ins: app.study.lab.classroom), and that view as the JSON the
collector serves and the Class tab and `linklab class URL` read back."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from app.domain.errors import BadOption
from app.domain.exercise import Exercise, exercise_from_dict, exercise_from_text, exercise_to_dict
from app.domain.net import IpVersion, Protocol
from app.domain.plan import RunKey, RunKind, Series
from app.domain.plan_codec import plan_from_dict
from app.domain.records import (
    METRIC_FIELDS,
    RunMetrics,
    RunRecord,
    SessionRecord,
    SessionStatus,
)
from app.store.class_store import ClassRows, ClassStore
from app.store.rows import StoredRun, StoredSession
from app.study.files.exchange import ExchangeFile
from app.study.lab.classroom import ClassView, StepResult, StudentRow, class_from_handins
from app.study.lab.exercises import read_exercise
from app.study.lab.handin import Handin, RunFacts

__all__ = [
    "CLASS_FORMAT",
    "choose_exercise",
    "is_file",
    "live_class",
    "view_from_wire",
    "view_to_wire",
]

CLASS_FORMAT = "linklab-class"
CLASS_VERSION = 1


# -- from the store ----------------------------------------------------------------------------
def choose_exercise(store: ClassStore, wanted: str | None, *, files: bool = True) -> Exercise:
    """The exercise of the class view: the one named (an exercise file, its id or its title),
    or the one most students pushed work for. Without files a name is never opened as a file
    (what a collector's request names is not a path on the instructor's computer)."""
    if files and wanted and is_file(wanted):
        return read_exercise(wanted)
    known = [
        exercise_from_text(row["exercise_json"], "A stored exercise") for row in store.exercises()
    ]
    if not known:
        raise BadOption(
            "No student's work has arrived yet: start the students' LinkLab with the exercise "
            "and this collector's address, then look again."
        )
    if not wanted:
        return known[0]
    folded = wanted.strip().casefold()
    for exercise in known:
        if exercise.id == wanted or exercise.title.casefold() == folded:
            return exercise
    titles = "; ".join(f"“{e.title}”" for e in known[:10])
    raise BadOption(f"No work for an exercise {wanted!r} has arrived: the class has {titles}.")


def is_file(name: str) -> bool:
    """Whether name is a file here (a name too long for a path, or with a NUL, is not)."""
    try:
        return Path(name).is_file()
    except (OSError, ValueError):
        return False


def _session(header: dict[str, Any], runs: list[StoredRun]) -> StoredSession:
    plan = plan_from_dict(header["plan"])
    record = SessionRecord(
        id=header["id"],
        name=header["name"],
        peer_host=plan.peer.host,
        plan=plan,
        environment=header.get("environment") or {},
        status=SessionStatus(header["status"]),
        status_reason=header.get("status_reason", ""),
        created_at=header["created_at"],
        started_at=header.get("started_at"),
        ended_at=header.get("ended_at"),
        app_version=header.get("app_version", ""),
        total_runs=int(header["total_runs"]),
        runs_done=len(runs),
        runs_failed=sum(not r.record.ok for r in runs),
    )
    return StoredSession(record, tuple(runs))


def _run(number: int, session_id: str, data: dict[str, Any]) -> RunRecord:
    """A run as the collector keeps it for the class view: checked when it arrived, so read
    as it is; its raw output stays in the store (its facts were worked out then)."""
    metrics = data.get("metrics") or {}
    return RunRecord(
        id=number,
        session_id=session_id,
        key=RunKey(
            Protocol(data["protocol"]),
            IpVersion(int(data["ip_version"])),
            int(data["value_index"]),
            int(data["repetition"]),
            RunKind(data["kind"]),
        ),
        value=float(data["value"]),
        ok=data["status"] == "ok",
        error_kind=data.get("error_kind", ""),
        error=data.get("error", ""),
        attempts=int(data.get("attempts", 1)),
        started_at=data["started_at"],
        ended_at=data["ended_at"],
        elapsed_s=data.get("elapsed_s"),
        engine=data["engine"],
        engine_version=data.get("engine_version", ""),
        argv=tuple(data.get("argv", ())),
        metrics=RunMetrics(**{k: metrics.get(k) for k in METRIC_FIELDS}),
    )


def handins_from_rows(rows: ClassRows) -> list[Handin]:
    """Each student's work as a hand-in (without raw outputs: their facts come along)."""
    runs: dict[str, list[StoredRun]] = {}
    facts: dict[str, dict[int, RunFacts]] = {}
    owner = {row["id"]: row["student"] for row in rows.sessions}
    for row in rows.runs:
        record = _run(int(row["id"]), row["session_id"], json.loads(row["light_json"]))
        runs.setdefault(row["session_id"], []).append(StoredRun(record, (), "[]"))
        marks = frozenset(json.loads(row["marks_json"]))
        student = owner.get(row["session_id"], "")
        facts.setdefault(student, {})[record.id] = RunFacts(bool(row["altered"]), marks)
    sessions: dict[str, list[StoredSession]] = {}
    headers = [(json.loads(row["header_json"]), row) for row in rows.sessions]
    for header, row in sorted(headers, key=lambda pair: str(pair[0]["created_at"])):
        stored = _session(header, runs.get(row["id"], []))
        sessions.setdefault(row["student"], []).append(stored)
    exercises: dict[str, Exercise] = {}  # most students pushed the very same exercise text
    found = []
    for work in rows.work:
        student = work["student"]
        answers = json.loads(work["answers_json"] or "{}")
        text = work["exercise_json"]
        if text not in exercises:
            exercises[text] = exercise_from_text(text, "A stored exercise")
        found.append(
            Handin(
                student,
                work["group_name"],
                exercises[text],
                {str(k): str(v) for k, v in answers.items()},
                work["updated_at"],
                ExchangeFile(2, "", "", tuple(sessions.get(student, []))),
                None,
                facts.get(student, {}),
            )
        )
    return found


def live_class(store: ClassStore, exercise: Exercise) -> ClassView:
    """The class of exercise as its students pushed it so far."""
    rows = store.class_rows(exercise.id)
    return class_from_handins(handins_from_rows(rows), exercise)


# -- over the wire ------------------------------------------------------------------------------
def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def view_to_wire(view: ClassView, changes: int = 0) -> dict[str, Any]:
    """The class view as the collector serves it: everything the Class tab shows."""
    return {
        "format": CLASS_FORMAT,
        "format_version": CLASS_VERSION,
        "changes": changes,
        "exercise": exercise_to_dict(view.exercise),
        "unreadable": list(view.unreadable),
        "medians": [_number(m) for m in view.medians],
        "rows": [
            {
                "student": row.student,
                "group": row.group,
                "file": row.file,
                "flags": list(row.flags),
                "notes": list(row.notes),
                "answers": row.answers,
                "steps": [
                    {
                        "number": step.number,
                        "done": step.done,
                        "runs_done": step.runs_done,
                        "runs_planned": step.runs_planned,
                        "main_bps": _number(step.main_bps),
                        "series": None
                        if step.series is None
                        else [step.series.protocol.value, int(step.series.ip_version)],
                        "curve": [[v, _number(m)] for v, m in step.curve.items()],
                        "deviations": list(step.deviations),
                    }
                    for step in row.steps
                ],
            }
            for row in view.rows
        ],
    }


def _bad(problem: str) -> BadOption:
    return BadOption(
        f"The collector sent a class LinkLab cannot read ({problem}): update LinkLab on both "
        f"computers to the same version."
    )


def _texts(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(f"{what} is not a list of texts")
    return tuple(value)


def _figure(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _bad(f"{what} is not a number")
    return float(value)


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"{what} is not a count")
    return value


def _step(data: object) -> StepResult:
    if not isinstance(data, dict):
        raise _bad("a step is not an object")
    series = data.get("series")
    try:
        found = None if series is None else Series(Protocol(series[0]), IpVersion(series[1]))
    except (TypeError, ValueError, IndexError, KeyError):
        raise _bad("a step's series is unknown") from None
    curve_data = data.get("curve")
    if not isinstance(curve_data, list):
        raise _bad("a step's curve is not a list")
    curve: dict[float | str, float] = {}
    for point in curve_data:
        if not isinstance(point, list) or len(point) != 2:
            raise _bad("a point of a curve is not a pair")
        value, mean = _figure(point[0], "a swept value"), _figure(point[1], "a mean")
        if value is not None and mean is not None:
            curve[value] = mean
    return StepResult(
        _count(data.get("number"), "a step's number"),
        bool(data.get("done")),
        _count(data.get("runs_done"), "runs done"),
        _count(data.get("runs_planned"), "runs planned"),
        _figure(data.get("main_bps"), "a step's result"),
        found,
        curve,
        _texts(data.get("deviations", []), "a step's deviations"),
    )


def view_from_wire(data: object) -> tuple[ClassView, int]:
    """A class view the collector served, and its change count; BadOption when it is not one."""
    if not isinstance(data, dict) or data.get("format") != CLASS_FORMAT:
        raise _bad("it is not a LinkLab class")
    if data.get("format_version") != CLASS_VERSION:
        raise _bad(f"class format {data.get('format_version')!r}")
    exercise = exercise_from_dict(data.get("exercise"), "The class's exercise")
    rows = []
    raw_rows = data.get("rows")
    if not isinstance(raw_rows, list):
        raise _bad("its rows are not a list")
    for item in raw_rows:
        if not isinstance(item, dict) or not isinstance(item.get("student"), str):
            raise _bad("a row names no student")
        steps = item.get("steps")
        if not isinstance(steps, list) or len(steps) != len(exercise.steps):
            raise _bad("a row's steps do not match the exercise")
        rows.append(
            StudentRow(
                item["student"],
                str(item.get("group", "")),
                str(item.get("file", "")),
                tuple(_step(s) for s in steps),
                _texts(item.get("flags", []), "a row's flags"),
                _texts(item.get("notes", []), "a row's notes"),
                _count(item.get("answers", 0), "answers"),
            )
        )
    medians = data.get("medians")
    if not isinstance(medians, list) or len(medians) != len(exercise.steps):
        raise _bad("the medians do not match the exercise")
    view = ClassView(
        exercise,
        tuple(rows),
        _texts(data.get("unreadable", []), "the files not read"),
        tuple(_figure(m, "a median") for m in medians),
    )
    return view, _count(data.get("changes", 0), "the change count")
