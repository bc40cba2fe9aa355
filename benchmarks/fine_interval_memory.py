"""Memory over one long run at 0.1-s intervals: two hours of iperf3 3.12 text output (72,000
client intervals, then the server's 72,000, as this computer's server now reports at the
study's interval) printed by a stand-in iperf3 and read through the real path: the iperf3
driver's argv and probe (the installed iperf3 answers it), the process module, the text
parser, the sweep runner, the sample writer and the SQLite store. The stand-in prints about
2,000 intervals a second, so that the reader keeps up (as it does at 10 a second) even on a
busy machine: a backlog of unread lines would be counted as the run's memory.

Prints the resident memory (RSS) every simulated 5 minutes of the run and after it, and the
growth per interval in each hour. What a run keeps in memory is bounded (the newest 8,192
output lines and 4,096 samples, the rest on disk until the run ends; SQLite's page cache of
2 MB): the first hour fills those, the second must stay flat. Target: the second hour within
2 MB."""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.domain.plan import Peer, Plan
from app.domain.stream import drive
from app.engine.drivers.registry import registry
from app.engine.process.tools import EngineSettings
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.events import SampleArrived, StudyEvent
from app.study.sweep.runner import StudyRunner

HOUR = 36_000  # intervals of 0.1 s
MARK_EVERY = 3_000  # 5 simulated minutes
MB = 1024 * 1024

_STAND_IN = """#!{python}
import os, sys, time
args = sys.argv[1:]
if "-c" not in args:  # the version and --help probes: the installed iperf3 answers
    os.execv({iperf3!r}, [{iperf3!r}, *args])
n = {intervals}
out = sys.stdout
out.write("iperf 3.12\\nConnecting to host 127.0.0.1, port 5201\\n"
          "[  5] local 127.0.0.1 port 47692 connected to 127.0.0.1 port 5201\\n"
          "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, omitting 0 seconds, "
          "3600 second test, tos 0\\n"
          "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\\n")
for i in range(n):
    a, b = i / 10, (i + 1) / 10
    out.write(f"[  5] {{a:6.2f}}-{{b:<6.2f}} sec  26.2 MBytes  2144895 Kbits/sec"
              f"    {{i % 3}}   4.25 MBytes       \\n")
    if i % 50 == 49:
        out.flush()
        time.sleep(0.025)
end = n / 10
out.write("- - - - - - - - - - - - - - - - - - - - - - - - -\\nTest Complete. Summary Results:\\n"
          "[ ID] Interval           Transfer     Bitrate         Retr\\n"
          f"[  5]   0.00-{{end:.2f}}  sec   921 GBytes  2144895 Kbits/sec  {{n}}"
          "             sender\\n"
          f"[  5]   0.00-{{end:.2f}}  sec   921 GBytes  2144000 Kbits/sec"
          "                  receiver\\n"
          "CPU Utilization: local/sender 9.0% (0.0%u/9.0%s), remote/receiver 6.4% (0.7%u/5.8%s)\\n"
          "\\nServer output:\\n"
          "Accepted connection from 127.0.0.1, port 47690\\n"
          "[  5] local 127.0.0.1 port 5201 connected to 127.0.0.1 port 47692\\n"
          "[ ID] Interval           Transfer     Bitrate\\n")
for i in range(n):
    a, b = i / 10, (i + 1) / 10
    out.write(f"[  5] {{a:6.2f}}-{{b:<6.2f}} sec  26.2 MBytes  2.14 Gbits/sec                  \\n")
out.write("- - - - - - - - - - - - - - - - - - - - - - - - -\\n"
          "[ ID] Interval           Transfer     Bitrate\\n"
          f"[  5]   0.00-{{end:.2f}}  sec   921 GBytes  2.14 Gbits/sec                  receiver\\n"
          "\\n\\niperf Done.\\n")
out.flush()
"""


def rss() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / MB


def stand_in(folder: Path, iperf3: str, intervals: int) -> str:
    script = folder / "iperf3"
    script.write_text(
        _STAND_IN.format(python=sys.executable, iperf3=iperf3, intervals=intervals),
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hours", nargs="?", type=float, default=2.0, help="the run's hours (2)")
    parser.add_argument("--quick", action="store_true", help="a short look: 10 simulated minutes")
    args = parser.parse_args(argv)
    intervals = int(HOUR * (1 / 6 if args.quick else args.hours))
    iperf3 = shutil.which("iperf3")
    if iperf3 is None or sys.platform == "win32":
        print("skipped: needs an installed iperf3 (for its probe) and a POSIX system")
        return 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        drivers = registry(EngineSettings.of({"iperf3": stand_in(folder, iperf3, intervals)}))
        plan = Plan(
            peer=Peer("127.0.0.1"),
            values=(1408,),
            repetitions=1,
            duration_s=intervals // 10,
            interval_s=0.1,
        )
        marks: list[tuple[int, float]] = []
        count = 0

        def observe(event: StudyEvent) -> None:
            nonlocal count
            if isinstance(event, SampleArrived):
                count += 1
                if count % MARK_EVERY == 0:
                    marks.append((count, rss()))

        start = rss()
        t0 = time.monotonic()
        with Database(folder / "fine.sqlite3") as db:
            runner = StudyRunner(SessionStore(db), plan, drivers=drivers)
            outcome = drive(runner.events(), observe)
            stored = db.query("SELECT count(*) AS n FROM samples")[0]["n"]
        end = rss()
    elapsed = time.monotonic() - t0
    print(
        f"one 0.1-s run of {intervals} intervals ({outcome.runs_done} run, {stored} samples "
        f"stored) in {elapsed:.1f} s; RSS {start:.1f} MB before, {end:.1f} MB after"
    )
    print("  every 5 simulated minutes: " + ", ".join(f"{v:.1f}" for _, v in marks) + " MB")
    hour = HOUR // MARK_EVERY  # marks per simulated hour
    previous = (0, start)
    for index in range(hour - 1, len(marks), hour):
        n, mb = marks[index]
        per = (mb - previous[1]) * MB / max(1, n - previous[0])
        print(f"  hour {n // HOUR}: {mb - previous[1]:+.1f} MB ({per:.0f} bytes per interval)")
        previous = (n, mb)
    if len(marks) >= 2 * hour:
        growth = marks[2 * hour - 1][1] - marks[hour - 1][1]
        verdict = "met" if abs(growth) <= 2 else "NOT met"
        print(f"  second hour {growth:+.1f} MB; target within 2 MB: {verdict}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main())
