"""The fuzz seeds: real engine outputs (the captured ones beside the repository and those in
tests/data, read where they are), and the files LinkLab writes from a study measured with
them: an exchange file, a hand-in and a station's pushes."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from app.domain.plan import Peer
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.results import RunResult, RunSummary, Sample
from app.engine.drivers.iperf3.parse_json import parse_document
from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.sessions import SessionStore
from app.study.files.exchange import export_sessions
from app.study.lab.class_push import station_pushes
from app.study.lab.exercises import ExerciseDesk
from app.study.lab.handin import handin_document
from tests.conftest import DATA, ROOT_DIR

__all__ = ["Written", "engine_outputs", "outputs", "written"]

#: The captured outputs of other versions and systems, beside the repository (as the tests
#: find them); LINKLAB_ENGINE_OUTPUTS names another folder.
DEFAULT_OUTPUTS = ROOT_DIR.parent / "shared" / "engine-outputs"


def engine_outputs() -> Path:
    return Path(os.environ.get("LINKLAB_ENGINE_OUTPUTS") or DEFAULT_OUTPUTS)


def _kind(name: str) -> str | None:
    """Which reader a captured output is for, by its name (the folder's naming)."""
    if "netperf" in name:
        return "netperf"
    if name.startswith(("iperf-2", "local-iperf-2")) or name.startswith("local-iperf-2."):
        return "iperf2"
    if "iperf3" in name or name.startswith(("text_", "json_", "stream_", "err_")):
        if name.endswith(".jsonl"):
            return "iperf3-stream"
        if name.endswith(".json"):
            return "iperf3-json"
        return "iperf3-text"
    return None


@cache
def _all_outputs() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    folders = [DATA / "iperf3", DATA / "iperf2", DATA / "netperf", engine_outputs()]
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix not in (".txt", ".json", ".jsonl") or path.name.endswith(".stderr.txt"):
                continue
            kind = "iperf2" if folder.name == "iperf2" else _kind(path.name)
            if folder.name == "netperf":
                kind = "netperf"
            if kind is not None:
                text = path.read_bytes().decode("utf-8", "surrogateescape")
                found.setdefault(kind, []).append(text)
    return {kind: tuple(texts) for kind, texts in found.items()}


def outputs(kind: str) -> tuple[str, ...]:
    """The real outputs for one reader: iperf3-text, iperf3-json, iperf3-stream, iperf2,
    netperf."""
    return _all_outputs().get(kind, ())


# -- what LinkLab writes --------------------------------------------------------------------
@dataclass(frozen=True)
class Written:
    exchange: dict[str, Any]  # `linklab export --format json` of the session
    handin: dict[str, Any]  # the student's hand-in of it
    pushes: tuple[dict[str, Any], ...]  # what the student's station pushes
    token: str


def _result(text: str) -> RunResult:
    events = list(parse_document(text.splitlines()))
    summary = next(e for e in events if isinstance(e, RunSummary))
    samples = tuple(e for e in events if isinstance(e, Sample))
    return RunResult("iperf3", "3.12", ("iperf3", "-J"), summary, samples, text, 0.0, 10.0)


@cache
def written() -> Written:
    """A student's study of a short exercise with real iperf3 outputs as its runs, and the
    exchange file, hand-in and pushes LinkLab writes of it."""
    from tests.classlive import short_exercise  # the exercise the class tests use

    exercise = short_exercise()
    student = "Ada Lovelace"
    outputs_ = [(DATA / "iperf3" / name).read_text(encoding="utf-8")
                for name in ("json_tcp_v4.json", "json_tcp_reverse.json")]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="linklab-fuzz-") as folder:
        path = Path(folder) / "ada.sqlite3"
        desk = ExerciseDesk(path, lambda write=False: Database(path, readonly=not write))
        desk.begin(exercise, student, "G1")
        desk.answer(exercise, student, "E.1", "Windows matter.")
        plan = desk.plan_for(exercise, 1, student=student, group="G1", peer=Peer("192.0.2.7"))
        with Database(path) as db:
            store = SessionStore(db)
            session = store.create_session(plan, {"os_name": "Linux", "cpu": {"cores": 4}})
            for n, key in enumerate(plan.run_keys()):
                result = _result(outputs_[n % len(outputs_)])
                store.add_run(
                    session, key, float(plan.values[key.value_index]),
                    metrics=RunMetrics.from_result(result), samples=result.samples,
                    started_at=utc_now(), elapsed_s=result.elapsed_s, engine="iperf3",
                    engine_version="3.12", argv=result.argv, raw_output=result.raw_output,
                    flows=result.summary.flows,
                )  # fmt: skip
            store.finish(session, SessionStatus.COMPLETED)
            ExerciseStore(db).work(exercise.id, student)
            exchange = export_sessions(store, [session])
            handin = handin_document(db, exercise.id, student, [session])
            pushes = tuple(item.document for item in station_pushes(db, exercise, student, set()))
    # Written out and read back: the documents as a file holds them.
    return Written(
        json.loads(json.dumps(exchange)),
        json.loads(json.dumps(handin)),
        tuple(json.loads(json.dumps(p)) for p in pushes),
        "class-token-for-fuzzing",
    )
