"""A class collected live, measured: (1) 60 station processes pushing real run records at once
to `linklab class-server` (SQLite, then a real PostgreSQL): how long a run takes to show in
the class view after it is stored, and the collector's memory over five rounds of 60 stations;
(2) 10 classes x 30 students x 100 runs in PostgreSQL (and SQLite beside it): the class view's
query, and the whole view built from it. Figures go to docs/PERFORMANCE.md."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.domain.exercise import Exercise, Step, exercise_json, new_exercise_id  # noqa: E402
from app.domain.plan import Assignment, Peer  # noqa: E402
from app.store.class_backends import open_class_store  # noqa: E402
from app.store.class_store import ClassStore, PushRow, RunRow, SessionRow  # noqa: E402
from app.study.lab.class_http import call  # noqa: E402
from app.study.lab.class_live import live_class  # noqa: E402
from app.study.lab.class_push import PushItem  # noqa: E402
from app.study.lab.exercises import find_ready  # noqa: E402
from tests.classlive import (  # noqa: E402
    INSTRUCTOR,
    TOKEN,
    as_station,
    measure_ada,
    write_station,
)
from tests.conftest import free_port  # noqa: E402
from tests.pg import Postgres  # noqa: E402


@dataclass(frozen=True)
class Size:
    """How much is measured: stations pushing at once (new ones, the same ones sending
    everything again `resends` times, as many more), and the classes in the store."""

    stations: int = 60
    resends: int = 3
    classes: int = 10
    students: int = 30
    runs: int = 100


#: `--quick`: a look at every part, small.
QUICK = Size(stations=5, resends=1, classes=2, students=5, runs=10)


# -- 60 stations at once ---------------------------------------------------------------------
def collector(store: str, folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    (folder / "token").write_text(TOKEN + "\n", encoding="utf-8")
    # The whole class is read with the instructor's token (the class token pushes).
    (folder / "instructor.token").write_text(INSTRUCTOR + "\n", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "class-server", "--listen", f"127.0.0.1:{port}",
         "--store", store, "--token-file", str(folder / "token"),
         "--instructor-token-file", str(folder / "instructor.token"), "--rate", "1000"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while call(f"http://127.0.0.1:{port}", TOKEN, "/v1/health").status != 200:
        if time.monotonic() > deadline:
            raise RuntimeError("the collector did not start")
        time.sleep(0.1)
    return process, port


_STATIONS: dict[int, list[PushItem]] = {}


def station_items(items: list[PushItem], number: int) -> list[PushItem]:
    """Station number's pushes, the same each time they are asked for (a resend is the same)."""
    if number not in _STATIONS:
        _STATIONS[number] = as_station(items, number)
    return _STATIONS[number]


def round_of_stations(
    url: str,
    store: ClassStore,
    items: list[PushItem],
    folder: Path,
    numbers: range,
    memory: psutil.Process,
) -> dict[str, float]:
    """The stations numbered push at once. Meanwhile the view is read every 0.1 s (the Class
    tab reads it every second): how long had the oldest stored run not yet shown in the view
    (its staleness), at worst, and after the last push?"""
    folder.mkdir()
    folders = [write_station(folder / f"s{n}", station_items(items, n)) for n in numbers]
    seen: list[tuple[float, int]] = []  # (when, runs stored)
    reads: list[float] = []  # how long each read of the view took
    worst = [0.0]
    shown = [-1]
    refused: list[int] = []  # the status of each read the collector did not answer
    peak = [memory.memory_info().rss]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.append((time.monotonic(), store.counts()["runs"]))
            asked = time.monotonic()
            answer = call(url, INSTRUCTOR, "/v1/class")
            reads.append(time.monotonic() - asked)
            if answer.status == 200:
                view = sum(r["steps"][0]["runs_done"] for r in answer.data["rows"])
                shown[0] = view
                waiting = [when for when, count in seen if count > view]
                if waiting:
                    worst[0] = max(worst[0], time.monotonic() - waiting[0])
            else:
                refused.append(answer.status)
            peak.append(memory.memory_info().rss)
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.monotonic()
    launcher = subprocess.run(
        [sys.executable, "-m", "tests.stations", url, TOKEN, *map(str, folders)],
        cwd=ROOT, check=False,
    )  # fmt: skip
    pushed = time.monotonic() - started
    target = store.counts()["runs"]
    deadline = time.monotonic() + 30
    while shown[0] < target and time.monotonic() < deadline:
        time.sleep(0.02)
    after_last = time.monotonic() - started - pushed
    done.set()
    watcher.join()
    if shown[0] < target:  # no figure stands for a view never read in full
        raise SystemExit(
            f"the class view showed {shown[0]} of {target} runs stored "
            f"({len(refused)} reads refused, statuses {sorted(set(refused))})"
        )
    return {
        "failed stations": launcher.returncode,
        "push seconds": pushed,
        "runs": target,
        "stale max": worst[0],
        "read max": max(reads),
        "read median": statistics.median(reads),
        "after last": after_last,
        "rss peak MB": max(peak) / 2**20,
        "rss after MB": memory.memory_info().rss / 2**20,
    }


def stations_benchmark(size: Size, pg: Postgres, items: list[PushItem], root: Path) -> None:
    print(
        f"{size.stations} stations pushing at once: new, the same again {size.resends} times, "
        f"{size.stations} more"
    )
    for kind, store_url in (("SQLite", f"sqlite:{root / 'class.sqlite3'}"),
                            ("PostgreSQL", pg.new_database())):  # fmt: skip
        folder = root / kind
        folder.mkdir()
        process, port = collector(store_url, folder)
        store = open_class_store(store_url)
        memory = psutil.Process(process.pid)
        try:
            start_rss = memory.memory_info().rss / 2**20
            url = f"http://127.0.0.1:{port}"
            # New stations, then the same stations sending everything again (their outboxes
            # lost: every push a resend) three times, then 60 more: memory under the same load
            # with the class the same size, and as the class grows.
            firsts = (100, *([100] * size.resends), 100 + size.stations)
            for number, first in enumerate(firsts, 1):
                stations = range(first, first + size.stations)
                got = round_of_stations(url, store, items, folder / str(number), stations, memory)
                print(
                    f"  {kind} round {number}: {got['runs']:.0f} runs stored "
                    f"({got['failed stations']:.0f} stations failed) in "
                    f"{got['push seconds']:.1f} s; a stored run waited at most "
                    f"{got['stale max']:.2f} s to show in the view (the last "
                    f"{got['after last']:.2f} s after the stations ended); a read of the view "
                    f"took {got['read median']:.3f} s (median), {got['read max']:.3f} s at most; "
                    f"collector RSS "
                    f"{start_rss:.0f} MB at start, peak {got['rss peak MB']:.0f} MB, "
                    f"{got['rss after MB']:.0f} MB after"
                )
        finally:
            store.close()
            process.terminate()
            process.wait(30)


# -- 10 classes x 30 students x 100 runs -------------------------------------------------------
def fill(size: Size, store: ClassStore) -> list[Exercise]:
    lab = find_ready("student-lab")
    plan = replace(lab.steps[3].plan, values=tuple(2048 * 2**k for k in range(10)), repetitions=10)
    exercises = [
        Exercise(new_exercise_id(), f"Class {c + 1}", "", (Step("Window", "", plan),))
        for c in range(size.classes)
    ]
    light = {
        "protocol": "tcp", "ip_version": 4, "kind": "stream", "status": "ok", "error_kind": "",
        "error": "", "attempts": 1, "started_at": "2026-01-01T10:00:00.000Z",
        "ended_at": "2026-01-01T10:00:10.000Z", "elapsed_s": 10.0, "engine": "iperf3",
        "engine_version": "3.12", "argv": ["iperf3", "-c", "peer"],
    }  # fmt: skip
    for exercise in exercises:
        text = exercise_json(exercise)
        for s in range(size.students):
            student = f"Student {s:02d}"
            sid = uuid.uuid4().hex
            header = {
                "id": sid, "name": "Window", "status": "completed", "status_reason": "",
                "created_at": "2026-01-01T10:00:00.000Z", "started_at": None, "ended_at": None,
                "app_version": "0.1.0", "total_runs": size.runs, "environment": {},
                "plan": replace(plan, peer=Peer("192.0.2.1"), assignment=Assignment(
                    exercise.id, exercise.title, 1, student)).to_dict(),
            }  # fmt: skip
            for r in range(size.runs):
                index, repetition = divmod(r, 10)
                run = light | {"value_index": index, "repetition": repetition + 1,
                               "value": float(plan.values[index]),
                               "started_at": f"2026-01-01T10:{r // 60:02d}:{r % 60:02d}.000Z",
                               "metrics": {"throughput_bps": 40e6 + 1e5 * (s + r % 7)}}  # fmt: skip
                run_id = f"{sid}/tcp4/stream/{index}/{repetition + 1}"
                store.put(
                    PushRow(exercise.id, student, "G1", text, r + 1, None,
                            SessionRow(sid, r + 1, json.dumps(header)),
                            RunRow(run_id, run_id, None, json.dumps(run), False,
                                   json.dumps([f"{run['started_at']}|{s}"]), "", "[]", "[]"))
                )  # fmt: skip
    return exercises


def timed(work: Callable[[], object], repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def scale_benchmark(size: Size, pg: Postgres, root: Path) -> None:
    print(
        f"{size.classes} classes x {size.students} students x {size.runs} runs: one class's "
        f"view (median of 15)"
    )
    for kind, url in (
        ("PostgreSQL", pg.new_database()),
        ("SQLite", f"sqlite:{root / 's.sqlite3'}"),
    ):
        store = open_class_store(url)
        try:
            started = time.perf_counter()
            exercises = fill(size, store)
            filled = time.perf_counter() - started
            exercise = exercises[len(exercises) // 2]
            query = timed(partial(store.class_rows, exercise.id))
            view = timed(partial(live_class, store, exercise))
            rows = live_class(store, exercise).rows
            print(
                f"  {kind}: {store.counts()['runs']} runs stored in {filled:.0f} s (one push a "
                f"transaction); the class view's query {query:.0f} ms, the whole view "
                f"({len(rows)} students, flags, medians) {view:.0f} ms"
            )
        finally:
            store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a short look: 5 stations, 2 classes of 5 students"
    )
    size = QUICK if parser.parse_args(argv).quick else Size()
    os.environ.setdefault("STATION_GIVE_UP_S", "120")
    root = Path(tempfile.mkdtemp(prefix="linklab-class-bench-"))
    pg = Postgres()
    try:
        items = measure_ada(root).items  # one student's real runs, made into the stations'
        stations_benchmark(size, pg, items, root)
        scale_benchmark(size, pg, root)
    finally:
        pg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
