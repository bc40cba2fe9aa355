"""Hand-ins carry no computer name, user name, network name or MAC address unless the exercise
asks for them; and what is hidden never changes a figure, so privacy never looks like an
altered hand-in."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.domain.exercise import Exercise, Step, new_exercise_id
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Assignment, Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.engine.drivers.reparse import reparsed_throughput
from app.store.db import Database
from app.store.exercises import ExerciseStore
from app.store.sessions import SessionStore
from app.study.files.exchange import write_exchange
from app.study.lab.classroom import read_class
from app.study.lab.handin import HIDDEN, handin_document, read_handin
from tests.conftest import DATA

HOST = "alice-laptop"
SSID = "HomeNet-5G"
BSSID = "a4:2b:b0:12:34:56"
MAC = "A4-2B-B0-12-34-57"  # Windows writes MAC addresses with dashes
PROGRAM = "C:\\Users\\alice\\LinkLab\\iperf3.exe"
PRIVATE = ("alice", "HomeNet", "a4:2b:b0", "A4-2B-B0")

ENVIRONMENT = {
    "format_version": 1,
    "os_name": "Windows 11",
    "os_version": "10.0.22631",
    "hostname": HOST,
    "cpu_model": "Intel(R) Core(TM) i5-1235U",
    "cpu_count": 12,
    "engine_versions": {"iperf3": "3.12"},
    "interface": "Wi-Fi",
    "mac": MAC,
    "interface_speed_mbps": 866,
    "interface_mtu": 1500,
    "local_address": "192.168.1.23",
    "wifi": {
        "ssid": SSID,
        "bssid": BSSID,
        "security": "WPA2-Personal",
        "phy_rate_mbps": 866.7,
        "channel": 36,
        "frequency_mhz": 5180,
        "signal_dbm": -52,
        "signal_pct": 96,
        "standard": "802.11ac",
        "interface": "Wi-Fi",
    },
    "detected_security": "WPA2",
}


def _own_computer(text: str) -> str:
    """A real capture, as if made on Alice's laptop (the captures name the test machine)."""
    return text.replace("Linux vm 6.18.44-fc-v669", f"Linux {HOST} 6.1.0-18-amd64")


# Real iperf3 captures (tests/data/iperf3) in each of the three forms LinkLab reads, with the
# options that choose the parser.
CAPTURES = [
    ("text_k_tcp_v4.txt", ["-c", "127.0.0.1", "-t", "2", "-f", "k", "-V", "--forceflush"]),
    ("json_tcp_v4.json", ["-c", "127.0.0.1", "-t", "2", "-J"]),
    ("stream_tcp_v4.jsonl", ["-c", "127.0.0.1", "-t", "2", "--json-stream"]),
]


def _exercise(reveal: tuple[str, ...] = (), runs: int = len(CAPTURES)) -> Exercise:
    plan = Plan(
        peer=Peer("localhost"), protocols=(Protocol.TCP,), values=(1408,), repetitions=runs,
        duration_s=2,
    )  # fmt: skip
    step = Step("Step 1", "Measure.", plan, ("protocol", "sizes"))
    return Exercise(new_exercise_id(), "Privacy lab", "To hand in.", (step,), (), reveal)


SETTINGS_PATH = "C:\\Users\\alice\\Downloads\\iperf3.exe"
# A sentence LinkLab writes (app/engine/process/tools.py), naming the user's own folder.
NOT_EXECUTABLE = (
    f"The iperf3 path set in LinkLab's settings ({SETTINGS_PATH}) is not an executable file: "
    f"correct it, or clear it to use the iperf3 LinkLab finds by itself."
)


def _database(path: Path, exercise: Exercise, *, failed_run: bool = False) -> Database:
    """Rosa's database: one session of the exercise measured on Alice's laptop (and a run
    that failed with a sentence naming Alice's folder)."""
    db = Database(path)
    ExerciseStore(db).begin(exercise, "Rosa", "G2")
    step = exercise.steps[0]
    assignment = Assignment(exercise.id, exercise.title, 1, "Rosa", "G2")
    plan = replace(step.plan, peer=Peer("192.168.1.20"), assignment=assignment)
    store = SessionStore(db)
    sid = store.create_session(plan, ENVIRONMENT)
    for repetition, (name, options) in enumerate(CAPTURES, 1):
        raw = _own_computer((DATA / "iperf3" / name).read_text(encoding="utf-8"))
        argv = [PROGRAM, *options]
        stated = reparsed_throughput("iperf3", argv, raw)
        assert stated is not None and stated > 0, name
        store.add_run(
            sid,
            RunKey(Protocol.TCP, IpVersion.V4, 0, repetition),
            1408,
            metrics=RunMetrics(throughput_bps=stated),
            started_at=utc_now(),
            elapsed_s=2.0,
            engine="iperf3",
            engine_version="3.12",
            argv=argv,
            raw_output=raw,
        )
    if failed_run:
        store.add_run(
            sid,
            RunKey(Protocol.TCP, IpVersion.V4, 0, len(CAPTURES) + 1),
            1408,
            metrics=None,
            error_kind="EngineMissing",
            error=NOT_EXECUTABLE,
            started_at=utc_now(),
            elapsed_s=0.0,
            engine="iperf3",
            argv=[SETTINGS_PATH, *CAPTURES[0][1]],
            raw_output=f"{SETTINGS_PATH}: cannot execute binary file\n",
        )
    store.finish(sid, SessionStatus.COMPLETED, f"Measured on {SSID} from {HOST}.")
    return db


def _handin(
    tmp_path: Path, reveal: tuple[str, ...], *, failed_run: bool = False
) -> tuple[dict[str, Any], Path]:
    exercise = _exercise(reveal, runs=len(CAPTURES) + failed_run)
    with _database(tmp_path / "rosa.sqlite3", exercise, failed_run=failed_run) as db:
        document = handin_document(db, exercise.id, "Rosa")
    path = tmp_path / "handins" / "rosa.linklab"
    path.parent.mkdir()
    write_exchange(path, document)
    return document, path


def test_the_setup_holds_every_private_fact(tmp_path: Path) -> None:
    """What the hand-in must hide is really in the database it is made from."""
    exercise = _exercise()
    with _database(tmp_path / "rosa.sqlite3", exercise) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        runs = store.runs(session.id, with_raw=True)
    stored = json.dumps(session.environment) + "".join(r.raw_output for r in runs)
    stored += "".join(r.argv[0] for r in runs)
    assert all(fact.lower() in stored.lower() for fact in PRIVATE)
    assert all(f"Linux {HOST} 6.1.0" in r.raw_output for r in runs)


def test_a_handin_hides_computer_user_network_and_mac(tmp_path: Path) -> None:
    document, path = _handin(tmp_path, ())
    text = path.read_text(encoding="utf-8")
    for fact in PRIVATE:
        assert fact.lower() not in text.lower(), f"{fact!r} is in the hand-in"
    (session,) = document["sessions"]
    environment = session["environment"]
    assert "hostname" not in environment and "mac" not in environment
    assert "ssid" not in environment["wifi"] and "bssid" not in environment["wifi"]
    # What the exercise needs stays: the system, the engine, the link.
    assert environment["os_name"] == "Windows 11"
    assert environment["wifi"]["standard"] == "802.11ac"
    assert environment["wifi"]["phy_rate_mbps"] == 866.7
    assert environment["interface_mtu"] == 1500
    for run in session["runs"]:
        assert run["argv"][0] == "iperf3.exe"
        assert f"Linux {HIDDEN} 6.1.0-18-amd64" in run["raw_output"]
    assert session["status_reason"] == f"Measured on {HIDDEN} from {HIDDEN}."
    assert document["handin"]["student"] == "Rosa"


def test_hiding_changes_no_figure(tmp_path: Path) -> None:
    """Every run of the hand-in re-parses to the throughput it stores: privacy is never read
    as "altered"."""
    _, path = _handin(tmp_path, ())
    handin = read_handin(path)
    (session,) = handin.sessions.sessions
    assert len(session.runs) == len(CAPTURES)
    for run in session.runs:
        record = run.record
        stated = reparsed_throughput(record.engine, record.argv, record.raw_output)
        assert stated == pytest.approx(record.metrics.throughput_bps, rel=1e-12)
    view = read_class(path.parent)
    (row,) = view.rows
    assert row.student == "Rosa" and row.flags == ()


def test_a_sentence_naming_the_user_folder_is_hidden(tmp_path: Path) -> None:
    """An error sentence or an engine's complaint can name the program's folder, which holds
    the user's name on Windows (C:\\Users\\NAME) and elsewhere (/home/NAME)."""
    document, path = _handin(tmp_path, (), failed_run=True)
    text = path.read_text(encoding="utf-8")
    assert "alice" not in text.lower()
    failed = next(r for r in document["sessions"][0]["runs"] if r["status"] == "failed")
    assert failed["argv"][0] == "iperf3.exe"
    assert f"C:\\Users\\{HIDDEN}\\Downloads\\iperf3.exe" in failed["error"]
    assert failed["raw_output"].startswith(f"C:\\Users\\{HIDDEN}\\Downloads")
    (row,) = read_class(path.parent).rows
    assert "altered" not in row.flags  # the ok runs still re-parse to what they store


def test_an_exercise_that_asks_keeps_them(tmp_path: Path) -> None:
    document, path = _handin(tmp_path, ("ssid", "mac", "user"))
    (session,) = document["sessions"]
    environment = session["environment"]
    assert environment["hostname"] == HOST
    assert environment["mac"] == MAC
    assert environment["wifi"]["ssid"] == SSID and environment["wifi"]["bssid"] == BSSID
    for run in session["runs"]:
        assert run["argv"][0] == PROGRAM
        assert f"Linux {HOST} 6.1.0" in run["raw_output"]
    assert HIDDEN not in path.read_text(encoding="utf-8")
    (row,) = read_class(path.parent).rows
    assert row.flags == ()


@pytest.mark.parametrize(
    ("reveal", "kept", "hidden"),
    [
        (("ssid",), (SSID,), (HOST, BSSID, MAC)),
        (("mac",), (BSSID, MAC), (HOST, SSID)),
        (("user",), (HOST,), (SSID, BSSID, MAC)),
    ],
)
def test_each_fact_is_revealed_on_its_own(
    tmp_path: Path, reveal: tuple[str, ...], kept: tuple[str, ...], hidden: tuple[str, ...]
) -> None:
    _, path = _handin(tmp_path, reveal)
    text = path.read_text(encoding="utf-8")
    assert all(fact in text for fact in kept)
    assert not any(fact.lower() in text.lower() for fact in hidden)
