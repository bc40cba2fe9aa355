"""Whole studies through `linklab run` with stand-in engines that behave as real ones do: an
iperf3 3.1.3 (no --connect-timeout, no live output) still runs a TCP and UDP study; an engine
reporting impossible figures fails its runs with a sentence, and every later command on
that session works."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.domain.results import RunSummary
from app.engine.drivers.iperf3.parse_json import parse_stream
from tests.conftest import linklab as run_linklab
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
from tests.engine.test_old_engines import NO_DEMO_PROBE

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
    return run_linklab(*args, env={"LINKLAB_IPERF3": engine})


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


# Over 10 s: an engine's impossible figures fail its runs; every command still reads the session.
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


#: The lines of iperf3 3.17's --help the probe reads for live JSON output.
HELP_3_17 = HELP_3_1_3 + (
    "  --json-stream             output in line-delimited JSON format\n"
    "  --forceflush              force flushing output at every interval\n"
    "  --connect-timeout #       timeout for control connection setup (ms)\n"
    "  --bidir                   bidirectional mode\n"
)
TCP_3_17 = ENGINE_OUTPUTS / "local-iperf3-3.17-linux-tcp.jsonl"


def _tampered(folder: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """iperf3 3.17's real --json-stream output with `change` applied to every interval's sum
    and to the end's sent and received totals."""
    lines = []
    for line in TCP_3_17.read_text().splitlines():
        event = json.loads(line)
        data = event["data"]
        totals = [data["sum"]] if event["event"] == "interval" else []
        if event["event"] == "end":
            totals = [data["sum_sent"], data["sum_received"]]
        for total in totals:
            change(total)
        lines.append(json.dumps(event))
    folder.mkdir(parents=True, exist_ok=True)
    recording = folder / "tampered.jsonl"
    recording.write_text("\n".join(lines) + "\n")
    return recording


def _iperf3_3_17(folder: Path, recording: Path) -> str:
    return str(
        FakeEngine(
            [Replay(recording, ("--json-stream",))],
            probes=[Probe(("--version",), "iperf 3.17\n"), Probe(("--help",), HELP_3_17)],
        ).write(folder)
    )


def _as_text(total: dict[str, Any]) -> None:
    for key, value in total.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            total[key] = str(value)


@pytest.mark.skipif(not TCP_3_17.is_file(), reason=f"{TCP_3_17} is not beside the repository")
@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            lambda total: total.update(bits_per_second=True, seconds="Infinity"),
            "iperf3 reported an impossible throughput of true",
        ),
        (lambda total: total.update(seconds="Infinity"), 'impossible duration of "Infinity"'),
        (lambda total: total.update(bytes=-1645871104), "impossible byte count of -1645871104"),
    ],
)
def test_type_confused_output_fails_the_runs_with_a_sentence(
    tmp_path: Path, listener: int, change: Callable[[dict[str, Any]], None], says: str
) -> None:
    """As found: such output was stored as good runs with no throughput, and the session as
    completed with a mean of —."""
    engine = _iperf3_3_17(tmp_path / "engine", _tampered(tmp_path, change))
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db)
    assert done.returncode == 1, done.stderr  # every run failed: a failed session
    assert says in done.stderr and "the run is not counted" in done.stderr
    assert "Traceback" not in done.stderr
    listed = json.loads(linklab(engine, "sessions", "list", "--db", str(db), "--json").stdout)
    (sid,) = [entry["session_id"] for entry in listed]
    shown = json.loads(linklab(engine, "sessions", "show", sid, "--db", str(db), "--json").stdout)
    assert shown["status"] == "failed" and shown["runs_failed"] == 2


@pytest.mark.skipif(not TCP_3_17.is_file(), reason=f"{TCP_3_17} is not beside the repository")
def test_numbers_written_as_text_read_as_those_numbers(tmp_path: Path, listener: int) -> None:
    """The rule is one for every engine: a decimal written as text ("12") is that number, as
    in the text formats; only what is no number is refused."""
    expected = [e for e in parse_stream(TCP_3_17.read_text().splitlines())][-1]
    assert isinstance(expected, RunSummary) and expected.flows[0].throughput_bps
    engine = _iperf3_3_17(tmp_path / "engine", _tampered(tmp_path, _as_text))
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db)
    assert done.returncode == 0, done.stderr
    sid = json.loads(done.stdout)["session_id"]
    shown = json.loads(linklab(engine, "sessions", "show", sid, "--db", str(db), "--json").stdout)
    assert shown["status"] == "completed"
    (point,) = shown["points"]
    assert point["throughput_bps"]["mean"] == pytest.approx(expected.flows[0].throughput_bps)


def test_a_huge_stderr_line_does_not_hide_the_engines_error(tmp_path: Path, listener: int) -> None:
    """As found: an engine that wrote a 1 MiB line, then its error, had the 1 MiB line stored
    twice (as the error and the session's reason) and its own error line lost."""
    recording = tmp_path / "stderr.txt"
    recording.write_text("debug: " + "x" * 2**20 + "\niperf3: error - something odd\n")
    engine = str(
        FakeEngine(
            [
                Replay(
                    recording, ("--json-stream",), exit_code=1, stderr_prefixes=("debug", "iperf3")
                )
            ],
            probes=[Probe(("--version",), "iperf 3.17\n"), Probe(("--help",), HELP_3_17)],
        ).write(tmp_path / "engine")
    )
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db)
    assert done.returncode == 1, done.stderr
    assert "iperf3: error - something odd" in done.stderr
    assert len(done.stderr) < 16 * 1024
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT error, raw_output FROM runs").fetchall()
        (reason,) = con.execute("SELECT status_reason FROM sessions").fetchone()
    assert len(rows) == 2
    for error, raw in rows:
        assert "iperf3: error - something odd" in error and len(error) < 4096
        assert "iperf3: error - something odd" in raw and len(raw) < 64 * 1024
    assert reason is None or len(reason) < 4096


@pytest.mark.skipif(
    not ENGINE_OUTPUTS.is_dir(),
    reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
)
def test_netperf_without_demo_mode_runs_a_study_to_its_end(tmp_path: Path, listener: int) -> None:
    """As found: a netperf built without --enable-demo (upstream's and Homebrew's default)
    prints nothing until it exits, and a 20 s TCP_STREAM ended as "the peer stopped answering
    for 13 s". This stand-in answers the demo-mode probe as such a build does and prints its
    real output only when its 15 s are over; over 20 s in all, because the run must outlast
    the 13 s a netperf with demo mode may stay silent."""
    recording = ENGINE_OUTPUTS / "local-netperf-2.7.0-nodemo-tcp_stream-20s-keyval.txt"
    engine = FakeEngine(
        [Replay(recording, ("-t", "TCP_STREAM"), delay_s=15)],
        probes=[Probe(("-D", "-V"), NO_DEMO_PROBE), Probe(("-V",), "Netperf version 2.7.0\n")],
        name="netperf",
    ).write(tmp_path / "engine")
    db = tmp_path / "lab.sqlite3"
    argv = ["run", "--engine", "netperf", "--peer", "127.0.0.1", "--netserver-port"]
    argv += [str(listener), "--duration", "15", "--runs", "1", "--sizes", "1408"]
    done = run_linklab(*argv, "--db", str(db), "--json", env={"LINKLAB_NETPERF": str(engine)})
    assert done.returncode == 0, done.stderr
    assert "built without demo mode" in done.stderr
    assert "the live chart stays empty while netperf runs" in done.stderr
    session = json.loads(done.stdout)
    assert session["status"] == "completed" and session["status_reason"] == ""
    (point,) = session["points"]
    assert point["throughput_bps"]["mean"] == pytest.approx(17028.13e6)


@pytest.mark.skipif(not TCP_3_17.is_file(), reason=f"{TCP_3_17} is not beside the repository")
def test_cr_line_ends_measure_and_a_failed_run_stores_the_engines_output(
    tmp_path: Path, listener: int
) -> None:
    """As found: iperf3 3.17's real --json-stream output with lines ending in CR alone failed
    the run, and a stream without its `end` event stored only the failure phrase as the run's
    raw output."""
    lines = TCP_3_17.read_text().splitlines()
    cr = tmp_path / "cr.jsonl"
    cr.write_text("\r".join(lines) + "\r", newline="")
    engine = _iperf3_3_17(tmp_path / "cr", cr)
    db = tmp_path / "lab.sqlite3"
    done = study(engine, listener, db)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as con:
        stored = con.execute("SELECT status, raw_output FROM runs").fetchall()
    assert [status for status, _ in stored] == ["ok", "ok"]
    assert all(raw.splitlines() == lines for _, raw in stored)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\r".join(lines[:-1]) + "\r", newline="")
    engine = _iperf3_3_17(tmp_path / "cut", cut)
    failed_db = tmp_path / "failed.sqlite3"
    done = study(engine, listener, failed_db)
    assert done.returncode == 1, done.stderr
    with sqlite3.connect(failed_db) as con:
        stored = con.execute("SELECT status, error, raw_output FROM runs").fetchall()
    assert stored and all(status == "failed" for status, _, _ in stored)
    for _, error, raw in stored:
        assert raw.splitlines()[: len(lines) - 1] == lines[:-1], raw[:200]
        assert error not in raw
