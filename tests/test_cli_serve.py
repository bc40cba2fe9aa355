"""`linklab serve` with LinkLab's latency responder: on by default beside iperf3, off with
--no-echo, off with a sentence when its port is taken, and gone when the server stops."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from app.engine.probe import UdpProber
from tests.conftest import ROOT_DIR, free_port

#: Every test here runs `linklab serve`, which starts a real iperf3 server.
pytestmark = pytest.mark.usefixtures("iperf3_tool")


@contextmanager
def serving(
    *args: str, port: int | None = None
) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """`linklab serve` (iperf3 only) until it says "Press Ctrl+C", with what it printed."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--no-netserver", "--port", str(port), *args],
        cwd=ROOT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        while not lines or "Press Ctrl+C" not in lines[-1]:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            lines.append(line)
        yield proc, lines
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def _stop(proc: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=10)
    return proc.returncode, err


def _udp_port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_responder_serves_beside_iperf3_and_stops_with_it(signum: int) -> None:
    echo = free_port()
    with serving("--echo-port", str(echo)) as (proc, lines):
        assert f"LinkLab latency responder listening on UDP port {echo}\n" in lines
        assert any("iperf3 server listening on port" in line for line in lines)
        summary = UdpProber("127.0.0.1", echo, duration_s=0.2).run()
        assert summary.received == summary.sent > 0
        code, err = _stop(proc, signum)
    assert code in (0, 128 + signal.SIGTERM), err
    assert "Traceback" not in err
    assert _udp_port_free(echo)


def test_no_echo_starts_no_responder() -> None:
    echo = free_port()
    with serving("--no-echo", "--echo-port", str(echo)) as (proc, lines):
        assert not any("responder" in line for line in lines)
        summary = UdpProber("127.0.0.1", echo, duration_s=0.1, timeout_s=0.1).run()
        assert summary.received == 0
        _, err = _stop(proc, signal.SIGINT)
    assert "responder" not in err


def test_taken_port_leaves_the_responder_off_and_iperf3_serving() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("0.0.0.0", 0))
        echo = holder.getsockname()[1]
        with serving("--echo-port", str(echo)) as (proc, lines):
            assert not any("responder listening" in line for line in lines)
            assert any("iperf3 server listening on port" in line for line in lines)
            assert proc.poll() is None  # still serving
            _, err = _stop(proc, signal.SIGINT)
    assert (
        f"linklab: UDP port {echo} is already in use, so LinkLab's latency responder is off"
    ) in err
    assert "The iperf3 server still serves." in err
    assert "Traceback" not in err


def test_echo_port_on_an_iperf3_port_is_refused_in_a_sentence() -> None:
    port = free_port()
    with serving("--echo-port", str(port), port=port) as (proc, lines):
        assert not any("responder listening" in line for line in lines)
        _, err = _stop(proc, signal.SIGINT)
    assert f"UDP port {port} belongs to an iperf3 server here" in err
    assert "choose another --echo-port" in err
