"""Lab exercises in the study layer: exercise files read and written, the ready exercises built
from LinkLab's presets, and a student's path through one (which step is next, the plan of a
step with its locked fields kept, the answers)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.domain.errors import BadOption
from app.domain.exercise import (
    EXERCISE_SUFFIX,
    LOCKABLE,
    MAX_EXERCISE_BYTES,
    Exercise,
    Step,
    exercise_from_dict,
    exercise_from_text,
    exercise_json,
    group_name,
    locked_differences,
    new_exercise_id,
    one_owner,
    refuse_locked,
    student_name,
)
from app.domain.plan import Assignment, Peer, Plan, clean_text
from app.domain.records import SessionRecord, SessionStatus
from app.resources import resource_dir
from app.store.db import Opener
from app.store.exercises import ExerciseStore, Work
from app.store.sessions import SessionStore
from app.study.lab.handin import handin_document
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.presets import find_preset

__all__ = [
    "EXERCISE_SUFFIX",
    "ExerciseDesk",
    "StepProgress",
    "build_exercise",
    "find_ready",
    "read_exercise",
    "ready_exercises",
    "write_exercise",
]


# -- files ---------------------------------------------------------------------------------------
def read_exercise(path: Path | str) -> Exercise:
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_EXERCISE_BYTES + 1)
    except OSError as err:
        raise BadOption(
            f"Cannot read {path} ({err.strerror or err}): check the name and that it is a file."
        ) from None
    if len(raw) > MAX_EXERCISE_BYTES:
        raise BadOption(
            f"{path.name} is larger than any LinkLab exercise: choose the .linklab-exercise "
            f"file your instructor gave you."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadOption(
            f"{path.name} is not a LinkLab exercise (it is not UTF-8 text): choose the "
            f".linklab-exercise file your instructor gave you."
        ) from None
    return exercise_from_file_text(text, path.name)


def exercise_from_file_text(text: str, name: str) -> Exercise:
    """An exercise file's text, or one of LinkLab's own templates (resources/exercises, whose
    steps may name a preset for their plan): both open the same way."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return exercise_from_text(text, name)  # raises the sentence for text that is not JSON
    if not isinstance(data, dict):
        return exercise_from_dict(data, name)
    return _from_template(data, name)


def write_exercise(path: Path | str, exercise: Exercise) -> Path:
    """Write atomically (a temporary file, then a rename); returns the path written."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(exercise_json(exercise), encoding="utf-8", newline="\n")
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise BadOption(
            f"Cannot write {path} ({err.strerror or err}): choose another place."
        ) from None
    return path


#: What Windows refuses in a file name (Linux only "/"), and the names it reserves.
_NOT_IN_NAMES = {
    ":": " -",
    "/": "-",
    "\\": "-",
    "?": "",
    "*": "",
    '"': "'",
    "<": "",
    ">": "",
    "|": "-",
}
_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{d}{n}" for d in ("COM", "LPT") for n in range(1, 10)}


def safe_file_name(title: str, fallback: str = "exercise") -> str:
    """A file name from a title that every system accepts (Windows is the strictest): no
    ? : * " < > | / \\ or control characters, no trailing dot or space, not a reserved name,
    at most 100 characters."""
    name = "".join(_NOT_IN_NAMES.get(c, c) for c in title if c >= " ")
    name = " ".join(name.split())[:100].rstrip(". ")
    if not name or name.partition(".")[0].upper() in _RESERVED:
        name = f"{name}_" if name else fallback
    return name


def ready_exercise_files(folder: Path) -> Path:
    """LinkLab's ready exercises as files a student can open (File › Open exercise…), in
    folder; each keeps its own id, so every copy is the same exercise to the Class tab."""
    folder.mkdir(parents=True, exist_ok=True)
    for exercise in ready_exercises():
        path = folder / f"{safe_file_name(exercise.title)}{EXERCISE_SUFFIX}"
        text = exercise_json(exercise)
        try:
            if path.read_text("utf-8") == text:
                continue
        except OSError:
            pass  # not written yet
        write_exercise(path, exercise)
    return folder


# -- ready exercises and new ones ------------------------------------------------------------
def _from_template(data: Mapping[str, Any], name: str) -> Exercise:
    """A shipped exercise: like a file, but each step may name a preset for its plan."""
    items = data.get("steps")
    if not isinstance(items, list):
        return exercise_from_dict(data, name)  # says what is wrong with its steps
    steps = []
    for n, item in enumerate(items, 1):
        step = dict(item) if isinstance(item, dict) else item
        preset = step.pop("preset", None) if isinstance(step, dict) else None
        if preset is not None:
            try:
                plan = find_preset(str(preset)).plan.to_dict()
            except BadOption:
                raise BadOption(
                    f"{name} names a preset this LinkLab does not have ({str(preset)[:60]!r}) "
                    f"for step {n}: update LinkLab, or ask your instructor for the file again."
                ) from None
            plan.pop("peer", None)
            own = step.get("plan", {})
            step["plan"] = {**plan, **(own if isinstance(own, dict) else {})}
        steps.append(step)
    return exercise_from_dict({**data, "steps": steps}, name)


def ready_names() -> dict[str, Exercise]:
    """The exercises LinkLab ships (resources/exercises), by file name."""
    found = {}
    for path in sorted((resource_dir() / "exercises").glob("*.json")):
        found[path.stem] = _from_template(json.loads(path.read_text("utf-8")), path.name)
    return found


def ready_exercises() -> list[Exercise]:
    return sorted(ready_names().values(), key=lambda e: e.title)


def find_ready(name: str) -> Exercise:
    ready = ready_names()
    if name not in ready:
        raise BadOption(
            f"LinkLab has no ready exercise {name!r}: choose one of {', '.join(sorted(ready))}."
        )
    return ready[name]


def build_exercise(
    title: str,
    presets: Sequence[str],
    *,
    lock: Sequence[str] = (),
    aims: str = "",
    questions: Sequence[str] = (),
    reveal: Sequence[str] = (),
) -> Exercise:
    """A new exercise with a step per preset (each locking the fields in lock)."""
    title = clean_text(title, 200)
    if not title:
        raise BadOption("Give the exercise a title (--title) that your students will see.")
    if not presets:
        raise BadOption("Name at least one preset (--preset NAME) for the exercise's steps.")
    unknown = [name for name in lock if name not in LOCKABLE]
    if unknown:
        raise BadOption(
            f"An exercise cannot lock {', '.join(unknown)}: choose among {', '.join(LOCKABLE)}."
        )
    steps = []
    for name in presets:
        preset = find_preset(name)
        steps.append(
            Step(preset.title, preset.description, preset.plan, tuple(dict.fromkeys(lock)))
        )
    data = json.loads(
        exercise_json(
            Exercise(new_exercise_id(), title, aims, tuple(steps), tuple(questions), tuple(reveal))
        )
    )
    return exercise_from_dict(data, f"The exercise “{title}”")  # checked as a file would be


# -- a student's path --------------------------------------------------------------------------
@dataclass(frozen=True)
class StepProgress:
    number: int  # 1-based
    step: Step
    sessions: tuple[SessionRecord, ...]  # measured for this step, oldest first
    available: bool  # every step before it is done

    @property
    def done_session(self) -> SessionRecord | None:
        """The latest session that finished this step's runs."""
        done = [s for s in self.sessions if s.status is SessionStatus.COMPLETED]
        return done[-1] if done else None

    @property
    def latest(self) -> SessionRecord | None:
        return self.sessions[-1] if self.sessions else None

    @property
    def done(self) -> bool:
        return self.done_session is not None

    @property
    def state(self) -> str:
        if self.done:
            return "done"
        if self.sessions:
            return "started"
        return "to do" if self.available else "locked"


class ExerciseDesk:
    """A student's work on exercises in one database."""

    def __init__(self, db_path: Path, open_db: Opener) -> None:
        self.db_path = db_path
        self._open = open_db

    def begin(self, exercise: Exercise, student: str, group: str = "") -> Work:
        with self._open(write=True) as db:
            return ExerciseStore(db).begin(exercise, student_name(student), group_name(group))

    def work(self, exercise: Exercise, student: str) -> Work | None:
        if not self.db_path.is_file():
            return None
        with self._open(write=False) as db:
            try:
                return ExerciseStore(db).work(exercise.id, student)
            except BadOption:
                return None

    def work_by_id(self, exercise_id: str, student: str) -> Work:
        with self._open(write=False) as db:
            return ExerciseStore(db).work(exercise_id, student)

    def answer(self, exercise: Exercise, student: str, question: str, text: str) -> Work:
        with self._open(write=True) as db:
            return ExerciseStore(db).answer(exercise.id, student, question, text)

    def progress(self, exercise: Exercise, student: str) -> list[StepProgress]:
        sessions: list[SessionRecord] = []
        if self.db_path.is_file():  # no database yet: nothing measured, step 1 is open
            with self._open(write=False) as db:
                store = SessionStore(db)
                ids = ExerciseStore(db).session_ids(exercise.id, student)
                sessions = [store.get(sid) for sid in ids]
        found = []
        available = True
        for number, step in enumerate(exercise.steps, 1):
            mine = tuple(
                s for s in sessions if s.plan.assignment and s.plan.assignment.step == number
            )
            progress = StepProgress(number, step, mine, available)
            found.append(progress)
            available = available and progress.done
        return found

    def next_step(self, exercise: Exercise, student: str) -> int:
        """The first step not done yet (the last when all are)."""
        for progress in self.progress(exercise, student):
            if not progress.done:
                return progress.number
        return len(exercise.steps)

    def plan_for(
        self,
        exercise: Exercise,
        number: int,
        *,
        student: str,
        group: str,
        peer: Peer,
        changed: Mapping[str, Any] | None = None,
        base: Plan | None = None,
    ) -> Plan:
        """The plan of step number for this student: the step's plan, with the changes given
        (plan fields by name) or the plan given as base, refusing any locked field changed."""
        if not 1 <= number <= len(exercise.steps):
            raise BadOption(
                f"The exercise has steps 1 to {len(exercise.steps)}: choose one of them."
            )
        step = exercise.steps[number - 1]
        if not self.progress(exercise, student)[number - 1].available:
            raise BadOption(
                f"Step {number} opens when step {number - 1} is done: finish the steps in order."
            )
        plan = base or step.plan
        if changed:
            plan = replace(plan, **changed)
        refuse_locked(exercise, step, locked_differences(step, plan))
        assignment = Assignment(
            exercise.id, exercise.title, number, student_name(student), group_name(group)
        )
        plan = replace(plan, peer=peer, assignment=assignment, name=plan.name or step.title)
        validate_plan(plan)
        return plan

    def handin(self, session_refs: Sequence[str]) -> dict[str, Any]:
        """The hand-in document of the sessions given (all of one student's work on one
        exercise)."""
        with self._open(write=False) as db:
            store = SessionStore(db)
            sessions = [store.get(ref) for ref in session_refs]
            owner = one_owner([s.plan for s in sessions])
            if owner is None:
                raise BadOption(
                    "A hand-in holds one student's sessions of one exercise: choose sessions "
                    "measured with the exercise open, under the same name."
                )
            exercise_id, student = owner
            return handin_document(db, exercise_id, student, [s.id for s in sessions])

    def handin_all(self, exercise: Exercise, student: str) -> dict[str, Any]:
        with self._open(write=False) as db:
            return handin_document(db, exercise.id, student)
