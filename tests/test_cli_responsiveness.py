"""`linklab responsiveness`: against this computer (its own servers) and against a peer running
`linklab serve`, with and without its latency responder; a bad peer in one sentence."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.conftest import linklab as run_linklab
from tests.test_cli_serve import serving


@pytest.fixture(autouse=True)
def _own_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each result is kept: in the test's own database, never the user's."""
    monkeypatch.setenv("LINKLAB_DB", str(tmp_path / "linklab.sqlite3"))


SHORT = ["--idle-seconds", "1", "--step-seconds", "1", "--phase-seconds", "2", "--max-flows", "4"]


def linklab(*args: str) -> subprocess.CompletedProcess[str]:
    return run_linklab("responsiveness", *args)


@pytest.mark.usefixtures("iperf3_tool")
def test_a_closed_port_is_one_sentence_and_exit_1() -> None:
    done = linklab("--peer", "127.0.0.1", "--port", str(free_port()))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert "No iperf3 server answers at 127.0.0.1" in done.stderr
    assert "start one there" in done.stderr


def test_a_host_like_an_option_is_a_wrong_value_exit_2() -> None:
    done = linklab("--peer=-x")
    assert done.returncode == 2
    assert "starts with '-'" in done.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool")
def test_this_computer_gives_the_json_keys() -> None:
    done = linklab("--peer", "this-computer", "--json", *SHORT)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    for key in ("loaded_latency_ms", "rpm", "rating"):
        assert set(data[key]) == {"download", "upload"}
    assert data["idle_latency_ms"] > 0
    assert data["rating"]["download"] in ("Poor", "Fair", "Good", "Excellent")
    upload_ms = data["loaded_latency_ms"]["upload"]
    assert data["rpm"]["upload"] == pytest.approx(60_000 / upload_ms, rel=0.01)
    assert data["method"] == "udp-echo"
    assert data["both"]["flows"] == 2
    assert "Download…" in done.stderr and "idle latency" in done.stderr
    # Kept like a session: listed with its kind, the same figures as printed.
    assert "Kept as " in done.stderr
    listed = run_linklab("sessions", "--json")
    (kept,) = json.loads(listed.stdout)
    assert kept["kind"] == "responsiveness" and kept["session_id"] == data["session_id"]
    assert kept["rpm"] == data["rpm"] and kept["loaded_latency_ms"] == data["loaded_latency_ms"]


@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool")
def test_a_peer_without_the_responder_falls_back_and_says_so() -> None:
    port = free_port()
    nobody = str(free_port())  # no responder there, whatever else runs on this machine
    with serving("--no-echo", port=port):
        done = linklab(
            "--peer", "127.0.0.1", "--port", str(port), "--echo-port", nobody, "--no-both", *SHORT
        )
    assert done.returncode == 0, done.stderr
    assert "Downlink responsiveness: " in done.stdout
    assert "Uplink responsiveness: " in done.stdout
    assert "TCP connection time to the iperf3 server's port" in done.stdout


@pytest.mark.slow
@pytest.mark.usefixtures("iperf3_tool")
def test_a_peer_running_linklab_serve_is_probed_by_its_echo() -> None:
    port, echo = free_port(), free_port()
    with serving("--echo-port", str(echo), port=port):
        done = linklab(
            "--peer", "127.0.0.1", "--port", str(port), "--echo-port", str(echo), "--json", *SHORT
        )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["method"] == "udp-echo" and f"port {echo}" in data["method_sentence"]
    assert data["loaded_latency_ms"]["download"] > 0
