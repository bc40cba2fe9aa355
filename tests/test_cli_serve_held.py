"""`linklab serve` and a client that holds its iperf3 server (CVE-2023-7250: iperf3 3.12, as
Debian 12 ships it, waits for ever for a client that sends five bytes): the server is started
again after the stall timeout, its console says why and what fixes it, and the next measure
is served while that client is still connected; a client that is measuring, for longer than
the stall timeout many times over, is never cut. Real `linklab serve`, real iperf3 on both
ends, a real socket that holds."""

from __future__ import annotations

import signal
import subprocess

import psutil
import pytest

from app.engine.drivers.iperf3.server import held_forever
from app.engine.process.tools import Tool
from tests.conftest import free_port, linklab, start_linklab
from tests.held_client import Console, closed_by_server, held_by, holding

pytestmark = pytest.mark.usefixtures("iperf3_tool")

#: serve's --stall-timeout in these tests; an iperf3 server reporting each second is then
#: started again once a client has held it this long without progress.
STALL_S = 3
#: How long a held server may take to be started again: the stall time, a look a second, and
#: the start of the new server, with room for a loaded machine.
RESTARTED_WITHIN_S = STALL_S + 20


def serve(port: int, *args: str) -> tuple[subprocess.Popen[str], Console, int]:
    """`linklab serve` (its iperf3 server only) until it says "Press Ctrl+C": the process,
    its console and the server's pid."""
    proc = start_linklab(
        *("serve", "--no-netserver", "--no-echo", "--port", str(port), *args),
    )
    console = Console(proc)
    line = console.wait("iperf3 server listening on port", 20)
    console.wait("Press Ctrl+C", 20)
    return proc, console, int(line.rpartition("(pid ")[2].rstrip(")"))


def stop(proc: subprocess.Popen[str], console: Console) -> list[str]:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    proc.wait(timeout=15)
    lines = console.read_all()
    for stream in (proc.stdout, proc.stderr):
        assert stream is not None
        stream.close()
    return lines


def measure(port: int, seconds: int) -> subprocess.CompletedProcess[str]:
    return linklab(
        *("measure", "--peer", "127.0.0.1", "--port", str(port), "--duration", str(seconds)),
        "--json",
    )


# Over 10 s: the stall timeout passes, and the server is started again.
def test_a_held_server_is_started_again_and_the_next_measure_is_served(iperf3_tool: Tool) -> None:
    port = free_port()
    proc, console, pid = serve(port, "--idle-timeout", "10", "--stall-timeout", str(STALL_S))
    try:
        if held_forever(iperf3_tool):  # what the user is told before anything happens
            note = console.wait("CVE-2023-7250", 0)
            assert note.startswith(f"Note: iperf3 {iperf3_tool.version_string} waits for ever")
            assert "iperf3 3.15 or newer gives up on such a client by itself" in note
        with holding(port) as client:
            line = console.wait("was held for", RESTARTED_WITHIN_S)
            # The reason, with the client that held it and what fixes it for good.
            assert f"The iperf3 server on port {port} was held for " in line
            assert f"by a client ({held_by(client)}) that made no progress" in line
            assert "LinkLab started it again" in line
            if held_forever(iperf3_tool):
                assert "CVE-2023-7250" in line and "3.15 or newer gives up on it" in line
            # The client has not left; the server let go of it, and serves the next test.
            assert closed_by_server(client)
            done = measure(port, 1)
            assert done.returncode == 0, done.stderr
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"
        assert proc.poll() is None, "serve ended with its server"
    finally:
        lines = stop(proc, console)
    assert sum("was held for" in line for line in lines) == 1, lines


# Over 10 s: a real test four times the stall timeout long.
def test_a_client_measuring_for_longer_than_the_stall_timeout_is_never_cut() -> None:
    port = free_port()
    proc, console, pid = serve(port, "--stall-timeout", "1")
    started = psutil.Process(pid).create_time()
    try:
        done = measure(port, 12)  # a stall time is at least three intervals: 3 s here
        assert done.returncode == 0, done.stderr
        assert psutil.Process(pid).create_time() == started  # the same server throughout
    finally:
        lines = stop(proc, console)
    assert not any("was held" in line for line in lines), lines
    assert any("receiver" in line for line in lines), lines  # the test it served, in its log


def test_a_pool_restarts_only_the_server_that_is_held() -> None:
    port = free_port()
    proc, console, _pid = serve(port, "--count", "2", "--stall-timeout", str(STALL_S))
    try:
        pids = {
            int(line.split("port ")[1].split()[0]): int(line.rpartition("(pid ")[2].rstrip(")"))
            for line in console.lines
            if "iperf3 server listening on port" in line
        }
        assert set(pids) == {port, port + 1}
        with holding(port + 1):
            line = console.wait("was held for", RESTARTED_WITHIN_S)
            assert f"The iperf3 server on port {port + 1} was held" in line
            assert measure(port + 1, 1).returncode == 0
        assert psutil.Process(pids[port]).is_running()  # its neighbour served on, untouched
    finally:
        stop(proc, console)


def test_stall_timeout_zero_leaves_the_server_unwatched() -> None:
    port = free_port()
    proc, console, _pid = serve(port, "--stall-timeout", "0")
    try:
        limits = console.wait("Limits:", 0)
        assert "without progress" not in limits
        assert not any("CVE-2023-7250" in line for line in console.lines)
    finally:
        stop(proc, console)
