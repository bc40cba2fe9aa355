"""What a student's LinkLab pushes to the class's collector, and how the collector checks it.

A push is one JSON document: the student, group and exercise, then either their answers or one
session's header with at most one finished run, in the session exchange format (so it is
checked exactly as an import is: app.study.files.exchange) and scrubbed as a hand-in is
(app.study.lab.handin). A run is known by its id, its session's id and its run key: sent again, it
is the same run; the same measurement under another id is a replay."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from app.domain.errors import BadOption
from app.domain.exercise import (
    MAX_ANSWER,
    Exercise,
    exercise_from_dict,
    exercise_json,
    exercise_to_dict,
    group_name,
    student_name,
)
from app.domain.plan import RunKey, clean_text
from app.store.class_store import PushRow, RunRow, SessionRow
from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.sessions import SessionStore
from app.study.files.exchange import exchange_from_data
from app.study.lab.classroom import run_facts
from app.study.lab.handin import handin_document

__all__ = [
    "PUSH_FORMAT",
    "PUSH_VERSION",
    "CheckedPush",
    "PushItem",
    "check_push",
    "run_id",
    "station_pushes",
]

PUSH_FORMAT = "linklab-push"
PUSH_VERSION = 1
_MAX_SEQ = 2**63 - 1
_RUN_PARTS = ("raw_output", "samples", "flows")

_seq_lock = threading.Lock()
_last_seq = 0


def next_seq() -> int:
    """A number that grows with every document this computer builds (microseconds since
    1970, kept increasing): the collector keeps the newest state of a session or answers."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(_last_seq + 1, time.time_ns() // 1000)
        return _last_seq


def run_id(session_id: str, key: RunKey) -> str:
    """A run's identity anywhere: its session and its place in the plan."""
    return (
        f"{session_id}/{key.protocol.value}{int(key.ip_version)}/{key.kind.value}/"
        f"{key.value_index}/{key.repetition}"
    )


# -- the station's side ------------------------------------------------------------------------
@dataclass(frozen=True)
class PushItem:
    """One document to push: item ids say what it is (run:…, session:…, answers:…); a run's is
    pushed once, a session's header and the answers again whenever they change."""

    item_id: str
    document: dict[str, Any]
    once: bool  # a run: never replaced once queued

    @property
    def digest(self) -> str:
        """What the item says: the same for a header sent again unchanged."""
        document = {k: v for k, v in self.document.items() if k != "seq"}
        if isinstance(document.get("sessions"), dict):
            document["sessions"] = document["sessions"].get("sessions")
        return _digest(document)


def _digest(document: object) -> str:
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _head(about: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": PUSH_FORMAT,
        "format_version": PUSH_VERSION,
        "seq": next_seq(),
        "student": about["student"],
        "group": about["group"],
        "exercise": about["exercise"],
    }


def station_pushes(
    db: Database, exercise: Exercise, student: str, known: set[str]
) -> Iterator[PushItem]:
    """What the station has to push for this student's work on exercise: the answers, each
    session's header (its status), and every finished run whose item is not in known."""
    exercises = ExerciseStore(db)
    work = exercises.work(exercise.id, student)
    about = {
        "student": work.student,
        "group": work.group,
        "exercise": exercise_to_dict(replace(work.exercise, collector=None)),
    }
    yield PushItem(
        f"answers:{exercise.id}:{work.student}",
        _head(about) | {"answers": dict(work.answers)},
        once=False,
    )
    store = SessionStore(db)
    for session_id in exercises.session_ids(exercise.id, work.student):
        header = handin_document(db, exercise.id, work.student, [session_id], only_runs=())
        header.pop("handin")
        yield PushItem(f"session:{session_id}", _head(about) | {"sessions": header}, once=False)
        for record in store.runs(session_id):
            item = f"run:{run_id(session_id, record.key)}"
            if item in known:
                continue
            document = handin_document(
                db, exercise.id, work.student, [session_id], only_runs=(record.id,)
            )
            document.pop("handin")
            yield PushItem(item, _head(about) | {"sessions": document}, once=True)


# -- the collector's side ------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckedPush:
    row: PushRow
    what: str  # in words, for the collector's log: "Ann Lee's run 3 of session 1a2b3c4d"


def _refuse(problem: str) -> BadOption:
    return BadOption(f"The push {problem}: LinkLab refused it and stored nothing.")


def check_push(data: object) -> CheckedPush:
    """Check a push as an import is checked; BadOption with one sentence for the first fault.
    The figures, texts and sizes are those of app.study.files.exchange."""
    if not isinstance(data, dict) or data.get("format") != PUSH_FORMAT:
        raise _refuse("is not a LinkLab push")
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _refuse("has no valid format_version")
    if version > PUSH_VERSION:
        raise BadOption(
            f"The push was sent by a newer LinkLab (push format {version}; this collector reads "
            f"up to {PUSH_VERSION}): update LinkLab on the instructor's computer."
        )
    seq = data.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq <= _MAX_SEQ:
        raise _refuse("has no valid seq")
    raw_student = data.get("student")
    if not isinstance(raw_student, str):
        raise _refuse("names no student")
    student = student_name(raw_student)
    group = data.get("group", "")
    if not isinstance(group, str):
        raise _refuse("has a group that is not text")
    exercise = exercise_from_dict(data.get("exercise"), "The push's exercise")
    exercise = replace(exercise, collector=None)
    answers_json = None
    if "answers" in data:
        answers_json = json.dumps(_answers(data["answers"], exercise), ensure_ascii=False)
    session_row = run_row = None
    what = f"{student}'s answers"
    if "sessions" in data:
        session_row, run_row, what = _session(data["sessions"], exercise, student, seq)
    elif answers_json is None:
        raise _refuse("holds neither answers nor a session")
    row = PushRow(
        exercise.id,
        student,
        group_name(group),
        exercise_json(exercise),
        seq,
        answers_json,
        session_row,
        run_row,
    )
    return CheckedPush(row, what)


def _answers(value: object, exercise: Exercise) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _refuse("has answers that are not an object")
    known = {qid for qid, _ in exercise.question_ids()}
    answers = {}
    for key, text in value.items():
        if key not in known or not isinstance(text, str) or len(text) > MAX_ANSWER:
            raise _refuse(f"has an answer to {str(key)[:20]!r} that the exercise does not ask")
        answers[key] = clean_text(text, MAX_ANSWER)
    return answers


def _session(
    document: object, exercise: Exercise, student: str, seq: int
) -> tuple[SessionRow, RunRow | None, str]:
    try:
        checked = exchange_from_data(document, "The push")  # every figure within its bounds
    except BadOption as err:  # said of a file: said here of the push
        sentence = err.sentence.replace("The file holds", "The push holds", 1)
        raise BadOption(
            sentence.replace(
                ": the file is damaged; ask for a new export.",
                ": LinkLab refused it and stored nothing.",
            )
        ) from None
    if len(checked.sessions) != 1 or len(checked.sessions[0].runs) > 1:
        raise _refuse("must hold one session and at most one run")
    session = checked.sessions[0]
    record = session.record
    assignment = record.plan.assignment
    if (
        assignment is None
        or assignment.exercise_id != exercise.id
        or student_name(assignment.student) != student
        or not 1 <= assignment.step <= len(exercise.steps)
    ):
        raise _refuse("holds a session measured for another exercise, step or student")
    assert isinstance(document, dict)  # exchange_from_data checked it
    raw_session = document["sessions"][0]
    header = {k: v for k, v in raw_session.items() if k != "runs"}
    session_row = SessionRow(record.id, seq, json.dumps(header, ensure_ascii=False))
    what = f"{student}'s session {record.short_id} ({record.status.value})"
    if not session.runs:
        return session_row, None, what
    run = session.runs[0]
    raw_run = raw_session["runs"][0]
    facts = run_facts(run.record)
    raw = run.record.raw_output
    ok_raw = run.record.ok and bool(raw)
    run_row = RunRow(
        run_id=run_id(record.id, run.record.key),
        digest=_digest(raw_run),
        raw_digest=hashlib.sha256(
            run.record.raw_output.encode("utf-8", "surrogatepass")
        ).hexdigest()
        if ok_raw
        else None,
        light_json=json.dumps(
            {k: v for k, v in raw_run.items() if k not in _RUN_PARTS}, ensure_ascii=False
        ),
        altered=facts.altered,
        marks_json=json.dumps(sorted(facts.marks)),
        raw_output=run.record.raw_output,
        samples_json=json.dumps(raw_run.get("samples", []), allow_nan=False),
        flows_json=run.flows_json,
    )
    key = run.record.key
    what = (
        f"{student}'s run {key.protocol.value.upper()}·IPv{int(key.ip_version)} point "
        f"{key.value_index + 1} repetition {key.repetition} of session {record.short_id}"
    )
    return session_row, run_row, what
