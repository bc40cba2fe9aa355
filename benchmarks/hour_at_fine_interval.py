"""An hour at 0.1 s in the window: one run of 60 minutes at 0.1-s report intervals against this
computer's real iperf3 (UDP at 10 Mbit/s: a link-like flow that leaves the cores to the
window), set up and started on the Measure tab by its visible labels, its Current run chart on
screen (Xvfb when DISPLAY is set, else offscreen). A 20-ms QTimer probes the event loop all
along: its lateness is how much later than asked each tick came. The GUI thread's CPU time is
read every minute (psutil, that thread alone), and so are the chart's points held and drawn,
the process's memory and the machine's load (what else was running).

Prints a line a minute, then the first and the last minutes side by side: lateness p50, p99
and worst, and the GUI thread's share of a core. Targets on a quiet machine: p99 under 50 ms
and no tick over 100 ms, at the end of the hour as at its start (the GUI thread's cost must not
grow with the run's length). `hour_at_fine_interval.py 10` runs ten minutes, `--quick` two
(its first and last minute side by side)."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBE_MS = 20


@dataclass
class Minute:
    """What one minute of the run looked like."""

    number: int
    late_ms: list[float] = field(default_factory=list)
    gui_cpu_pct: float = 0.0
    process_cpu_pct: float = 0.0
    machine_cpu_pct: float = 0.0
    load: float = 0.0
    points: int = 0
    drawn: int = 0
    rss_mb: float = 0.0

    def p(self, share: float) -> float:
        ordered = sorted(self.late_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0

    def line(self) -> str:
        return (
            f"minute {self.number:3d}: lateness p50 {self.p(0.5):5.1f} ms, p99 "
            f"{self.p(0.99):6.1f} ms, worst {max(self.late_ms, default=0):6.1f} ms "
            f"({len(self.late_ms)} ticks); GUI thread {self.gui_cpu_pct:5.1f} % of a core, "
            f"process {self.process_cpu_pct:5.1f} %, machine {self.machine_cpu_pct:5.1f} % "
            f"(load {self.load:.1f}); chart {self.points} points held, {self.drawn} drawn; "
            f"RSS {self.rss_mb:.0f} MB"
        )


def together(minutes: list[Minute]) -> Minute:
    joined = Minute(minutes[0].number)
    for minute in minutes:
        joined.late_ms += minute.late_ms
    joined.gui_cpu_pct = statistics.fmean(m.gui_cpu_pct for m in minutes)
    joined.process_cpu_pct = statistics.fmean(m.process_cpu_pct for m in minutes)
    joined.machine_cpu_pct = statistics.fmean(m.machine_cpu_pct for m in minutes)
    joined.load = statistics.fmean(m.load for m in minutes)
    joined.points = max(m.points for m in minutes)
    joined.drawn = max(m.drawn for m in minutes)
    return joined


def redraw_cost() -> None:
    """The live chart's own cost per redraw (its CPU time, which a busy machine stretches far
    less than it stretches the lateness) as the points it holds grow: flat is the target."""
    from PySide6.QtWidgets import QApplication

    from app.domain.net import Flow
    from app.domain.results import Sample
    from app.ui.common.live_chart import LiveChart

    app = QApplication.instance() or QApplication([])
    chart = LiveChart()
    chart.resize(900, 400)
    chart.show()
    app.processEvents()

    def add(i: int) -> None:
        rate = 4e7 + (i * 7919 % 101) * 1e5
        chart.add_sample(Sample(i / 10, (i + 1) / 10, Flow.UP, received_bps=rate))

    for held in (60, 600, 1800, 3600):
        chart.reset("run")
        for i in range(held):
            add(i)
        chart._draw()
        app.processEvents()
        cpu = []
        for i in range(held, held + 40):
            add(i)
            start = time.thread_time()
            chart._draw()
            chart.repaint()
            app.processEvents()
            cpu.append(time.thread_time() - start)
        cpu.sort()
        print(
            f"live chart holding {held:4d} points: a redraw and paint takes "
            f"{1000 * cpu[len(cpu) // 2]:.1f} ms of CPU (median of 40), "
            f"{1000 * cpu[-2]:.1f} ms (p95); {chart.drawn_count} points drawn",
            flush=True,
        )
    chart.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("minutes", nargs="?", type=float, default=60.0, help="the run's (60)")
    parser.add_argument(
        "--quick", action="store_true", help="a short look: 2 minutes, the first beside the last"
    )
    args = parser.parse_args(argv)
    minutes_asked = 2.0 if args.quick else args.minutes
    #: The minutes compared at the start and at the end (after the chart has filled).
    side = 1 if args.quick else 5
    os.environ.setdefault(
        "QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else "xcb"
    )
    redraw_cost()
    import psutil
    from PySide6.QtCore import QElapsedTimer, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

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
    user = User(window)
    user.tab("Measure")
    user.choose("Protocol", "UDP")
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", str(int(minutes_asked * 60)))
    user.tab("Advanced")
    user.type("UDP bitrate", "10M")
    user.type("Report interval", "0.1")
    user.tab("Study")
    user.tab("Current run")
    measure = window.measure
    chart = measure.study_charts.live_chart
    user.click("Start")

    process = psutil.Process()
    gui_thread = threading.get_native_id()

    def gui_seconds() -> float:
        for thread in process.threads():
            if thread.id == gui_thread:
                return float(thread.user_time + thread.system_time)
        return 0.0

    minutes: list[Minute] = [Minute(1)]
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def probe() -> None:
        now = clock.elapsed()
        minutes[-1].late_ms.append(max(0.0, now - last[0] - PROBE_MS))
        last[0] = now

    marks = [(time.monotonic(), gui_seconds(), sum(process.cpu_times()[:2]))]
    psutil.cpu_percent()

    def minute_done() -> None:
        now, gui, cpu = time.monotonic(), gui_seconds(), sum(process.cpu_times()[:2])
        before = marks[-1]
        span = now - before[0]
        minute = minutes[-1]
        minute.gui_cpu_pct = 100 * (gui - before[1]) / span
        minute.process_cpu_pct = 100 * (cpu - before[2]) / span
        minute.machine_cpu_pct = psutil.cpu_percent() * (psutil.cpu_count() or 1)
        minute.load = os.getloadavg()[0]
        minute.points = chart.point_count
        minute.drawn = chart.drawn_count
        minute.rss_mb = process.memory_info().rss / 1e6
        print(minute.line(), flush=True)
        marks.append((now, gui, cpu))
        minutes.append(Minute(minute.number + 1))

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(PROBE_MS)
    timer.timeout.connect(probe)
    timer.start()
    per_minute = QTimer()
    per_minute.setInterval(60_000)
    per_minute.timeout.connect(minute_done)
    per_minute.start()
    watcher = QTimer()
    watcher.setInterval(500)
    watcher.timeout.connect(lambda: None if measure.running else app.quit())
    watcher.start()
    QTimer.singleShot(int((minutes_asked + 3) * 60_000), app.quit)
    app.exec()
    for each in (watcher, timer, per_minute):
        each.stop()
    status = window.status_label.text()
    window.shutdown()
    done = [m for m in minutes if m.late_ms and m.gui_cpu_pct]
    print(f"the run: {status!r}; {len(done)} whole minutes measured")
    if len(done) < 2 * side:
        print("too short to compare its start with its end")
        return 1
    start, end = together(done[:side]), together(done[-side:])
    print(f"\n{'':34}{'minutes 1-' + str(side):>18}{f'last {side} minutes':>20}")
    rows = (
        ("event-loop lateness p50 (ms)", start.p(0.5), end.p(0.5)),
        ("event-loop lateness p99 (ms)", start.p(0.99), end.p(0.99)),
        ("worst tick late (ms)", max(start.late_ms), max(end.late_ms)),
        ("GUI thread (% of a core)", start.gui_cpu_pct, end.gui_cpu_pct),
        ("LinkLab's process (% of a core)", start.process_cpu_pct, end.process_cpu_pct),
        ("the machine (% of a core, all)", start.machine_cpu_pct, end.machine_cpu_pct),
        ("load average", start.load, end.load),
        ("chart points held", start.points, end.points),
        ("chart points drawn (per curve, at most)", start.drawn, end.drawn),
    )
    for name, first, then in rows:
        print(f"{name:<40}{first:>12.1f}{then:>20.1f}")
    met = end.p(0.99) < 50 and max(end.late_ms) <= 100
    verdict = "met" if met else "NOT met"
    print(f"targets (p99 < 50 ms, no tick over 100 ms) at the end of the run: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
