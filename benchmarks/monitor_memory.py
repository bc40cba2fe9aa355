"""Memory over a 12-hour monitor: the real MonitorRunner and store chaining 300-s runs of the
fake driver (one-second intervals, as fast as it can go: 43,200 intervals, past the 36,000 the
chart keeps at full resolution), and the window's
Monitor page receiving every event offscreen on a simulated clock, its chart redrawn every
simulated minute on the 5-minute window and every hour on the whole history. Prints the
resident memory (RSS) after each simulated hour and the ratio of the last hour's to the first's.
Target: flat, the last hour within 10 % of the first."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.domain.plan import Peer
from app.domain.stream import drive
from app.engine.drivers.fake import FakeDriver
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.events import StudyEvent, StudyPrepared
from app.study.sweep.monitor import MonitorRunner, monitor_plan

PLAN = monitor_plan(Peer("lab-peer"), run_s=300, name="Monitor · benchmark")
MB = 1024 * 1024


def rss() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / MB


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hours", nargs="?", type=int, default=12, help="simulated hours (12)")
    parser.add_argument("--quick", action="store_true", help="a short look: one simulated hour")
    args = parser.parse_args(argv)
    hours = 1 if args.quick else args.hours
    intervals = 3600 * hours
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
        context = AppContext(settings, db_path=folder / "window.sqlite3")
        main_window = MainWindow(context, preset_dir=folder / "presets")
        main_window.resize(1280, 800)
        main_window.show()
        main_window.measure.study_charts.tabs.setCurrentWidget(main_window.measure.monitor)
        panel = main_window.measure.monitor
        simulated = [0.0]  # seconds since the monitor started, as the intervals say
        panel.clock = lambda: simulated[0]
        app.processEvents()
        start = rss()
        t0 = time.monotonic()
        hourly: list[float] = []
        count = 0
        runner: MonitorRunner | None = None

        def observe(event: StudyEvent) -> None:
            nonlocal count
            kind = type(event).__name__
            # As the worker's queued signals deliver them: every event, on the GUI thread.
            handler = {
                "StudyPrepared": panel._prepared,
                "SessionStarted": panel._session_started,
                "RunStarted": panel._run_started,
                "SampleArrived": panel._sample,
            }.get(kind)
            if kind == "SampleArrived":
                simulated[0] = (event.key.repetition - 1) * PLAN.duration_s + event.sample.end_s  # type: ignore[union-attr]
            if handler is not None:
                handler(event)  # type: ignore[operator]
            if kind != "SampleArrived":
                return
            count += 1
            if count % 60 == 0:  # a simulated minute: the figures and the chart as shown
                panel._refresh()
                panel.chart.redraw()
                app.processEvents()
            if count % 3600 == 0:  # a simulated hour: the whole history drawn too
                panel.whole.setChecked(True)
                panel.chart.redraw()
                panel.whole.setChecked(False)
                hourly.append(rss())
            if count >= intervals and runner is not None:
                runner.stop()

        observe(StudyPrepared(PLAN, ()))
        with Database(folder / "window.sqlite3") as db:
            driver = FakeDriver(sample_every_s=1.0)
            runner = MonitorRunner(SessionStore(db), PLAN, drivers={PLAN.engine: driver})
            outcome = drive(runner.events(), observe)
            stored = db.query("SELECT count(*) AS n FROM samples")[0]["n"]
        app.processEvents()
        end = rss()
        traces = panel.traces
        assert traces is not None
        held = sum(t.recent.count + len(t.history.arrays()[0]) for t in traces.throughput.values())
        ratio = hourly[-1] / hourly[0]
        print(
            f"monitor: {count} intervals ({outcome.runs_done} runs of {PLAN.duration_s} s) in "
            f"{time.monotonic() - t0:.1f} s, {stored} samples stored; RSS {start:.1f} MB at "
            f"start, {end:.1f} MB at the end; the chart's curves hold {held} points"
        )
        print(f"  after each simulated hour: {', '.join(f'{v:.1f}' for v in hourly)} MB")
        print(
            f"  hour {hours} / hour 1: {ratio:.3f} ({hourly[-1] - hourly[0]:+.1f} MB; target "
            f"within 10 %: {'met' if abs(ratio - 1) <= 0.10 else 'NOT met'})"
        )
        main_window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
