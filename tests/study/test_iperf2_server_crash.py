"""A real crash of a peer's server read as a crash, not as the user's fault: iperf 2.1.8's
`iperf -s -u`, started by hand as a lab sheet says, aborts when a second UDP test begins
(reproduced without LinkLab). LinkLab measures run 1, then names the server as stopped
during run 2 (crashed) with what to do, not "refused the connection: start a server"; the
session keeps its good run and reads "completed with failures" in `linklab sessions` too."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import ROOT_DIR, free_port

pytestmark = pytest.mark.skipif(shutil.which("iperf") is None, reason="iperf 2 is not installed")


def _udp_listening(port: int) -> bool:
    done = subprocess.run(["ss", "-lnu"], capture_output=True, text=True, timeout=10)
    return f":{port} " in done.stdout


def _linklab(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args, "--db", str(db)],
        cwd=ROOT_DIR,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_a_crashed_iperf2_udp_server_is_named_as_crashed(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        ["iperf", "-s", "-u", "-e", "-p", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not _udp_listening(port):
            assert time.monotonic() < deadline, "iperf -s -u did not start listening"
            assert server.poll() is None, server.stdout.read() if server.stdout else ""
            time.sleep(0.05)
        db = tmp_path / "linklab.sqlite3"
        done = _linklab(
            "run",
            "--engine",
            "iperf2",
            "--peer",
            "127.0.0.1",
            "--iperf2-port",
            str(port),
            "--protocol",
            "udp",
            "--sizes",
            "1408",
            "--runs",
            "3",
            "--duration",
            "1",
            "--omit",
            "0",
            "--bitrate",
            "1M",
            "--name",
            "crash",
            "--json",
            db=db,
        )
        print(done.stdout[-3000:], done.stderr[-3000:])
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass  # still up: said below
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.stdout is not None
    with server.stdout:
        said = server.stdout.read()
    print(said)
    # The engine's own bug, as reproduced by hand: the server died of a signal (SIGABRT).
    if server.returncode is not None and server.returncode >= 0:
        pytest.fail(f"iperf -s -u did not crash this time (exit {server.returncode}): {said}")
    shown = _linklab("sessions", "show", "crash", "--json", db=db)
    assert shown.returncode == 0, shown.stderr
    session = json.loads(shown.stdout)
    with Database(db, readonly=True) as opened:
        runs = SessionStore(opened).runs(session["session_id"])
    assert runs[0].ok, runs[0]
    failed = [r for r in runs if not r.ok]
    assert failed, runs
    first = failed[0].error
    assert "stopped during run 2 (crashed: iperf 2.1.8's UDP server" in first, first
    assert "it answered run 1" in first and "data went out" in first, first
    assert "LinkLab's own server restarts itself" in first, first
    assert "start an iperf 2 UDP server there" not in first, first
    assert session["status_text"] == "completed with failures", session
    listed = _linklab("sessions", db=db)
    assert "completed with failures" in listed.stdout, listed.stdout
