"""No engine outlives LinkLab: `linklab run` and `linklab serve` killed with SIGKILL mid-run
take their engines with them within 5 s (the watchdog), and servers left by a LinkLab whose
watchdog was killed too are stopped by the next LinkLab (the server records) — only when they
are verifiably LinkLab's. Real processes throughout."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.engine.drivers.registry import find_tool, server_programs
from app.engine.errors import EngineMissing
from app.engine.process.server_records import (
    ServerRecord,
    read_record,
    record_server,
    stop_left_behind,
)
from app.engine.process.tools import Tool
from tests.conftest import ROOT_DIR, engine_name, free_port
from tests.orphans import (
    engines_of,
    listening_ports,
    seconds_until_gone,
    wait_for_client_and_server,
)

CLEANUP_LIMIT_S = 5.0  # the bound


def _linklab(db: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT_DIR,
        env={**os.environ, "LINKLAB_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def _watchdog_of(pid: int) -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process(pid).children()
        if "app.engine.process.watchdog" in " ".join(p.cmdline())
    ]


@contextlib.contextmanager
def _reaped(app: subprocess.Popen[str]) -> Iterator[None]:
    try:
        yield
    finally:
        if app.poll() is None:
            app.kill()
        app.communicate(timeout=10)


@pytest.mark.usefixtures("iperf3_tool")
def test_kill_9_of_a_run_leaves_no_engine_and_frees_the_ports(tmp_path: Path) -> None:
    """A 60 s run against this computer: its iperf3 client and LinkLab's loopback server."""
    app = _linklab(
        tmp_path / "lab.sqlite3",
        *("run", "--peer", "this-computer", "--port", str(free_port())),
        *("--sizes", "1408", "--runs", "1", "--duration", "60"),
    )
    with _reaped(app):
        procs, ports = wait_for_client_and_server(app.pid)
        app.kill()  # SIGKILL; on Windows TerminateProcess
        took = seconds_until_gone(procs, ports, CLEANUP_LIMIT_S)
    print(f"run: engines gone and ports free {took:.2f} s after kill -9")


@pytest.mark.usefixtures("iperf3_tool", "netperf_tool")
def test_kill_9_of_serve_leaves_no_server_and_frees_the_ports(tmp_path: Path) -> None:
    port, netserver_port = free_port(), free_port()
    app = _linklab(
        tmp_path / "lab.sqlite3",
        *("serve", "--port", str(port), "--netserver-port", str(netserver_port), "--no-echo"),
    )
    with _reaped(app):
        assert app.stdout is not None
        for line in app.stdout:
            if "Press Ctrl+C" in line:
                break
        procs = engines_of(app.pid)
        assert {engine_name(p.name()) for p in procs} == {"iperf3", "netserver"}
        assert {port, netserver_port} <= listening_ports(procs)
        app.kill()  # SIGKILL; on Windows TerminateProcess
        took = seconds_until_gone(procs, {port, netserver_port}, CLEANUP_LIMIT_S)
    print(f"serve: servers gone and ports free {took:.2f} s after kill -9")


@pytest.mark.skipif(
    sys.platform == "win32", reason="a background job with SIGINT ignored is a POSIX shell's"
)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.usefixtures("iperf3_tool")
def test_serve_as_a_background_job_stops_on_sigint_and_sigterm(tmp_path: Path, signum: int) -> None:
    """A shell starts `linklab serve &` with SIGINT ignored; serve stops on it all the same."""
    port = free_port()
    serve = ["-m", "app", "serve", "--port", str(port), "--no-netserver", "--no-echo"]
    # As a non-interactive shell starts a background job: SIGINT ignored, kept across exec.
    as_background_job = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    app = subprocess.Popen(
        [sys.executable, "-c", as_background_job, *serve],
        cwd=ROOT_DIR,
        env={**os.environ, "LINKLAB_DB": str(tmp_path / "lab.sqlite3")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    with _reaped(app):
        assert app.stdout is not None
        for line in app.stdout:
            if "Press Ctrl+C" in line:
                break
        procs = engines_of(app.pid)
        app.send_signal(signum)
        _, err = app.communicate(timeout=10)
    assert app.returncode == 0, err
    assert "Stopping the servers." in err
    seconds_until_gone(procs, {port}, CLEANUP_LIMIT_S)
    assert not list((tmp_path / "servers").glob("*.json"))  # its records went with them


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="Windows has no watchdog process to kill: a job object ends the engines "
    "(tests/engine/test_winjob.py)",
)
@pytest.mark.usefixtures("iperf3_tool")
def test_servers_left_by_a_killed_linklab_and_its_watchdog_are_stopped_at_next_start(
    tmp_path: Path,
) -> None:
    """The second line of defence: the watchdog is killed too, so only the server records
    are left; the next LinkLab (any command) ends those servers."""
    db = tmp_path / "lab.sqlite3"
    port = free_port()
    app = _linklab(db, "serve", "--port", str(port), "--no-netserver", "--no-echo")
    with _reaped(app):
        assert app.stdout is not None
        for line in app.stdout:
            if "Press Ctrl+C" in line:
                break
        procs = engines_of(app.pid)
        (watchdog,) = _watchdog_of(app.pid)
        (record,) = list((tmp_path / "servers").glob("*.json"))
        watchdog.kill()
        seconds_until_gone([watchdog], set(), 5.0)
        app.kill()  # SIGKILL; on Windows TerminateProcess
    time.sleep(0.5)
    assert all(p.is_running() for p in procs)  # left behind: nothing ended them yet
    later = _next_linklab(db)
    assert "Stopped the iperf3 server" in later.stderr, later.stderr
    seconds_until_gone(procs, {port}, CLEANUP_LIMIT_S)
    assert not record.exists()


def _next_linklab(db: Path) -> subprocess.CompletedProcess[str]:
    """The next LinkLab started, any command (here `sessions list`), run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "app", "sessions", "list"],
        cwd=ROOT_DIR,
        env={**os.environ, "LINKLAB_DB": str(db)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="Windows has no watchdog process to kill: a job object ends the engines "
    "(tests/engine/test_winjob.py)",
)
@pytest.mark.usefixtures("iperf3_tool")
def test_iperf2_servers_left_by_a_killed_linklab_are_stopped_at_next_start(
    tmp_path: Path,
) -> None:
    """As above with `serve --iperf2-port`: iperf 2's servers (program `iperf`, one for TCP
    and one for UDP) are recognised as LinkLab's and ended by the next LinkLab too."""
    try:
        find_tool("iperf")
    except EngineMissing as err:
        pytest.skip(f"iperf 2 is not installed: {err.sentence}")
    db = tmp_path / "lab.sqlite3"
    port, iperf2_port = free_port(), free_port()
    app = _linklab(
        db,
        *("serve", "--port", str(port), "--iperf2-port", str(iperf2_port)),
        *("--bind", "127.0.0.1", "--no-netserver", "--no-echo"),
    )
    with _reaped(app):
        assert app.stdout is not None
        for line in app.stdout:
            if "Press Ctrl+C" in line:
                break
        iperf2 = [
            p for p in psutil.Process(app.pid).children(recursive=True) if p.name() == "iperf"
        ]
        assert len(iperf2) == 2  # its TCP and its UDP server
        assert len(list((tmp_path / "servers").glob("*.json"))) == 3  # and iperf3's
        (watchdog,) = _watchdog_of(app.pid)
        watchdog.kill()
        seconds_until_gone([watchdog], set(), 5.0)
        app.kill()
    try:
        time.sleep(0.5)
        assert all(p.is_running() for p in iperf2)  # left behind: nothing ended them yet
        later = _next_linklab(db)
        for proc in iperf2:
            assert f"Stopped the iperf 2 server (pid {proc.pid})" in later.stderr, later.stderr
        seconds_until_gone(iperf2, {port, iperf2_port}, CLEANUP_LIMIT_S)
        assert not list((tmp_path / "servers").glob("*.json"))
    finally:
        for proc in iperf2:  # the servers this test left behind, should LinkLab not end them
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)


def _dead_owner() -> tuple[int, float]:
    """The pid and start time of a process that has ended."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    started = psutil.Process(gone.pid).create_time()
    gone.wait()
    return gone.pid, started


def _write(folder: Path, record: ServerRecord) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record.owner_pid}-{record.pid}.json"
    path.write_text(
        json.dumps(
            {
                "pid": record.pid,
                "started": record.started,
                "argv": list(record.argv),
                "owner_pid": record.owner_pid,
                "owner_started": record.owner_started,
            }
        )
    )
    return path


def test_only_verifiably_ours_is_ever_stopped(tmp_path: Path, iperf3_tool: Tool) -> None:
    folder = tmp_path / "servers"
    argv = [iperf3_tool.path, "-s", "-p", str(free_port())]
    orphan, living, stranger = _spawn(argv), _spawn([*argv[:3], str(free_port())]), None
    stranger = _spawn(["sleep", "30"])
    try:
        time.sleep(0.3)
        owner_pid, owner_started = _dead_owner()
        left = record_server(orphan.pid, tuple(argv), folder)
        assert left is not None and read_record(left) is not None
        _write(  # same owner, but a start time that is not this process's: pid reused
            folder,
            ServerRecord(
                living.pid,
                psutil.Process(living.pid).create_time() - 100,
                tuple(living.args),  # type: ignore[arg-type]
                owner_pid,
                owner_started,
            ),
        )
        _write(  # not an engine, though pid and start time match
            folder,
            ServerRecord(
                stranger.pid,
                psutil.Process(stranger.pid).create_time(),
                ("sleep", "30"),
                owner_pid,
                owner_started,
            ),
        )
        # The record of this (living) test process's own server is left alone.
        assert stop_left_behind(server_programs(), folder) == []
        assert orphan.poll() is None and left.exists()
        # Its owner gone, the very server recorded is stopped; the others are not touched.
        mine = read_record(left)
        assert mine is not None
        left_dead = _write(
            folder, ServerRecord(orphan.pid, mine.started, tuple(argv), owner_pid, owner_started)
        )
        left.unlink()
        said = stop_left_behind(server_programs(), folder)
        assert said == [
            f"Stopped the iperf3 server (pid {orphan.pid}) that a LinkLab which ended had "
            f"left running."
        ]
        assert orphan.wait(3) is not None
        assert living.poll() is None and stranger.poll() is None
        assert not list(folder.glob("*.json")) and not left_dead.exists()
    finally:
        for proc in (orphan, living, stranger):
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)
