"""A sweep over TCP congestion control across namespaces: reno against bbr through a router
whose shaped queue is deep. Reno fills the queue until it drops, so the probes wait behind it;
BBR paces at the bottleneck rate and keeps the queue short. The points are named, compared
like any other, and the reports show them as categories."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.testbed import Bed, RoutedTestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 20
DEEP_QUEUE_BYTES = 1_000_000  # 400 ms at 20 Mbit/s
IPERF3_PORT, ECHO_PORT = 5201, 5200


def _available(bed: RoutedTestBed, ns: str) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv4.tcp_available_congestion_control"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    return done.stdout


BED = Bed(
    routed=True,
    rate_mbit=RATE_MBIT,
    queue_bytes=DEEP_QUEUE_BYTES,
    server_port=IPERF3_PORT,
    echo_port=ECHO_PORT,
)


@pytest.fixture(scope="module", autouse=True)
def _bbr(bed: RoutedTestBed) -> None:
    if "bbr" not in _available(bed, bed.c):
        # The module loads on demand where the kernel has it; try once, else say why.
        subprocess.run(["modprobe", "tcp_bbr"], capture_output=True, check=False)
        if "bbr" not in _available(bed, bed.c):
            pytest.skip("this kernel has no BBR congestion control (tcp_bbr)")


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _sweep(bed: RoutedTestBed, db: Path, name: str) -> dict[str, Any]:
    args = [
        "run", "--peer", bed.S4, "--port", str(IPERF3_PORT), "--echo-port", str(ECHO_PORT),
        "--vary", "congestion", "--values", "reno,bbr",
        "--protocol", "tcp", "--ip", "4", "--runs", "1", "--duration", "6",
        "--metric", "throughput,latency", "--name", name, "--db", str(db), "--json",
    ]  # fmt: skip
    return _json(bed.linklab(bed.c, *args, timeout=240))


# Over 10 s: congestion control through a real deep queue: Reno fills it, BBR does not.
def test_reno_fills_the_deep_queue_and_bbr_does_not(bed: RoutedTestBed, tmp_path: Path) -> None:
    db = tmp_path / "cc.sqlite3"
    first = _sweep(bed, db, "reno vs bbr")
    points = {p["value"]: p for p in first["points"]}
    assert list(points) == ["reno", "bbr"]  # the plan's order, named, not numbered
    with sqlite3.connect(db) as conn:
        argvs = [json.loads(row[0]) for row in conn.execute("SELECT argv_json FROM runs")]
    assert sorted(argv[argv.index("-C") + 1] for argv in argvs) == ["bbr", "reno"]
    for point in points.values():
        # Both fill the link: what differs is the queue they leave behind.
        assert point["throughput_bps"]["mean"] > 0.8 * RATE_MBIT * 1e6
    reno, bbr = (points[n]["latency_ms"]["mean"] for n in ("reno", "bbr"))
    print(f"loaded latency: reno {reno:.1f} ms, bbr {bbr:.1f} ms")
    assert reno > 2 * bbr

    # Compared like any other point: a second session, point by point by name.
    _sweep(bed, db, "again")
    html = tmp_path / "report.html"
    args = [
        "compare", "reno vs bbr", "again", "--metric", "latency",
        "--html", str(html), "--json", "--db", str(db),
    ]  # fmt: skip
    compared = _json(bed.linklab(bed.c, *args))
    (pair,) = compared["comparisons"]
    assert [p["value"] for p in pair["points"]] == ["reno", "bbr"]
    report = html.read_text(encoding="utf-8")
    assert "reno" in report and "bbr" in report and "Congestion control" in report
