"""Exit codes and status tell the truth, with real engines: a closed port is refused before
the first run (exit 1, nothing stored as completed); a server that serves only some runs
gives a completed session with its failures counted and named (exit 3); a clean study
exits 0; every run failing fails the session (exit 1, the first failure's sentence)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from app.engine.process.tools import Tool
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import ROOT_DIR, free_port, wait_listening
from tests.conftest import linklab as run_linklab


def linklab(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_linklab(*args, "--db", str(db), env={"LINKLAB_DB": str(db)}, timeout=180)


def _statuses(db: Path) -> list[str]:
    if not db.exists():
        return []
    with Database(db, readonly=True) as handle:
        return [s.status.value for s in SessionStore(handle).list_sessions()]


def test_help_documents_the_exit_codes() -> None:
    done = run_linklab("run", "--help")
    assert "3 the study completed but some runs failed" in " ".join(done.stdout.split())


@pytest.mark.usefixtures("iperf3_tool")
def test_a_closed_port_is_refused_before_the_first_run(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite3"
    done = linklab(db, "run", "--peer", "127.0.0.1", "--port", str(free_port()), "--runs", "2")
    assert done.returncode == 1, done.stderr
    assert "No iperf3 server answers at 127.0.0.1" in done.stderr
    assert "completed" not in _statuses(db)


def _serve_tests(tool: Tool, port: int, count: int) -> threading.Thread:
    """iperf3 -1 (one test, then exit), started again count times in a row."""

    def serve() -> None:
        for _ in range(count):
            subprocess.run(
                [tool.path, "-s", "-1", "-p", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=120,
                check=False,
            )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_server_that_serves_some_runs_gives_completed_with_failures(
    tmp_path: Path, iperf3_tool: Tool
) -> None:
    """The peer check takes the first one-off test, run 1 the second; runs 2 and 3 find
    nothing listening."""
    db, port = tmp_path / "lab.sqlite3", free_port()
    server = _serve_tests(iperf3_tool, port, 2)
    wait_listening(port)
    done = linklab(
        db,
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--runs",
        "3",
        "--duration",
        "1",
        "--sizes",
        "1408",
    )
    server.join(10)
    assert done.returncode == 3, done.stderr
    # The server answered run 1: its absence from run 2 on is said as the server stopping.
    assert (
        "completed with failures. 2 of 3 runs failed. The first failure: The iperf3 server at "
        f"127.0.0.1 port {port} stopped during run 2: it answered run 1" in done.stderr
    ), done.stderr
    with Database(db, readonly=True) as handle:
        (session,) = SessionStore(handle).list_sessions()
    assert session.status.value == "completed"
    assert (session.runs_done, session.runs_failed) == (3, 2)
    assert session.status_reason.startswith("2 of 3 runs failed.")


@pytest.mark.usefixtures("iperf3_tool")
def test_a_clean_study_exits_0(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite3"
    done = linklab(
        db, "run", "--peer", "this-computer", "--runs", "2", "--duration", "1", "--sizes", "1408"
    )
    assert done.returncode == 0, done.stderr
    assert _statuses(db) == ["completed"]


def test_every_run_failing_fails_the_session(tmp_path: Path, iperf3_tool: Tool) -> None:
    """Only the peer check is served: every run is refused."""
    db, port = tmp_path / "lab.sqlite3", free_port()
    server = _serve_tests(iperf3_tool, port, 1)
    wait_listening(port)
    done = linklab(
        db,
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--runs",
        "2",
        "--duration",
        "1",
        "--sizes",
        "1408",
    )
    server.join(10)
    assert done.returncode == 1, done.stderr
    assert "failed. All 2 runs failed. The first failure: The peer 127.0.0.1 refused" in (
        done.stderr
    )
    assert _statuses(db) == ["failed"]


def _ignoring_sigint() -> None:
    """As a shell starts a background job (`linklab measure &`): SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _until(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    """Poll until ready() (the process has reached the step under test), at most 60 s."""
    for _ in range(1200):
        assert proc.poll() is None, proc.communicate()
        if ready():
            return
        time.sleep(0.05)
    raise AssertionError("the command never reached the step under test")


@pytest.mark.skipif(
    sys.platform == "win32", reason="SIGINT to a child and a job with SIGINT ignored are POSIX's"
)
@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background-job"])
def test_sigint_during_the_peer_check_is_stopped_not_no_server(
    tmp_path: Path, background: bool
) -> None:
    """As found: Ctrl+C while the check waits for a server that does not answer gave exit 1,
    "No iperf3 server answers"."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as full:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        port = full.getsockname()[1]
        # A listener whose queue is full: the kernel drops further handshakes unanswered.
        fillers = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(3)]
        for filler in fillers:
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
        argv = ["run", "--peer", "127.0.0.1", "--port", str(port), "--runs", "1"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", *argv, "--db", str(tmp_path / "lab.sqlite3")],
            cwd=ROOT_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ignoring_sigint if background else None,
        )
        try:

            def checking() -> bool:
                connections = psutil.Process(proc.pid).net_connections("tcp")
                return any(c.raddr and c.raddr.port == port for c in connections)

            _until(proc, checking)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            for filler in fillers:
                filler.close()
    assert proc.returncode == 130, err
    assert "stopped" in err and "No iperf3 server answers" not in err


def test_measure_as_a_background_job_stops_on_sigint(iperf3_tool: Tool) -> None:
    """As found: started with SIGINT ignored, `linklab measure` ran on through Ctrl+C."""
    port = free_port()
    server = subprocess.Popen(
        [iperf3_tool.path, "-s", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app",
                "measure",
                "--peer",
                "127.0.0.1",
                "--port",
                str(port),
                "--duration",
                "60",
            ],
            cwd=ROOT_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ignoring_sigint,
        )
        assert proc.stdout is not None
        lines = []
        while not any(" s ↑ " in line for line in lines):  # the first interval is in
            line = proc.stdout.readline()
            assert line, proc.communicate()
            lines.append(line)
        client = psutil.Process(proc.pid).children()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert proc.returncode == 130, err
    assert "stopped" in err
    assert not [c for c in client if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
