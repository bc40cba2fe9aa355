"""A sweep over the DSCP mark (the Wi-Fi access categories BK, BE, VI, VO as RFC 8325 maps
them) across namespaces, with each engine: the peer counts the test traffic it receives by
its mark (an nftables counter per DSCP), and each category's run arrives with its own mark."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from app.engine.drivers.registry import find_tool
from tests.testbed import ROOT, Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

IPERF3_PORT, IPERF2_PORT, NETSERVER_PORT = 5201, 5001, 12865
# A shaped link: the marks and their counts do not depend on the rate, and an unshaped veth
# would have each run take a whole core from the tests beside it.
BED = Bed(rate_mbit=200, needs=("nft",))
DURATION_S = 2
TABLE = "llab_dscp"
#: Each access category's DSCP by nftables' name for it (RFC 8325: CS1, 0, AF41, EF).
MARKS = {"BK": "cs1", "BE": "cs0", "VI": "af41", "VO": "ef"}


def _nft(bed: TestBed, *args: str) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", bed.b, "nft", *args], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _count_marks(bed: TestBed) -> None:
    """A fresh counter in B per mark (and one for any other) of the data A sends it: the
    engines' control connections carry small unmarked packets, the data large ones."""
    subprocess.run(
        ["ip", "netns", "exec", bed.b, "nft", "delete", "table", "inet", TABLE],
        capture_output=True,
        timeout=10,
    )
    _nft(bed, "add", "table", "inet", TABLE)
    _nft(bed, "add", "chain", "inet", TABLE, "input", "{ type filter hook input priority 0 ; }")
    data = ["ip", "saddr", bed.A4, "meta", "length", "gt", "500"]

    def count(name: str, *match: str) -> None:
        """A counter, named by its comment, of the data packets that match."""
        _nft(bed, "add", "rule", "inet", TABLE, "input", *data, *match, "counter", "comment", name)

    for category, mark in MARKS.items():
        count(category, "ip", "dscp", mark)
    count("other", "ip", "dscp", "!=", "{ " + ", ".join(MARKS.values()) + " }")


def _counted(bed: TestBed) -> dict[str, int]:
    """Bytes counted per mark, by the category's name ("other": any other mark)."""
    found: dict[str, int] = {}
    for item in json.loads(_nft(bed, "-j", "list", "table", "inet", TABLE))["nftables"]:
        rule = item.get("rule")
        if rule:
            counter = next(e["counter"] for e in rule["expr"] if "counter" in e)
            found[rule["comment"]] = counter["bytes"]
    return found


@pytest.fixture(scope="module", autouse=True)
def servers(bed: TestBed) -> None:
    """LinkLab's servers in B (iperf3 and iperf 2), and netserver started there by hand."""
    bed.start_server(IPERF3_PORT, "--iperf2", "--iperf2-port", str(IPERF2_PORT), "--no-echo")
    netserver = find_tool("netserver").path
    server = subprocess.Popen(
        ["ip", "netns", "exec", bed.b, netserver, "-D", "-p", str(NETSERVER_PORT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    bed._procs.append(server)  # ended with the test bed
    listening = ["ip", "netns", "exec", bed.b, "ss", "-Hltn", f"sport = :{NETSERVER_PORT}"]
    deadline = time.monotonic() + 10
    while not subprocess.run(listening, capture_output=True, text=True).stdout.strip():
        assert time.monotonic() < deadline and server.poll() is None, "netserver did not start"
        time.sleep(0.05)


def _linklab(bed: TestBed, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        bed.linklab(bed.a, *args), cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _sweep(bed: TestBed, db: Path, engine: str, values: str, name: str) -> dict[str, Any]:
    """`linklab run` in A sweeping the marks: one TCP run of DURATION_S per category."""
    ports = [
        *("--port", str(IPERF3_PORT), "--iperf2-port", str(IPERF2_PORT)),
        *("--netserver-port", str(NETSERVER_PORT)),
    ]
    plan = [
        *("--engine", engine, "--vary", "dscp", "--values", values, "--protocol", "tcp"),
        *("--ip", "4", "--runs", "1", "--duration", str(DURATION_S), "--metric", "throughput"),
    ]
    where = ["--name", name, "--db", str(db), "--json"]
    return _linklab(bed, "run", "--peer", bed.B4, *ports, *plan, *where)


# Each under 20 s: four categories of one 2 s run each, the peer counting what arrives.
@pytest.mark.parametrize(
    ("engine", "flag"), [("iperf3", "-S"), ("iperf2", "--tos"), ("netperf", "-Y")]
)
def test_each_access_category_arrives_with_its_own_mark(
    bed: TestBed, tmp_path: Path, engine: str, flag: str
) -> None:
    _count_marks(bed)
    db = tmp_path / "dscp.sqlite3"
    points = _sweep(bed, db, engine, "bk,BE,VI,vo", "marked")["points"]
    assert [p["value"] for p in points] == list(MARKS)  # named, in the plan's order
    counted = _counted(bed)
    print(engine, counted)
    assert counted["other"] == 0
    with sqlite3.connect(db) as conn:
        (plan_json,) = conn.execute("SELECT plan_json FROM sessions").fetchone()
        runs = conn.execute("SELECT value_index, argv_json, throughput_bps FROM runs").fetchall()
    values = json.loads(plan_json)["values"]
    assert values == list(MARKS)
    tos = {"BK": 32, "BE": 0, "VI": 136, "VO": 184}  # the DSCP shifted past the ECN bits
    for index, argv_json, throughput_bps in runs:
        category = values[index]
        argv: list[Any] = json.loads(argv_json)
        assert int(argv[argv.index(flag) + 1].split(",")[0], 0) == tos[category]
        # What the peer counted under this mark is this run's traffic (its 2 s of goodput,
        # headers on top), not another category's.
        assert counted[category] > 0.5 * throughput_bps * DURATION_S / 8, category


# Under 20 s: two sessions of two categories, compared point by point by category.
def test_marked_sessions_compare_point_by_category(bed: TestBed, tmp_path: Path) -> None:
    db = tmp_path / "compare.sqlite3"
    _sweep(bed, db, "iperf3", "VO,BK", "voice first")
    _sweep(bed, db, "iperf2", "VO,BK", "with iperf 2")
    html = tmp_path / "report.html"
    compared = _linklab(
        bed,
        "compare",
        "voice first",
        "with iperf 2",
        "--html",
        str(html),
        "--json",
        "--db",
        str(db),
    )
    (pair,) = compared["comparisons"]
    assert [p["value"] for p in pair["points"]] == ["VO", "BK"]
    report = html.read_text(encoding="utf-8")
    assert "DSCP / access category" in report and "VO" in report and "BK" in report
