"""Memory over a long study: a 10-hour plan (600 runs of 60 s at 0.1 s intervals, 360,000
samples) through the real StudyRunner and store, with the fake driver standing in for the
engine (as fast as it can go), and the window's Measure tab receiving every event offscreen.
Prints the resident memory (RSS) at the start, after each simulated hour and at the end of
each. Targets: the window at most 150 MB during the study, and flat: within 20 MB from the
first simulated hour to the tenth."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.domain.plan import Peer, Plan
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.events import StudyEvent
from app.study.sweep.runner import StudyRunner

MB = 1024 * 1024


def long_plan(hours: int) -> Plan:
    """An hour is 60 runs of 60 s at 0.1-s intervals."""
    return Plan(
        peer=Peer("lab-peer"), values=(1408,), repetitions=60 * hours, duration_s=60, interval_s=0.1
    )


def rss() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / MB


def headless(folder: Path, plan: Plan) -> None:
    marks: list[float] = []

    def observe(event: StudyEvent) -> None:
        if type(event).__name__ == "RunFinished" and len(marks) < 3:
            marks.append(rss())

    start = rss()
    t0 = time.monotonic()
    with Database(folder / "headless.sqlite3") as db:
        driver = FakeDriver(sample_every_s=0.1)
        runner = StudyRunner(SessionStore(db), plan, drivers={plan.engine: driver})
        outcome = drive(runner.events(), observe)
        samples = db.query("SELECT count(*) AS n FROM samples")[0]["n"]
    end = rss()
    print(
        f"runner + store: {outcome.runs_done} runs, {samples} samples in "
        f"{time.monotonic() - t0:.1f} s; RSS {start:.1f} MB at start, {marks[-1]:.1f} MB after "
        f"the third run, {end:.1f} MB at the end ({end - start:+.1f} MB)"
    )


def window(folder: Path, plan: Plan, hours: int) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    context = AppContext(settings, db_path=folder / "window.sqlite3")
    main = MainWindow(context, preset_dir=folder / "presets")
    main.show()
    tab = main.measure
    app.processEvents()
    start = rss()
    t0 = time.monotonic()
    count = runs = 0
    hourly: list[float] = []

    # As the worker's queued signals deliver them: every event, on the GUI thread.
    handlers: dict[str, Callable[[Any], None]] = {
        "StudyPrepared": tab._prepared,
        "SessionStarted": tab._session_started,
        "RunStarted": tab._run_started,
        "SampleArrived": tab.study_charts.sample,
        "RunFailed": tab._run_failed,
        "PointUpdated": tab._point,
        "Progress": tab._progress,
    }

    def observe(event: StudyEvent) -> None:
        nonlocal count, runs
        handler = handlers.get(type(event).__name__)
        if handler is not None:
            handler(event)
        count += 1
        if type(event).__name__ == "RunFinished":
            runs += 1
            if runs % 60 == 0:  # a simulated hour of 60-s runs
                app.processEvents()
                hourly.append(rss())
        if count % 2000 == 0:
            app.processEvents()

    from app.study.sweep.events import StudyPrepared

    observe(StudyPrepared(plan, ()))
    with Database(folder / "window.sqlite3") as db:
        driver = FakeDriver(sample_every_s=0.1)
        drive(StudyRunner(SessionStore(db), plan, drivers={plan.engine: driver}).events(), observe)
    app.processEvents()
    end = rss()
    peak = max([start, *hourly, end])
    growth = hourly[-1] - hourly[0]
    print(
        f"window's Measure tab: {count} events in {time.monotonic() - t0:.1f} s; RSS "
        f"{start:.1f} MB at start, {end:.1f} MB at the end ({end - start:+.1f} MB); live chart "
        f"holds {tab.study_charts.live_chart.point_count} points"
    )
    print(f"  after each simulated hour: {', '.join(f'{v:.0f}' for v in hourly)} MB")
    print(
        f"  highest {peak:.0f} MB (target <= 150 MB: {'met' if peak <= 150 else 'NOT met'}); "
        f"hour 1 to hour {hours}: {growth:+.1f} MB (target within 20 MB: "
        f"{'met' if abs(growth) <= 20 else 'NOT met'})"
    )
    main.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hours", type=int, default=10, help="simulated hours")
    parser.add_argument("--quick", action="store_true", help="a short look: one simulated hour")
    args = parser.parse_args(argv)
    hours = 1 if args.quick else args.hours
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    plan = long_plan(hours)
    with tempfile.TemporaryDirectory() as folder:
        headless(Path(folder), plan)
        window(Path(folder), plan, hours)
    return 0


if __name__ == "__main__":
    sys.exit(main())
