"""Whole studies through `linklab run` with stand-in engines that behave as real ones do: an
iperf3 3.1.3 (no --connect-timeout, no live output) still runs a TCP and UDP study; an engine
reporting impossible figures fails its runs with a sentence, and every later command on
that session works."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT_DIR
from tests.engine.engine_replay import (
    ENGINE_OUTPUTS,
    HELP_3_1_3,
    UNKNOWN_OPTION,
    FakeEngine,
    Probe,
    Replay,
    iperf3_3_1_3,
)
from tests.engine.test_bounds import _document

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="stand-in engines are shebang scripts"
)


@pytest.fixture
def listener() -> Iterator[int]:
    """Something listening on a loopback port, for the peer check's one handshake (the
    stand-in client never connects anywhere)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def linklab(engine: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LINKLAB_IPERF3": engine}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT_DIR,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def study(engine: str, port: int, db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return linklab(
        engine,
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--sizes",
        "1408",
        "--runs",
        "2",
        "--duration",
        "1",
        "--db",
        str(db),
        "--json",
        *extra,
    )


@pytest.mark.skipif(
    not ENGINE_OUTPUTS.is_dir(),
    reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
)
def test_iperf3_3_1_runs_a_tcp_and_udp_study(tmp_path: Path, listener: int) -> None:
    engine = iperf3_3_1_3(tmp_path / "engine")
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db, "--protocol", "tcp,udp", "--bitrate", "10M")
    assert done.returncode == 0, done.stderr
    sid = json.loads(done.stdout)["session_id"]
    shown = json.loads(linklab(engine, "sessions", "show", sid, "--db", str(db), "--json").stdout)
    points = {p["protocol"]: p for p in shown["points"]}
    assert points["tcp"]["n"] == points["udp"]["n"] == 2
    assert points["tcp"]["throughput_bps"]["mean"] == pytest.approx(388736097.120548)
    # UDP: what arrived, worked out from the loss counters (60 of 441 datagrams lost).
    assert points["udp"]["throughput_bps"]["mean"] == pytest.approx(9697822.025529 * 381 / 441)
    assert points["udp"]["loss_pct"]["mean"] == pytest.approx(13.605442)


def test_impossible_figures_fail_the_runs_and_the_session_stays_usable(
    tmp_path: Path, listener: int
) -> None:
    recording = tmp_path / "impossible.json"
    recording.write_text(_document({"bits_per_second": 1e308}))
    engine = str(
        FakeEngine(
            [Replay(recording, ("-J",))],
            probes=[Probe(("--version",), "iperf 3.1.3\n"), Probe(("--help",), HELP_3_1_3)],
            rejects=["--connect-timeout", "--forceflush", "--json-stream", "--bidir"],
            reject_text=UNKNOWN_OPTION,
        ).write(tmp_path / "engine")
    )
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db)
    assert done.returncode == 1, done.stderr  # every run failed: a failed session
    assert "impossible throughput of 1e+308 bit/s" in done.stderr
    assert "Traceback" not in done.stderr
    # Every later command on that session works.
    listed = json.loads(linklab(engine, "sessions", "list", "--db", str(db), "--json").stdout)
    (sid,) = [entry["session_id"] for entry in listed]
    shown = linklab(engine, "sessions", "show", sid, "--db", str(db), "--json")
    assert shown.returncode == 0, shown.stderr
    session = json.loads(shown.stdout)
    assert session["status"] == "failed" and session["runs_failed"] == 2
    for argv in (
        ("sessions", "list", "--db", str(db)),
        ("sessions", "show", sid, "--db", str(db)),
        ("export", sid, "--format", "csv", "--out", "-", "--db", str(db)),
        ("export", sid, "--format", "points", "--out", "-", "--db", str(db)),
        (
            "export",
            sid,
            "--format",
            "samples",
            "--out",
            str(tmp_path / "s.csv"),
            "--db",
            str(db),
        ),
        ("export", sid, "--format", "html", "--out", str(tmp_path / "r.html"), "--db", str(db)),
        (
            "export",
            sid,
            "--format",
            "json",
            "--out",
            str(tmp_path / "x.linklab"),
            "--db",
            str(db),
        ),
    ):
        later = linklab(engine, *argv)
        assert later.returncode == 0, (argv, later.stderr)
        assert "Traceback" not in later.stderr
    runs = linklab(engine, "export", sid, "--format", "csv", "--out", "-", "--db", str(db)).stdout
    assert runs.count("impossible throughput") == 2  # each failed run names the figure
