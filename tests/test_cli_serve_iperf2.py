"""`linklab serve` on a computer without iperf3 (the Windows bundle carries iperf 2 alone): it
serves iperf 2 over TCP and UDP instead, says so, and a client measures against it; on Windows
it says what the firewall will ask."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.domain.results import RunSummary
from app.engine.drivers.iperf2.parse import parse_iperf2
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineMissing
from app.engine.process.servers import firewall_note
from tests.conftest import ROOT_DIR, free_port


@pytest.fixture
def iperf2_only(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """The iperf 2 LinkLab finds, and an environment whose PATH has it and no iperf3."""
    try:
        iperf = find_tool("iperf").path
    except EngineMissing as err:
        pytest.skip(f"iperf 2 is not installed: {err.sentence}")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / Path(iperf).name).symlink_to(iperf)
    return iperf, {**os.environ, "PATH": str(folder)}


@pytest.mark.skipif(sys.platform == "win32", reason="the PATH is narrowed with a symlink")
def test_without_iperf3_serve_serves_iperf2_and_a_client_measures(
    iperf2_only: tuple[str, dict[str, str]],
) -> None:
    iperf, env = iperf2_only
    port = free_port()
    argv = [sys.executable, "-m", "app", "serve", "--no-netserver", "--no-echo"]
    proc = subprocess.Popen(
        [*argv, "--iperf2-port", str(port), "--bind", "127.0.0.1"],
        cwd=ROOT_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        while not lines or "Press Ctrl+C" not in lines[-1]:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            lines.append(line)
        out = "".join(lines)
        assert f"iperf 2 server listening on port {port}" in out
        assert f"iperf 2 UDP server listening on port {port}" in out
        assert "iperf3 server" not in out and "iperf3 server idle" not in out
        for extra in ([], ["-u", "-b", "10M"]):
            done = subprocess.run(
                [
                    iperf,
                    "-c",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-t",
                    "1",
                    "-i",
                    "1",
                    "-f",
                    "k",
                    *extra,
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            (total,) = [
                e for e in parse_iperf2(done.stdout.splitlines()) if isinstance(e, RunSummary)
            ]
            (up,) = total.flows
            assert up.sender_bps and up.sender_bps > 0, done.stdout
            if extra:  # the UDP server's own report came back
                assert up.receiver_bps and up.packets, done.stdout
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    assert "iperf3 was not found" in err
    assert "Serving the iperf 2 server instead" in err
    assert "measure with the iperf2 engine" in err


def test_on_windows_serve_says_what_the_firewall_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    server = SimpleNamespace(tool=SimpleNamespace(path=str(Path("engines") / "iperf.exe")))
    monkeypatch.setattr(sys, "platform", "linux")
    assert firewall_note([server]) is None  # type: ignore[list-item]
    monkeypatch.setattr(sys, "platform", "win32")
    note = firewall_note([server, server])  # type: ignore[list-item]
    assert note is not None and note.count("iperf.exe") == 2
    assert "Allow an app through firewall" in note and note.endswith(".")
