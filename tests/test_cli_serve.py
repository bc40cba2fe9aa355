"""`linklab serve` with LinkLab's latency responder: on by default beside iperf3, off with
--no-echo, off with a sentence when its port is taken, and gone when the server stops."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import psutil
import pytest

from app.engine.latency.probe import UdpProber
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


#: A stop takes about 0.2 s on a quiet computer (each server ended within 2 s, its threads
#: joined within 1 s): the limit tells a stop that hangs from a slow one on a busy computer.
STOP_LIMIT_S = 60


def _stop(proc: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=STOP_LIMIT_S)
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
    holder = f"{psutil.Process().name()} (pid {os.getpid()})"  # this test holds the port
    assert (
        f"linklab: UDP port {echo} is already in use by {holder}, so LinkLab's latency "
        f"responder is off: stop it"
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


def test_taken_netserver_port_names_its_holder() -> None:
    """As found: "netserver stopped as soon as it started"; the iperf3 port already named the
    program holding it, and the netserver port does the same."""
    if shutil.which("netserver") is None:
        pytest.skip("netserver is not installed")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen(1)
        taken = holder.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "app",
                "serve",
                "--port",
                str(free_port()),
                "--no-echo",
                "--netserver-port",
                str(taken),
            ],
            cwd=ROOT_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
    owner = f"{psutil.Process().name()} (pid {os.getpid()})"
    assert f"Port {taken} is already in use by {owner}, so the netserver could not start" in (
        done.stderr
    ), done.stderr
    assert "stopped as soon as it started" not in done.stderr
    assert done.returncode != 0 and "Traceback" not in done.stderr


def test_serving_on_loopback_offers_no_lan_addresses() -> None:
    """As found: with --bind 127.0.0.1 it still listed this computer's LAN addresses "to use
    on the other computer", where nothing listens."""
    with serving("--bind", "127.0.0.1", "--no-echo") as (proc, lines):
        _stop(proc, signal.SIGINT)
    text = "".join(lines)
    assert "listen on 127.0.0.1 only, which no other computer can reach" in text
    assert "use one of these addresses" not in text
