"""A class's hand-ins without measuring: each student's sessions stored the way the runner
stores them (in a database of their own, as on their own laptop) with plausible Wi-Fi figures,
then handed in as `linklab export --format handin` does. For the Class tab's tests and for
`make screenshots`."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from app.domain.exercise import Exercise
from app.domain.net import Protocol
from app.domain.plan import Assignment, Peer, Plan, RunKey, Variable
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.sessions import SessionStore
from app.study.files.exchange import write_exchange
from app.study.lab.handin import handin_document

LAB_PEER = Peer("192.168.1.20")


@dataclass(frozen=True)
class Student:
    name: str
    group: str
    steps: int  # how many steps, from the first, the student measured
    level: float = 1.0  # their link against the class's typical one
    copy_of: str = ""  # hands in this student's file under their own name
    peer: Peer = LAB_PEER  # the lab's second computer, across the link
    wired: bool = False  # their computer reached the peer by cable, whatever they stated


def throughput(plan: Plan, key: RunKey, level: float) -> float:
    """A figure shaped like the student lab's results (bit/s), a little noise per run."""
    value = plan.values[key.value_index]
    udp = key.protocol is Protocol.UDP
    if plan.variable is Variable.LENGTH:
        base = 45e6 * (1 - math.exp(-value / 350)) * (1.08 if udp else 1.0)
    elif plan.variable is Variable.WINDOW:
        base = 46e6 * (1 - math.exp(-value / 24_000))
    elif plan.variable is Variable.LOSS:
        base = 29e6 * (1 - value / 100) if udp else 42e6 * math.exp(-value / 7)
    else:
        base = 29e6 if udp else 41e6
    noise = 1 + 0.015 * math.sin(7 * key.repetition + 3 * key.value_index + 11 * level)
    return base * level * noise


def _measure(path: Path, exercise: Exercise, student: Student) -> None:
    with Database(path) as db:
        ExerciseStore(db).begin(exercise, student.name, student.group)
        store = SessionStore(db)
        for number, step in enumerate(exercise.steps[: student.steps], 1):
            assignment = Assignment(exercise.id, exercise.title, number, student.name,
                                    student.group)  # fmt: skip
            plan = replace(step.plan, peer=student.peer, assignment=assignment, name=step.title)
            environment: dict[str, object] = {"os_name": "Debian GNU/Linux 12 (bookworm)"}
            if student.wired:
                environment |= {"interface": "eth0", "interface_speed_mbps": 1000}
            sid = store.create_session(plan, environment)
            for key in plan.run_keys():
                store.add_run(
                    sid,
                    key,
                    float(plan.values[key.value_index]),
                    metrics=RunMetrics(throughput_bps=throughput(plan, key, student.level)),
                    started_at=utc_now(),
                    elapsed_s=float(plan.duration_s),
                    engine=plan.engine.value,
                )
            store.finish(sid, SessionStatus.COMPLETED)
        if exercise.question_ids():
            question = exercise.question_ids()[0][0]
            ExerciseStore(db).answer(exercise.id, student.name, question, "As the chart shows.")


def file_name(student: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in student.lower()) + ".linklab"


def write_class(
    folder: Path, databases: Path, exercise: Exercise, students: Sequence[Student]
) -> list[Path]:
    """Each student's hand-in written into folder (their databases into databases)."""
    folder.mkdir(parents=True, exist_ok=True)
    databases.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for student in students:
        out = folder / file_name(student.name)
        if student.copy_of:
            document = json.loads(written[student.copy_of].read_text(encoding="utf-8"))
            document["handin"]["student"] = student.name
            document["handin"]["group"] = student.group
        else:
            db = databases / f"{file_name(student.name)}.sqlite3"
            _measure(db, exercise, student)
            with Database(db, readonly=True) as database:
                document = handin_document(database, exercise.id, student.name)
        write_exchange(out, document)
        written[student.name] = out
    return list(written.values())
