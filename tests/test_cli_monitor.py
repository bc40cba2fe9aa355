"""`linklab monitor` as a user runs it against this computer's real iperf3: a line per interval
until Ctrl+C, then the monitor kept as a session."""

from __future__ import annotations

import csv
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.drivers.fake import FakeDriver
from app.store.sessions import SessionStore
from tests.conftest import ROOT_DIR, linklab
from tests.study.test_monitor_runner import monitor

pytestmark = [
    pytest.mark.usefixtures("iperf3_tool"),
    pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is a console event on Windows"),
]
LINE = re.compile(r"^\d+:\d\d  upload  [\d.]+ [KMG]?bit/s( sent)?  retransmits \d+$")


def test_a_line_per_interval_until_ctrl_c_and_the_session_is_kept(tmp_path: Path) -> None:
    db = str(tmp_path / "linklab.sqlite3")
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "monitor", "--peer", "this-computer", "--interval", "0.5",
         "--security", "open", "--tag", "room=B12", "--notes", "lab bench", "--db", db],
        cwd=ROOT_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        encoding="utf-8",
    )  # fmt: skip
    assert process.stdout is not None
    lines = []
    try:
        while len(lines) < 4:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else ""
            lines.append(line.rstrip("\n"))
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
    assert all(LINE.match(line) for line in lines), lines
    clock = [int(line.split()[0].replace(":", "")) for line in lines]  # m:ss, in order
    assert clock == sorted(clock) and clock[-1] <= 5, lines
    assert process.returncode == 0, err
    assert "Ctrl+C stops it" in err
    assert "Monitor saved as session" in err and "Monitored for about" in err
    listed = linklab("sessions", "--db", db)
    assert listed.returncode == 0, listed.stderr
    assert "Monitor · TCP · IPv4" in listed.stdout and "completed" in listed.stdout
    listed = linklab("sessions", "--json", "--db", db)
    (session,) = json.loads(listed.stdout)
    assert session["kind"] == "monitor" and session["variable"] == "none"
    # Kept with the conditions its flags stated, as `run` keeps a study's.
    stated = session["conditions"]
    assert (stated["security"], stated["tags"], stated["notes"]) == (
        "open",
        {"room": "B12"},
        "lab bench",
    ), stated
    # Ctrl+C is the monitor's end: the run it cut short is kept whole, as a run of its own.
    assert (session["runs_done"], session["runs_partial"], session["total_runs"]) == (1, 0, 1)
    assert session["status"] == "completed" and "Stopped by the user." in err
    out = tmp_path / "runs.csv"
    exported = linklab(
        "export", session["session_id"], "--format", "csv", "--out", str(out), "--db", db
    )
    assert exported.returncode == 0, exported.stderr
    (run,) = csv.DictReader(out.read_text(encoding="utf-8-sig").splitlines())
    assert run["status"] == "ok" and float(run["throughput_bps"]) > 0, run
    shown = linklab("sessions", "show", session["session_id"], "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert "runs        1/1 (0 failed)" in shown.stdout, shown.stdout


def test_a_stored_monitor_is_exported_as_its_report_from_the_command_line(
    store: SessionStore, tmp_path: Path
) -> None:
    runner, _events = monitor(store, FakeDriver(interval_s=0.001), samples=7)
    outcome = runner.run()
    page = tmp_path / "monitor.html"
    done = linklab(
        "export", outcome.session_id[:8], "--format", "html", "--out", str(page),
        "--db", str(store.db.path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = page.read_text(encoding="utf-8")
    for heading in ("Over time", "Over the whole monitor", "Runs chained back to back"):
        assert f"<h2>{heading}</h2>" in text
    assert text.count("<tr>") >= 4 + 1 + 2  # the figures' rows, the runs' header and rows
