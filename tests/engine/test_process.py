"""Managed child processes: lines as they come, capped lines, whole-tree cancel, no orphans."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest

from app.domain.results import Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.process import process
from app.engine.process import tree as process_tree
from app.engine.process.process import (
    IdleTimeout,
    ManagedProcess,
    creation_options,
    live_pids,
)
from app.engine.process.servers import LocalServer
from app.engine.process.tools import Tool
from app.engine.process.tree import ProcessTree
from tests.conftest import ROOT_DIR, engine_children, engine_name

PY = sys.executable


def test_lines_arrive_as_printed() -> None:
    code = "import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.3)"
    proc = ManagedProcess([PY, "-c", code])
    proc.start()
    stamps = [(line, time.monotonic()) for line in proc.lines(idle_timeout=5)]
    assert [line for line, _ in stamps] == ["0", "1", "2"]
    assert stamps[2][1] - stamps[0][1] > 0.4  # not delivered in one lump at the end
    assert proc.wait(5) == 0


def test_long_lines_are_capped_and_stderr_drained() -> None:
    code = "import sys\nsys.stderr.write('e' * 300000 + '\\n')\nprint('x' * 500000)\nprint('after')"
    proc = ManagedProcess([PY, "-c", code], max_line_bytes=1000)
    proc.start()
    lines = list(proc.lines(idle_timeout=10))
    assert lines == ["x" * 1000, "after"]
    assert proc.wait(5) == 0
    assert sum(len(s) for s in proc.stderr_lines()) <= 300000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_stderr_is_complete_once_wait_returns_however_long_its_reader_takes() -> None:
    """An engine that fills a 1 MiB stderr pipe with a million line ends, writes its error
    line last and exits at once: its reader still has the whole pipe to split into lines
    when the engine is reaped (seconds of CPU, longer on a busy computer), and the error line
    is what the run's failure is classified by. A million empty lines are kept within the cap."""
    code = (
        "import fcntl, os, sys\n"
        "fcntl.fcntl(2, 1031, 1 << 20)\n"  # F_SETPIPE_SZ: the whole million fits before exit
        "os.write(2, b'\\n' * ((1 << 20) - 100))\n"
        "os.write(2, b'iperf3: error - control socket has closed unexpectedly\\n')\n"
        "sys.exit(1)"
    )
    proc = ManagedProcess([PY, "-c", code], stderr_limit=64 * 1024)
    proc.start()
    assert list(proc.lines(idle_timeout=30)) == []
    assert proc.wait(30) == 1
    kept = proc.stderr_lines()
    assert kept[-1] == "iperf3: error - control socket has closed unexpectedly"
    assert sum(len(line) + 1 for line in kept) <= 64 * 1024


def test_long_engine_lines_arrive_whole() -> None:
    """iperf3 3.21 -P 128 --bidir prints --json-stream lines of ~100 KB; bigger stays whole too."""
    code = "print('a' * 3_000_000)\nprint('b' * 70_000)\nprint('end')"
    proc = ManagedProcess([PY, "-c", code])
    proc.start()
    lines = list(proc.lines(idle_timeout=10))
    assert [len(line) for line in lines] == [3_000_000, 70_000, 3]
    assert proc.wait(5) == 0


def test_idle_timeout() -> None:
    proc = ManagedProcess([PY, "-c", "import time; print('hi', flush=True); time.sleep(30)"])
    proc.start()
    lines = proc.lines(idle_timeout=0.5)
    assert next(lines) == "hi"
    with pytest.raises(IdleTimeout):
        next(lines)
    proc.cancel()
    proc.wait(2)


def test_cancel_ends_the_whole_tree_within_a_second() -> None:
    # The child starts a grandchild that ignores SIGTERM: only SIGKILL to the group ends it.
    code = (
        "import subprocess, sys, time\n"
        "g = subprocess.Popen([sys.executable, '-c', "
        "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print(1, flush=True); time.sleep(60)'])\n"
        "print(g.pid, flush=True)\ntime.sleep(60)"
    )
    proc = ManagedProcess([PY, "-c", code])
    proc.start()
    lines = proc.lines(idle_timeout=10)
    grandchild = int(next(lines))
    assert psutil.pid_exists(grandchild)
    t0 = time.monotonic()
    proc.cancel()
    elapsed = time.monotonic() - t0
    proc.wait(2)
    assert elapsed < 10  # SIGKILL after the grace, not the grandchild's minute of sleep
    time.sleep(0.1)
    assert (
        not psutil.pid_exists(grandchild)
        or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE
    )
    assert proc.pid not in live_pids()


def test_argv_is_never_a_shell_string() -> None:
    with pytest.raises(ValueError):
        ManagedProcess("echo hi")  # type: ignore[arg-type]
    proc = ManagedProcess([PY, "-c", "import sys; print(sys.argv[1])", "$(id); `id` | x > y"])
    proc.start()
    assert list(proc.lines(5)) == ["$(id); `id` | x > y"]
    proc.wait(5)


def test_exception_in_consumer_ends_engine(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    run = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=60, interval_s=0.2)
    )

    def explode(event: object) -> None:
        if isinstance(event, Sample):
            raise RuntimeError("consumer failed")

    with pytest.raises(RuntimeError):
        run.run(explode)
    assert not engine_children(clients_only=True)


def test_creation_options_per_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows: a new process group and no console window; POSIX: a new session (group)."""
    monkeypatch.setattr(process, "_IS_WINDOWS", True)
    windows = creation_options()
    assert set(windows) == {"creationflags"}
    assert windows["creationflags"] & 0x08000000  # CREATE_NO_WINDOW
    assert windows["creationflags"] & 0x200  # CREATE_NEW_PROCESS_GROUP
    monkeypatch.setattr(process, "_IS_WINDOWS", False)
    assert creation_options() == {"start_new_session": True}


def _sleeping_tree(script: str) -> tuple[subprocess.Popen[bytes], list[psutil.Process]]:
    """A shell (its own session, so a stray group signal cannot reach the tests) that runs two
    sleeps, one in the background; returned once both sleeps are running."""
    shell = subprocess.Popen(["sh", "-c", script], start_new_session=True)
    root = psutil.Process(shell.pid)
    deadline = time.monotonic() + 5
    while True:
        procs = [root, *root.children(recursive=True)]
        if sum(1 for p in procs if p.name() == "sleep") >= 2:  # sh may exec the last one
            return shell, procs
        assert time.monotonic() < deadline, "the sleeps did not start"
        time.sleep(0.02)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _ended(procs: list[psutil.Process]) -> bool:
    deadline = time.monotonic() + 3
    while any(_alive(p) for p in procs):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.skipif(sys.platform == "win32" or not shutil.which("sh"), reason="POSIX shell")
@pytest.mark.parametrize("ignores_sigterm", [False, True])
def test_windows_tree_is_captured_before_it_is_signalled(
    monkeypatch: pytest.MonkeyPatch, ignores_sigterm: bool
) -> None:
    """ProcessTree's Windows branch (psutil, no process group), run here with the flag set: the
    background sleep is orphaned when its shell dies, and is still ended."""
    monkeypatch.setattr(process_tree, "_IS_WINDOWS", True)
    script = "sleep 30 & sleep 30"
    shell, procs = _sleeping_tree(f"trap '' TERM; {script}" if ignores_sigterm else script)
    try:
        tree = ProcessTree(shell.pid)
        tree.terminate()
        if ignores_sigterm:
            time.sleep(0.3)
            assert all(_alive(p) for p in procs)
            tree.kill()
        shell.wait(3)
        assert _ended(procs)
    finally:
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()
        shell.wait(3)


@pytest.mark.parametrize("how", ["sigterm", "exit"])
def test_no_engine_outlives_linklab(iperf3_server_port: tuple[int, LocalServer], how: str) -> None:
    """`linklab measure` killed by SIGTERM (or finishing normally) leaves no iperf3 client."""
    port, _ = iperf3_server_port
    duration = "60" if how == "sigterm" else "1"
    app = subprocess.Popen(
        [
            PY,
            "-m",
            "app",
            "measure",
            "--peer",
            "127.0.0.1",
            "--port",
            str(port),
            "--duration",
            duration,
            "--interval",
            "0.2",
        ],
        cwd=ROOT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert app.stdout is not None
    client_pids = []
    deadline = time.monotonic() + 15
    for line in app.stdout:
        if not client_pids:
            client_pids = [
                p.pid
                for p in psutil.Process(app.pid).children(recursive=True)
                if engine_name(p.name()) == "iperf3"
            ]
        if " s " in line and "bit/s" in line:  # first interval printed
            break
        assert time.monotonic() < deadline
    assert client_pids, "iperf3 client not seen"
    if how == "sigterm":
        os.kill(app.pid, signal.SIGTERM)
    _, err = app.communicate(timeout=15)
    if how == "exit":
        assert app.returncode == 0, err
    else:
        assert app.returncode == 128 + signal.SIGTERM
    time.sleep(0.2)
    for pid in client_pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_cr_crlf_and_lf_end_lines_alike_as_they_arrive() -> None:
    """A line ended by CR arrives at once; a CRLF split between two writes is one line end."""
    code = (
        "import sys, time\n"
        "out = sys.stdout.buffer\n"
        "for piece in (b'a\\r', b'\\nb\\rc\\r\\n', b'd\\n\\r', b'\\ne', b'\\r'):\n"
        "    out.write(piece); out.flush(); time.sleep(0.3)\n"
        "sys.stderr.buffer.write(b'warn\\rerror - x\\r'); sys.stderr.flush()\n"
    )
    proc = ManagedProcess([PY, "-c", code])
    proc.start()
    stamps = [(line, time.monotonic()) for line in proc.lines(idle_timeout=5)]
    assert [line for line, _ in stamps] == ["a", "b", "c", "d", "", "e"]
    assert stamps[1][1] - stamps[0][1] > 0.2  # "a" did not wait for the next write
    assert proc.wait(5) == 0
    assert proc.stderr_lines() == ["warn", "error - x"]
