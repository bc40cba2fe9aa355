"""`make bench`: run every benchmark script in turn; each prints its own ratios."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "engine_overhead.py",
    "sweep_overhead.py",
    "study_overhead.py",
    "time_to_answer.py",
    "store_scale.py",
    "long_study.py",
    "ui_responsiveness.py",
    "latency_probe.py",
    "frozen_bundle.py",
    "class_live.py",
    "monitor_memory.py",
    "fine_interval_memory.py",
    "exchange_scale.py",
    "hour_at_fine_interval.py",
]


def main() -> int:
    status = 0
    for script in SCRIPTS:
        print(f"== {script}", flush=True)
        status |= subprocess.run([sys.executable, str(HERE / script)], check=False).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
