"""`linklab run`, `resume`, `sessions` and `export` end to end, as a user runs them."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from app.analysis.stats import summarize
from app.engine.process.servers import LocalServer
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import linklab, start_linklab
from tests.partial_output import assert_output_holds_the_intervals, stopped_run


# Over 10 s: `run --json`, the database and the CSV export agree on a real TCP+UDP, IPv4+IPv6 study.
def test_run_json_agrees_with_database_and_csv(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    done = linklab(
        "run",
        "--peer",
        "127.0.0.1",
        "--peer6",
        "::1",
        "--port",
        str(port),
        "--protocol",
        "tcp,udp",
        "--ip",
        "4,6",
        "--sizes",
        "128:1408:1280",
        "--runs",
        "2",
        "--duration",
        "1",
        "--bitrate",
        "50M",
        "--tag",
        "room=B12",
        "--security",
        "WPA2",
        "--name",
        '=HYPERLINK("x")',
        "--db",
        str(db),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed" and result["runs_done"] == 16, done.stderr
    assert "point 4/2" not in done.stderr and "ETA" in done.stderr
    points = result["points"]
    assert len(points) == 8
    assert {(p["protocol"], p["ip_version"], p["value"]) for p in points} == {
        (proto, ip, size) for proto in ("tcp", "udp") for ip in (4, 6) for size in (128, 1408)
    }
    for point in points:
        assert point["n"] == 2 and point["variable"] == "length" and point["direction"] == "up"
        for metric in ("throughput_bps", "cpu_local_pct"):
            assert set(point[metric]) == {"mean", "std", "min", "max", "ci95"}
        assert point["rtt_ms"] is None  # not measured: null, never 0
        if point["protocol"] == "udp":
            assert 25e6 < point["throughput_bps"]["mean"] < 55e6  # -b 50M, less any loss
            assert point["loss_pct"] is not None and point["jitter_ms"] is not None
    # The database holds the same numbers.
    with Database(db, readonly=True) as database:
        store = SessionStore(database)
        session = store.get(result["session_id"])
        runs = store.runs(session.id)
        assert session.plan.conditions.tag_dict == {"room": "B12"}
    for point in points:
        values = [
            r.metrics.throughput_bps
            for r in runs
            if r.value == point["value"]
            and r.key.protocol.value == point["protocol"]
            and int(r.key.ip_version) == point["ip_version"]
        ]
        assert point["throughput_bps"]["mean"] == pytest.approx(sum(values) / len(values))
        assert point["throughput_bps"]["min"] == min(values)
    # And so does the CSV export: one row per run, numbers as numbers, formulas defused.
    out = tmp_path / "runs.csv"
    exported = linklab(
        "export", result["session_id"][:8], "--format", "csv", "--out", str(out), "--db", str(db)
    )
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(rows) == 16
    assert rows[0]["session_name"].startswith("'=HYPERLINK")
    assert rows[0]["started_at_utc"].endswith("Z") and "T" in rows[0]["started_at_utc"]
    by_id = {
        (
            r.key.protocol.value,
            int(r.key.ip_version),
            r.value,
            r.key.repetition,
        ): r.metrics.throughput_bps
        for r in runs
    }
    for row in rows:
        key = (row["protocol"], int(row["ip_version"]), float(row["value"]), int(row["repetition"]))
        assert float(row["throughput_bps"]) == pytest.approx(by_id[key])
    points_file = tmp_path / "points.csv"
    done_points = linklab(
        "export",
        result["session_id"],
        "--format",
        "points",
        "--out",
        str(points_file),
        "--db",
        str(db),
    )
    assert done_points.returncode == 0, done_points.stderr
    point_rows = list(csv.DictReader(io.StringIO(points_file.read_text(encoding="utf-8"))))
    assert len(point_rows) == 8
    for row in point_rows:
        match = next(
            p
            for p in points
            if p["protocol"] == row["protocol"]
            and p["ip_version"] == int(row["ip_version"])
            and p["value"] == float(row["value"])
        )
        assert float(row["throughput_bps_mean"]) == pytest.approx(match["throughput_bps"]["mean"])
        assert int(row["n"]) == match["n"] and row["rtt_ms_mean"] == ""
    report = tmp_path / "session.html"
    done_report = linklab(
        "export", result["session_id"], "--format", "html", "--out", str(report), "--db", str(db)
    )
    assert done_report.returncode == 0, done_report.stderr
    page = report.read_text(encoding="utf-8")
    assert "TCP · IPv4" in page and "UDP · IPv6" in page
    assert "=HYPERLINK(&quot;x&quot;)" in page  # the session name, as escaped text
    as_json = linklab(
        "export", result["session_id"], "--format", "json", "--out", "-", "--db", str(db)
    )
    data = json.loads(as_json.stdout)
    assert data["format_version"] == 2 and len(data["sessions"][0]["runs"]) == 16
    first_run = data["sessions"][0]["runs"][0]
    assert first_run["samples"] and first_run["raw_output"]
    assert {"sent_bps", "received_bps"} <= set(first_run["samples"][0])
    shown = linklab("sessions", "show", result["session_id"][:6], "--db", str(db), "--json")
    assert json.loads(shown.stdout)["points"] == points
    listed = json.loads(linklab("sessions", "--db", str(db), "--json").stdout)
    assert listed[0]["session_id"] == result["session_id"]


# Rename, tag and delete commands on a really measured session.
def test_sessions_rename_tag_delete(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    db = str(tmp_path / "lab.sqlite3")
    done = linklab(
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--sizes",
        "1408",
        "--runs",
        "1",
        "--duration",
        "1",
        "--db",
        db,
        "--json",
    )
    sid = json.loads(done.stdout)["session_id"]
    assert linklab("sessions", "rename", sid[:8], "Open, IPv4", "--db", db).returncode == 0
    assert (
        linklab("sessions", "tag", "Open, IPv4", "os=Debian", "ap=A1", "--db", db).returncode == 0
    )
    assert linklab("sessions", "tag", sid, "--remove", "ap", "--db", db).returncode == 0
    shown = json.loads(linklab("sessions", "show", sid, "--db", db, "--json").stdout)
    assert shown["name"] == "Open, IPv4" and shown["conditions"]["tags"] == {"os": "Debian"}
    single = linklab("export", sid, "--format", "pdf", "--out", str(tmp_path / "x.pdf"), "--db", db)
    # A one-series session is a report of its own.
    assert single.returncode == 0, single.stderr
    assert (tmp_path / "x.pdf").read_bytes().startswith(b"%PDF-")
    refused = linklab("sessions", "delete", sid, "--db", db)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert linklab("sessions", "delete", sid, "--yes", "--db", db).returncode == 0
    assert json.loads(linklab("sessions", "list", "--db", db, "--json").stdout) == []


def _wait_for_count(db: Path, sql: str, count: int, what: str, timeout: float = 60) -> None:
    """Until the count the query gives (read from the database as it is written) reaches
    count."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
                n = conn.execute(sql).fetchone()[0]
                conn.close()
                if n >= count:
                    return
            except sqlite3.Error:
                pass
        time.sleep(0.1)
    raise AssertionError(f"{count} {what} were not stored in time")


def _wait_for_runs(db: Path, count: int, timeout: float = 60) -> None:
    finished = "SELECT count(*) FROM runs WHERE status != 'partial'"
    _wait_for_count(db, finished, count, "runs", timeout)


# Over 10 s: kill -9 mid-run keeps the partial run and resume completes the session.
def test_kill_9_then_resume(tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]) -> None:
    port, _ = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    proc = start_linklab(
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--sizes",
        "128,768,1408",
        "--runs",
        "2",
        "--duration",
        "1",
        "--db",
        str(db),
    )
    _wait_for_runs(db, 2)
    time.sleep(0.3)  # somewhere inside the third run
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finished = conn.execute("SELECT count(*) FROM runs WHERE status != 'partial'").fetchone()[0]
    # The run in progress was stored as it went: kept as partial, with what it measured.
    partial = conn.execute("SELECT count(*) FROM runs WHERE status = 'partial'").fetchone()[0]
    conn.close()
    assert partial <= 1
    assert 2 <= finished < 6
    listed = json.loads(linklab("sessions", "list", "--db", str(db), "--json").stdout)
    assert listed[0]["status"] == "interrupted" and listed[0]["runs_done"] == finished
    # The killed run's iperf3 was in LinkLab's process group: nothing is left to reap here,
    # and the server is free again for the resume.
    resumed = linklab("resume", listed[0]["session_id"][:8], "--db", str(db), "--json")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["status"] == "completed" and result["runs_done"] == 6
    assert f"resuming after {finished}" in resumed.stderr
    conn = sqlite3.connect(db)
    keys = conn.execute(
        "SELECT value_index, repetition FROM runs WHERE status != 'partial'"
    ).fetchall()
    conn.close()
    assert len(keys) == len(set(keys)) == 6


def test_ctrl_c_stops_gracefully(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    proc = start_linklab(
        "run",
        "--peer",
        "127.0.0.1",
        "--port",
        str(port),
        "--sizes",
        "1408",
        "--runs",
        "5",
        "--duration",
        "2",
        "--db",
        str(db),
        "--json",
    )
    _wait_for_runs(db, 1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["status"] == "stopped" and result["runs_done"] >= 1


def test_ctrl_c_mid_run_keeps_the_engine_output_until_then(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    plan = ["--peer", "127.0.0.1", "--port", str(port), "--sizes", "1408", "--runs", "1"]
    proc = start_linklab("run", *plan, "--duration", "30", "--db", str(db))
    _wait_for_count(db, "SELECT count(*) FROM samples", 3, "samples")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert_output_holds_the_intervals(*stopped_run(db))


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--sizes", "abc"], "--sizes"),
        (["--sizes", "1408:128:256"], "--sizes"),
        (["--protocol", "sctp"], "--protocol"),
        (["--ip", "5"], "--ip"),
        (["--runs", "0"], "--runs"),
        (["--runs", "1001"], "--runs"),
        (["--duration", "86401"], "--duration"),
        (["--order", "random"], "--order"),
        (["--metric", "speed"], "--metric"),
        (["--tag", "=oops"], "--tag"),
        (["--port", "99999"], "--port"),
        (["--bitrate", "fast"], "--bitrate"),
        (["--preset", "80211n-study", "--plan", "x.json"], "--plan"),
    ],
)
def test_bad_flags_exit_2_naming_the_argument(args: list[str], named: str) -> None:
    done = linklab("run", "--peer", "127.0.0.1", *args, "--db", os.devnull)
    assert done.returncode == 2
    assert named in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--protocol", "udp", "--sizes", "8"], "between 16 and 65507"),
        (["--metric", "rtt"], "netperf"),
        (["--preset", "no-such-preset"], "no preset"),
        (["--ip", "6"], "IPv4 address, but IPv6 is measured"),
        ([], ""),  # no --peer given at all: replaced below
    ],
)
def test_invalid_plans_exit_2_with_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    argv = ["run", "--peer", "127.0.0.1", *args] if args else ["run"]
    done = linklab(*argv, "--db", str(tmp_path / "x.sqlite3"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("linklab: ")
    assert words in lines[0] if words else "--peer" in lines[0]
    assert not (tmp_path / "x.sqlite3").exists()  # nothing started, nothing written


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not valid JSON"),
        ('{"values": [128, "big"]}', "cannot use"),
        ('{"repetitions": 5000}', "between 1 and 1000"),
        ('{"sizes": [128]}', "unknown fields: sizes"),
    ],
)
def test_bad_plan_files_exit_2(tmp_path: Path, content: str, words: str) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(content)
    done = linklab(
        "run", "--peer", "127.0.0.1", "--plan", str(plan), "--db", str(tmp_path / "x.sqlite3")
    )
    assert done.returncode == 2 and words in done.stderr
    missing = linklab("run", "--peer", "x", "--plan", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot be read" in missing.stderr


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_database_is_reported_and_untouched(tmp_path: Path, damage: str) -> None:
    db = tmp_path / "lab.sqlite3"
    if damage == "garbage":
        db.write_bytes(b"this is not a database" * 100)
    else:
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
        conn.commit()
        conn.close()
        db.write_bytes(db.read_bytes()[:5000])
    before = db.read_bytes()
    # Garbage is no database at all (a backup is the way back); a file cut short is said to
    # be, and what it still holds can be recovered.
    said, what_to_do = (
        ("damaged or is not a LinkLab database", "restore a backup")
        if damage == "garbage"
        else ("is cut short", "--recover-to")
    )
    for argv in (["sessions", "list"], ["run", "--peer", "127.0.0.1", "--runs", "1"]):
        done = linklab(*argv, "--db", str(db))
        assert done.returncode == 1
        assert said in done.stderr and what_to_do in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert db.read_bytes() == before


# Over 10 s: `serve --count 2` then `run --concurrent`: TCP and UDP at once through the CLI.
@pytest.mark.usefixtures("iperf3_tool")
def test_concurrent_tcp_and_udp_through_the_cli(tmp_path: Path) -> None:
    """The lab's concurrent exercise: `linklab serve --count 2`, then `run --concurrent`."""

    from app.engine.lan.netinfo import free_block
    from tests.conftest import free_port

    base = free_block(free_port(), 2)
    server = start_linklab(
        "serve", "--no-netserver", "--count", "2", "--port", str(base), "--no-echo"
    )
    try:
        assert server.stdout is not None
        listening = 0
        while listening < 2:
            line = server.stdout.readline()
            assert line, server.stderr.read() if server.stderr else ""
            listening += "listening on port" in line
        db = str(tmp_path / "lab.sqlite3")
        done = linklab(
            "run",
            "--peer",
            "127.0.0.1",
            "--port",
            str(base),
            "--protocol",
            "tcp,udp",
            "--concurrent",
            "--sizes",
            "1408",
            "--runs",
            "1",
            "--duration",
            "2",
            "--bitrate",
            "200M",
            "--db",
            db,
            "--json",
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        (share,) = result["shares"]
        assert {s["protocol"] for s in share["series"]} == {"tcp", "udp"}
        assert sum(s["share_pct"] for s in share["series"]) == pytest.approx(100)
        udp = next(s for s in share["series"] if s["protocol"] == "udp")
        assert 50e6 < udp["mean_bps"] < 220e6  # -b 200M while TCP takes what it can
        text = linklab("sessions", "show", result["session_id"], "--db", db)
        assert "Share of the link at 1408" in text.stdout
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=10)


# Over 10 s: the early-stop rule decided run by run on real measurements.
def test_early_stop_ends_each_point_once_its_interval_is_narrow_enough(
    tmp_path: Path, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    """`--early-stop F --min-runs N`: a point gets its N runs, then stops at the first run
    after which its 95 % CI is within F of the mean. With F = 0.9 (a spread of up to about
    a third of the mean at three runs) every loopback point stops well before its eight runs;
    F = 0.001 is never reached, so each point gets all its runs."""
    port, _server = iperf3_server_port
    db = tmp_path / "lab.sqlite3"

    def study(fraction: str, runs: str) -> tuple[str, list[dict[str, Any]]]:
        done = linklab(
            "run",
            "--peer", "127.0.0.1",
            "--port", str(port),
            "--sizes", "128,1408",
            "--runs", runs,
            "--duration", "1",
            "--early-stop", fraction,
            "--min-runs", "3",
            "--db", str(db),
            "--json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        return str(result["session_id"]), result["points"]

    session, stopped = study("0.9", "8")
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT value_index, throughput_bps FROM runs WHERE session_id = ? ORDER BY id",
            (session,),
        ).fetchall()
    for index, point in enumerate(stopped):
        runs = [bps for i, bps in rows if i == index]
        assert 3 <= point["n"] == len(runs) < 8
        # It stopped at the first run that made the interval narrow enough, not later.
        for n in range(3, len(runs) + 1):
            s = summarize(runs[:n])
            assert (s.ci95 <= 0.9 * s.mean) is (n == len(runs)), (n, runs)
    _, full = study("0.001", "4")
    assert [p["n"] for p in full] == [4, 4]


def test_a_session_completed_with_failures_is_resumed_to_every_planned_run(
    tmp_path: Path, iperf3_tool: Any, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    """The server stops mid-sweep: the session completes with failures; `linklab resume`
    measures the failed runs again once the server is back, until every point has its runs."""
    from app.engine.drivers.iperf3.server import iperf3_server
    from app.engine.process.servers import ServerOptions

    port, server = iperf3_server_port
    db = tmp_path / "lab.sqlite3"
    plan = ["--peer", "127.0.0.1", "--port", str(port), "--sizes", "128,1408", "--runs", "3"]
    proc = start_linklab("run", *plan, "--duration", "1", "--db", str(db), "--json")
    _wait_for_runs(db, 2)
    server.stop()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err  # completed, some runs failed
    first = json.loads(out)
    failed = first["runs_failed"]
    assert 1 <= failed < 6 and first["status"] == "completed"
    again = iperf3_server(iperf3_tool, ServerOptions(port))
    again.start()
    try:
        resumed = linklab("resume", first["session_id"][:8], "--db", str(db), "--json")
    finally:
        again.stop()
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert (result["status"], result["runs_done"], result["runs_failed"]) == ("completed", 6, 0)
    assert f"resuming after {6 - failed}" in resumed.stderr
    assert [point["n"] for point in result["points"]] == [3, 3], result["points"]
    listed = json.loads(linklab("sessions", "list", "--db", str(db), "--json").stdout)
    assert (listed[0]["status"], listed[0]["runs_done"], listed[0]["runs_failed"]) == (
        "completed",
        6,
        0,
    )
    # Resumed once more: nothing to do, said as such.
    done = linklab("resume", first["session_id"][:8], "--db", str(db))
    assert done.returncode == 2 and "none of its runs failed: nothing to resume" in done.stderr
