"""Exit codes and status tell the truth, with real engines: a closed port is refused before
the first run (exit 1, nothing stored as completed); a server that serves only some runs
gives a completed session with its failures counted and named (exit 3); a clean study
exits 0; every run failing fails the session (exit 1, the first failure's sentence)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.engine.tools import Tool
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import ROOT_DIR, free_port


def linklab(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args, "--db", str(db)],
        cwd=ROOT_DIR,
        env={**os.environ, "LINKLAB_DB": str(db)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
    )


def _statuses(db: Path) -> list[str]:
    if not db.exists():
        return []
    with Database(db, readonly=True) as handle:
        return [s.status.value for s in SessionStore(handle).list_sessions()]


def test_help_documents_the_exit_codes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app", "run", "--help"],
        cwd=ROOT_DIR,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
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
    time.sleep(0.3)
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
    assert "completed, 2 of 3 runs failed. The first failure: The peer 127.0.0.1 refused" in (
        done.stderr
    )
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
    time.sleep(0.3)
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
