"""The window killed with SIGKILL mid-run (a 60 s run against This computer) takes its
engines with it: no iperf3 outlives it and the ports are free within 5 s."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT_DIR, free_port
from tests.orphans import seconds_until_gone, wait_for_client_and_server

LAUNCHER = Path(__file__).with_name("window_mid_run.py")


def read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The child's next line of output, or '' (with the child killed) when none comes in
    time: a child that hangs must not hang the test with it."""
    got: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        proc.kill()
        reader.join(10)
    return got[0] if got else ""


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_kill_9_of_the_window_mid_run_leaves_no_engine(tmp_path: Path) -> None:
    app = subprocess.Popen(
        [sys.executable, str(LAUNCHER), str(tmp_path), str(free_port())],
        cwd=ROOT_DIR,
        env={**os.environ, "PYTHONPATH": str(ROOT_DIR), "QT_QPA_PLATFORM": "offscreen"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        assert app.stdout is not None
        line = read_line(app, 90)  # the child gives up after 30 s of no interval by itself
        assert line.strip() == "READY", app.communicate(timeout=10)[1]
        procs, ports = wait_for_client_and_server(app.pid)
        app.kill()  # SIGKILL; on Windows TerminateProcess, which no program can catch either
        took = seconds_until_gone(procs, ports, 5.0)  # the bound
    finally:
        if app.poll() is None:
            app.kill()
        app.communicate(timeout=10)
    print(f"window: engines gone and ports free {took:.2f} s after kill -9")
