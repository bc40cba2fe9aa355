"""The window killed with SIGKILL mid-run (a 60 s run against This computer) takes its
engines with it: no iperf3 outlives it and the ports are free within 5 s."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT_DIR, free_port
from tests.orphans import seconds_until_gone, wait_for_client_and_server

LAUNCHER = Path(__file__).with_name("window_mid_run.py")


def test_kill_9_of_the_window_mid_run_leaves_no_engine(tmp_path: Path) -> None:
    app = subprocess.Popen(
        [sys.executable, str(LAUNCHER), str(tmp_path), str(free_port())],
        cwd=ROOT_DIR,
        env={**os.environ, "PYTHONPATH": str(ROOT_DIR), "QT_QPA_PLATFORM": "offscreen"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert app.stdout is not None
        line = app.stdout.readline()
        assert line.strip() == "READY", app.communicate(timeout=10)[1]
        procs, ports = wait_for_client_and_server(app.pid)
        os.kill(app.pid, signal.SIGKILL)
        took = seconds_until_gone(procs, ports, 5.0)  # the bound
    finally:
        if app.poll() is None:
            app.kill()
        app.communicate(timeout=10)
    print(f"window: engines gone and ports free {took:.2f} s after kill -9")
