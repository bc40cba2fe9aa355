"""The window under load: cold start to the first window shown, event-loop delay during a live
run (a 5 ms timer probe) and memory during it, then an hour's worth of 1-s intervals (and ten)
fed to the live chart at once. The run is set up and started on the Measure tab by its visible
labels (UDP at 200 Mbit/s, 0.1-s report intervals, 40 s against this computer's iperf3).
Targets: worst delay < 50 ms, p99 < 20 ms; cold start < 2 s; memory flat and under 300 MB."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def shown_once(t0: float) -> None:
    """In a process of its own (this file with --cold-start T0): the main window made and
    shown, and the seconds since T0 printed once the event loop runs."""
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow

    folder = Path(tempfile.mkdtemp())
    context = AppContext(
        QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat), db_path=folder / "db.sqlite3"
    )
    window = MainWindow(context, preset_dir=folder)
    window.show()

    def shown() -> None:
        print(time.time() - t0, flush=True)
        window.shutdown()
        app.quit()

    QTimer.singleShot(0, shown)
    app.exec()


def cold_start(rounds: int) -> float:
    times = []
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, __file__, "--cold-start", str(time.time())],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def live_run(seconds: int, hours: int) -> None:
    import psutil
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from app.domain.net import Flow
    from app.domain.results import Sample
    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow
    from tests.ui.user import User

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp())
    context = AppContext(
        QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat), db_path=folder / "db.sqlite3"
    )
    window = MainWindow(context, preset_dir=folder)
    window.resize(1280, 800)
    window.show()
    measure = window.measure
    # A link-like load (UDP at 200 Mbit/s): unlimited loopback TCP would take both cores of
    # this machine from the window, which measures the machine rather than LinkLab.
    user = User(window)
    user.tab("Measure")
    user.choose("Protocol", "UDP")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", str(seconds))
    user.tab("Advanced")
    user.type("UDP bitrate", "200M")
    user.type("Report interval", "0.1")
    user.tab("Study")
    user.tab("Current run")
    user.click("Start")
    process = psutil.Process()
    delays: list[float] = []
    rss: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def probe() -> None:
        now = clock.elapsed()
        delays.append(max(0, now - last[0] - 5))
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(probe)
    timer.start()
    sampler = QTimer()
    sampler.setInterval(5000)
    sampler.timeout.connect(lambda: rss.append(process.memory_info().rss / 1e6))
    sampler.start()
    watcher = QTimer()
    watcher.setInterval(200)
    watcher.timeout.connect(lambda: None if measure.running else app.quit())
    watcher.start()
    QTimer.singleShot((seconds + 50) * 1000, app.quit)
    app.exec()
    watcher.stop()
    timer.stop()
    sampler.stop()
    chart = measure.study_charts.live_chart
    samples_seen = chart.point_count
    ordered = sorted(delays[20:])  # the first probes include start-up work
    p99 = ordered[int(len(ordered) * 0.99)] if ordered else 0
    print(f"the run: {window.status_label.text()!r}")
    print(
        f"live UDP run at 200 Mbit/s, {seconds} s at 0.1 s intervals ({samples_seen} intervals "
        f"charted): event-loop delay worst {max(ordered, default=0):.1f} ms, p99 {p99:.1f} ms "
        f"over {len(ordered)} probes (targets < 50 ms, < 20 ms)"
    )
    print(f"memory during the run (RSS, every 5 s): {', '.join(f'{v:.0f}' for v in rss)} MB")
    # An hour (and ten) at 1 s intervals, fed to the live chart at once.
    before = process.memory_info().rss / 1e6
    for hour in range(hours):
        chart.reset(f"hour {hour}")
        for i in range(3600):
            rate = 4e7 + (i % 17) * 1e5
            chart.add_sample(Sample(i, i + 1.0, Flow.UP, received_bps=rate))
        chart._draw()
        app.processEvents()
        if hour in (0, hours - 1):
            print(
                f"after {hour + 1} simulated hour(s) of 1 s intervals: RSS "
                f"{process.memory_info().rss / 1e6:.0f} MB (before: {before:.0f} MB)"
            )
    window.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["--cold-start"]:  # in the child: nothing but the window
        shown_once(float(given[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="cold starts timed")
    parser.add_argument("--seconds", type=int, default=40, help="the live run's length")
    parser.add_argument("--hours", type=int, default=10, help="simulated hours fed to the chart")
    parser.add_argument(
        "--quick", action="store_true", help="a short look: 1 cold start, 5 s live, 1 hour fed"
    )
    args = parser.parse_args(given)
    if args.quick:
        args.rounds, args.seconds, args.hours = 1, 5, 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(
        f"cold start to first window shown (median of {args.rounds}): "
        f"{cold_start(args.rounds):.2f} s (target < 2 s)"
    )
    live_run(args.seconds, args.hours)
    return 0


if __name__ == "__main__":
    sys.exit(main())
