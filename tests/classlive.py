"""A class collected live, for the tests: a short exercise, one student's real runs of it on
the loopback (real iperf3, through `linklab run --exercise`), the pushes built from them, and
stations made from those runs (the same real raw output, told apart by the client's port so
that each station's measurement is its own)."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.domain.exercise import Exercise, Step, new_exercise_id
from app.domain.plan import Variable
from app.domain.records import iso
from app.store.db import Database
from app.study.lab.class_push import PushItem, station_pushes
from app.study.lab.exercises import find_ready, write_exercise
from tests.conftest import linklab

ADA = "Ada Lovelace"
TOKEN = "class-token-for-tests-0001"
#: The instructor's own credential: it registers the class's servers and reads the whole class.
INSTRUCTOR = "instructor-token-for-tests-0001"


def short_exercise() -> Exercise:
    """Two steps of the student lab cut to seconds: TCP at one packet size, two 1-s runs; then
    TCP at one window size, one run."""
    lab = find_ready("student-lab")
    sizes = replace(
        lab.steps[0].plan, variable=Variable.LENGTH, values=(1408,), repetitions=2, duration_s=1
    )
    from app.domain.net import Protocol

    sizes = replace(sizes, protocols=(Protocol.TCP,))
    window = replace(lab.steps[3].plan, values=(131072,), repetitions=1, duration_s=1)
    return Exercise(
        new_exercise_id(),
        "Live lab",
        "To see a class arrive as it measures.",
        (
            Step("Packet size", "Press Start.", sizes, ("protocol", "sizes", "runs")),
            Step("TCP window", "Press Start.", window, ("protocol", "sizes", "runs")),
        ),
        ("What did you learn?",),
    )


@dataclass(frozen=True)
class Measured:
    exercise: Exercise
    exercise_file: Path
    db: Path  # Ada's database: step 1 measured, one answer
    items: list[PushItem]  # what her station pushes: answers, the session, two runs


def measure_ada(root: Path) -> Measured:
    exercise = short_exercise()
    exercise_file = write_exercise(root / "live.linklab-exercise", exercise)
    db = root / "ada.sqlite3"
    done = linklab(
        "run", "--exercise", str(exercise_file), "--student", ADA, "--group", "G1",
        "--peer", "this-computer", "--db", str(db), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = linklab("exercise", "answer", str(exercise_file), "--student", ADA, "--question",
                   "E.1", "--text", "Windows matter.", "--db", str(db))  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Database(db, readonly=True) as database:
        items = list(station_pushes(database, exercise, ADA, set()))
    return Measured(exercise, exercise_file, db, items)


def body(item: PushItem) -> bytes:
    return json.dumps(item.document).encode("utf-8")


_PORTS = re.compile(r"(local \S+ port |\"local_port\":\s*)(\d+)")


def _later(moment: str, minutes: int) -> str:
    shifted = dt.datetime.fromisoformat(moment) + dt.timedelta(minutes=minutes)
    return iso(shifted)


def as_station(items: list[PushItem], number: int) -> list[PushItem]:
    """Ada's pushes as another station's: its own student, session and measurement (the raw
    output's client port changed, which no figure depends on)."""
    student = f"Station {number:02d}"
    session_id = uuid.uuid4().hex
    found = []
    for item in items:
        document: dict[str, Any] = copy.deepcopy(item.document)
        document["student"] = student
        sessions = document.get("sessions")
        if sessions is not None:
            session = sessions["sessions"][0]
            old = session["id"]
            session["id"] = session_id
            session["plan"]["assignment"]["student"] = student
            for run in session["runs"]:
                run["raw_output"] = _PORTS.sub(
                    lambda m: f"{m.group(1)}{20000 + number}", run["raw_output"]
                )
                for moment in ("started_at", "ended_at"):  # measured a little later
                    run[moment] = _later(run[moment], number)
            item_id = item.item_id.replace(old, session_id)
        else:
            item_id = item.item_id.replace(ADA, student)
        found.append(PushItem(item_id, document, item.once))
    return found


def write_station(folder: Path, items: list[PushItem]) -> Path:
    """A station's folder for tests/stations.py: its pushes, one JSON object a line."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {"item_id": i.item_id, "document": i.document, "digest": i.digest, "once": i.once}
        )
        for i in items
    ]
    (folder / "pushes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def store_url(kind: str, tmp_path: Path, pg_server: Any) -> str:
    """A fresh class store of this kind: an SQLite file, or a database of the test's own in
    the real PostgreSQL."""
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'class.sqlite3'}"
    return str(pg_server.new_database())
