"""The class view: a folder of hand-ins read into one row per student (steps and runs done, the
main result of each step beside the class median, deviations from the exercise's locked plan)
with flags for what an instructor must look at: incomplete, duplicate, altered, measured on
this computer, Wi-Fi measured by wire."""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.analysis.context_checks import measured_on_loopback, wifi_over_wire, wifi_stated
from app.domain.errors import BadOption
from app.domain.exercise import LOCKABLE, Exercise, Step, locked_differences
from app.domain.plan import RunKind, Series
from app.domain.records import RunRecord, SessionStatus
from app.domain.units import counted, plain_rate
from app.engine.drivers.reparse import reparsed_throughput
from app.store.rows import StoredSession
from app.study.lab.handin import Handin, RunFacts, read_handin

__all__ = [
    "ALTERED_SHARE",
    "ClassView",
    "StepResult",
    "StudentRow",
    "class_from_handins",
    "read_class",
    "run_facts",
]

#: A stored throughput further than this from what its raw output states was changed.
ALTERED_SHARE = 0.01
MAX_HANDINS = 2000


@dataclass(frozen=True)
class StepResult:
    number: int
    done: bool
    runs_done: int
    runs_planned: int  # the student's own plan, which may differ in unlocked fields
    main_bps: float | None  # mean throughput of the step's first series over all its runs
    series: Series | None
    curve: dict[float | str, float]  # swept value -> mean throughput (the class chart)
    deviations: tuple[str, ...]  # unlocked fields the student changed, in words


@dataclass(frozen=True)
class StudentRow:
    student: str
    group: str
    file: str
    steps: tuple[StepResult, ...]
    flags: tuple[
        str, ...
    ]  # incomplete, duplicate, altered, other exercise, this computer, not Wi-Fi
    notes: tuple[str, ...]  # a sentence per flag and per locked field changed
    answers: int  # questions answered
    handin: Handin | None = None

    @property
    def steps_done(self) -> int:
        return sum(s.done for s in self.steps)

    @property
    def runs_done(self) -> int:
        return sum(s.runs_done for s in self.steps)

    @property
    def runs_planned(self) -> int:
        return sum(s.runs_planned for s in self.steps)

    @property
    def status(self) -> str:
        return "complete" if "incomplete" not in self.flags else "incomplete"


@dataclass(frozen=True)
class ClassView:
    exercise: Exercise
    rows: tuple[StudentRow, ...]
    unreadable: tuple[str, ...] = ()  # one sentence per file that could not be read
    medians: tuple[float | None, ...] = field(default=())  # per step, of main_bps

    def median_curve(self, number: int) -> dict[float | str, tuple[float, float, float]]:
        """Per swept value of step number: (median, lower quartile, upper quartile)."""
        values: dict[float | str, list[float]] = {}
        for row in self.rows:
            for value, mean in row.steps[number - 1].curve.items():
                values.setdefault(value, []).append(mean)
        found = {}
        for value, means in sorted(values.items()):
            if len(means) >= 2:
                q1, _, q3 = statistics.quantiles(means, n=4, method="inclusive")
            else:
                q1 = q3 = means[0]
            found[value] = (statistics.median(means), q1, q3)
        return found


def run_facts(record: RunRecord) -> RunFacts:
    """A run's marks (the same raw output or the same figure at the same moment is the same
    measurement, whoever's name is on it) and whether its stored throughput disagrees with
    its own raw output."""
    marks = set()
    if record.raw_output:
        marks.add(hashlib.sha256(record.raw_output.encode("utf-8", "replace")).hexdigest())
    if record.ok and record.metrics.throughput_bps is not None:
        marks.add(f"{record.started_at}|{record.metrics.throughput_bps!r}")
    altered = False
    stored = record.metrics.throughput_bps
    if record.ok and stored is not None and record.raw_output:
        stated = reparsed_throughput(record.engine, record.argv, record.raw_output)
        altered = stated is None or stated <= 0 or abs(stored - stated) > ALTERED_SHARE * stated
    return RunFacts(altered, frozenset(marks))


def _facts(handin: Handin, record: RunRecord) -> RunFacts:
    known = handin.facts.get(record.id)
    return known if known is not None else run_facts(record)


def _fingerprint(handin: Handin, session: StoredSession) -> set[str]:
    marks: set[str] = set()
    for run in session.runs:
        marks |= _facts(handin, run.record).marks
    return marks


def _altered(handin: Handin, session: StoredSession) -> int:
    """How many runs' stored throughput disagrees with their own raw output."""
    return sum(_facts(handin, run.record).altered for run in session.runs)


def _unlocked_changes(step: Step, session: StoredSession) -> list[str]:
    plan = session.record.plan
    changed = []
    for name, (words, attributes) in LOCKABLE.items():
        if name in step.locked or "." in attributes[0]:
            continue
        mine, theirs = getattr(plan, attributes[0]), getattr(step.plan, attributes[0])
        if mine != theirs:
            changed.append(f"{words}: {_show(mine)} instead of {_show(theirs)}")
    return changed


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(_show(v) for v in value)
    return str(getattr(value, "value", value))


def _step_result(exercise: Exercise, number: int, sessions: Sequence[StoredSession]) -> StepResult:
    step = exercise.steps[number - 1]
    done_sessions = [s for s in sessions if s.record.status is SessionStatus.COMPLETED]
    candidates = done_sessions or list(sessions)
    if not candidates:
        return StepResult(number, False, 0, step.plan.total_runs, None, None, {}, ())
    chosen = candidates[-1]
    record = chosen.record
    ok = [r.record for r in chosen.runs if r.record.ok and r.record.key.kind is RunKind.STREAM]
    series = record.plan.series[0] if record.plan.series else None
    first = [r for r in ok if r.key.series == series and r.metrics.throughput_bps is not None]
    per_value: dict[float | str, list[float]] = {}
    for run in first:
        per_value.setdefault(run.value, []).append(run.metrics.throughput_bps or 0.0)
    curve = {v: statistics.fmean(xs) for v, xs in sorted(per_value.items())}
    main = statistics.fmean(r.metrics.throughput_bps or 0.0 for r in first) if first else None
    return StepResult(
        number,
        bool(done_sessions),
        sum(1 for r in chosen.runs if r.record.ok),
        record.total_runs,
        main,
        series,
        curve,
        tuple(_unlocked_changes(step, chosen)),
    )


def _row(handin: Handin, exercise: Exercise) -> tuple[StudentRow, set[str]]:
    by_step: dict[int, list[StoredSession]] = {}
    for session in handin.sessions.sessions:
        assignment = session.record.plan.assignment
        if assignment is not None and assignment.exercise_id == exercise.id:
            by_step.setdefault(assignment.step, []).append(session)
    steps = tuple(
        _step_result(exercise, n, by_step.get(n, [])) for n in range(1, len(exercise.steps) + 1)
    )
    flags: list[str] = []
    notes: list[str] = []
    if handin.exercise.id != exercise.id:
        flags.append("other exercise")
        notes.append(f"Handed in for “{handin.exercise.title}”, not this exercise.")
    missing = [s.number for s in steps if not s.done or s.runs_done < s.runs_planned]
    if missing:
        flags.append("incomplete")
        notes.append(f"Steps not finished: {', '.join(str(n) for n in missing)}.")
    altered = sum(_altered(handin, s) for sessions in by_step.values() for s in sessions)
    if altered:
        flags.append("altered")
        notes.append(
            f"{counted(altered, 'run')} whose stored throughput disagrees with "
            f"the engine's own output."
        )
    for number, sessions in by_step.items():
        if not 1 <= number <= len(exercise.steps):
            continue
        for session in sessions:
            changed = locked_differences(exercise.steps[number - 1], session.record.plan)
            if changed:
                if "altered" not in flags:
                    flags.append("altered")
                words = ", ".join(LOCKABLE[n][0] for n in changed)
                notes.append(f"Step {number} changed what the exercise locks: {words}.")
    _where_measured(steps, by_step, flags, notes)
    marks: set[str] = set()
    for sessions in by_step.values():
        for session in sessions:
            marks |= _fingerprint(handin, session)
    row = StudentRow(
        handin.student,
        handin.group,
        handin.file.name if handin.file else "",
        steps,
        tuple(flags),
        tuple(notes),
        sum(1 for text in handin.answers.values() if text.strip()),
        handin,
    )
    return row, marks


def _where_measured(
    steps: Sequence[StepResult],
    by_step: dict[int, list[StoredSession]],
    flags: list[str],
    notes: list[str],
) -> None:
    """Steps whose numbers are not the link's: measured on this computer's loopback, or
    labelled Wi-Fi (its security or its medium) but measured by wire."""
    for number, sessions in sorted(by_step.items()):
        if not 1 <= number <= len(steps):
            continue
        main = steps[number - 1].main_bps
        figure = f"its {plain_rate(main)}" if main is not None else "its throughput"
        records = [s.record for s in sessions]
        if any(measured_on_loopback(r.plan, r.environment) for r in records):
            if "this computer" not in flags:
                flags.append("this computer")
            notes.append(
                f"Step {number} was measured against this computer (the loopback), not across "
                f"the link: {figure} says nothing about the network."
            )
            continue
        for record in records:
            wire = wifi_over_wire(record.plan, record.environment)
            if wire is not None:
                if "not Wi-Fi" not in flags:
                    flags.append("not Wi-Fi")
                notes.append(
                    f"Step {number} is labelled Wi-Fi ({wifi_stated(record.plan)}) but was "
                    f"measured {wire}: {figure} says nothing about the Wi-Fi link."
                )
                break


def _handin_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise BadOption(f"{folder} is not a folder: choose the folder the hand-ins were saved in.")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == ".linklab")
    if len(files) > MAX_HANDINS:
        raise BadOption(f"{folder} holds more than {MAX_HANDINS} hand-ins: split the class.")
    return files


def read_class(sources: Path | Iterable[Path], exercise: Exercise | None = None) -> ClassView:
    """Every hand-in of a folder (or the files given), against exercise (default: the one
    the most hand-ins were made for)."""
    files = _handin_files(sources) if isinstance(sources, Path) else list(sources)
    handins: list[Handin] = []
    unreadable: list[str] = []
    for path in files:
        try:
            handins.append(read_handin(path))
        except BadOption as err:
            unreadable.append(f"{path.name}: {err.sentence}")
    if exercise is None and not handins:
        raise BadOption(
            "No hand-in could be read there: choose the folder of .linklab files the "
            "students handed in."
        )
    return class_from_handins(handins, exercise, unreadable)


def _duplicate_notes(row: StudentRow, twins: Sequence[StudentRow]) -> list[str]:
    """Whose measurements these are too: another student's, or this student's own hand-in
    given twice (listed once per file, so the instructor keeps one)."""
    notes = []
    others = sorted({t.student for t in twins if t.student != row.student})
    if others:
        notes.append(f"The same measurements as {', '.join(others)}.")
    again = [t for t in twins if t.student == row.student]
    if again:
        files = sorted({t.file for t in again if t.file})
        where = f" (also in {', '.join(files)})" if files else ""
        notes.append(
            f"Handed in more than once: the same measurements under this name{where}; keep "
            f"one of them."
        )
    return notes


def class_from_handins(
    handins: Sequence[Handin], exercise: Exercise | None = None, unreadable: Sequence[str] = ()
) -> ClassView:
    """The class of these hand-ins (from files, or collected live), against exercise (default:
    the one the most hand-ins were made for)."""
    if exercise is None:
        if not handins:
            raise BadOption("No student's work has arrived yet: nothing to show.")
        counts = statistics.multimode(h.exercise.id for h in handins)
        exercise = next(h.exercise for h in handins if h.exercise.id == counts[0])
    built = [_row(h, exercise) for h in handins]
    rows = []
    for index, (row, marks) in enumerate(built):
        twins = [other for j, (other, their) in enumerate(built) if j != index and marks & their]
        if twins:
            row = StudentRow(
                row.student,
                row.group,
                row.file,
                row.steps,
                (*row.flags, "duplicate"),
                (*row.notes, *_duplicate_notes(row, twins)),
                row.answers,
                row.handin,
            )
        rows.append(row)
    rows.sort(key=lambda r: (r.group.lower(), r.student.lower()))
    medians = []
    for number in range(1, len(exercise.steps) + 1):
        mains = [r.steps[number - 1].main_bps for r in rows]
        known = [m for m in mains if m is not None]
        medians.append(statistics.median(known) if known else None)
    return ClassView(exercise, tuple(rows), tuple(unreadable), tuple(medians))
