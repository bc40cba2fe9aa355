"""The responsiveness test across a router with a shaped queue (tc tbf, both ways, Reno in
every namespace): a deep queue rates Poor with loaded latency many times the idle one; a
shallow queue on the same rate rates clearly better. Real iperf3, real prober, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.testbed import ROOT, Bed, RoutedTestBed, shape_both_ways

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 10
DEEP_BYTES = 625_000  # 500 ms of queue at 10 Mbit/s
SHALLOW_BYTES = 20_000  # 16 ms
IPERF3_PORT, ECHO_PORT = 5201, 5200
RATINGS = ["Poor", "Fair", "Good", "Excellent"]
TEST = [
    *("--idle-seconds", "1", "--step-seconds", "2", "--phase-seconds", "6", "--max-flows", "4"),
]


BED = Bed(routed=True, server_port=IPERF3_PORT, echo_port=ECHO_PORT)


def _responsiveness(bed: RoutedTestBed, queue_bytes: int) -> dict[str, Any]:
    shape_both_ways(bed, RATE_MBIT, queue_bytes)
    peer = ["--peer", bed.S4, "--port", str(IPERF3_PORT), "--echo-port", str(ECHO_PORT)]
    done = subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            bed.c,
            sys.executable,
            "-m",
            "app",
            "responsiveness",
            *peer,
            "--json",
            "--no-both",  # download and upload tell the queue's depth; the loopback tests do both
            *TEST,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _line(name: str, data: dict[str, Any]) -> str:
    parts = [f"{name}: idle {data['idle_latency_ms']:.2f} ms"]
    for way in ("download", "upload"):
        parts.append(
            f"{way} {data['loaded_latency_ms'][way]:.1f} ms, {data['rpm'][way]:.0f} RPM, "
            f"{data['rating'][way]} ({data['confidence'][way]}, "
            f"{data['goodput_bps'][way] / 1e6:.1f} Mbit/s, {data['flows'][way]} flows)"
        )
    return "; ".join(parts)


# Over 10 s: the responsiveness ratings over a real deep and a shallow queue (two whole tests).
# Slow (30-40 s): two whole responsiveness tests, each a 1-s idle phase and up to 6 s of load
# per direction in 2-s steps (TEST: already shorter than a user's 2 s and 8 s), the least in
# which a 500 ms queue fills and the ratings settle.
def test_a_deep_queue_rates_poor_and_a_shallow_one_clearly_better(bed: RoutedTestBed) -> None:
    deep = _responsiveness(bed, DEEP_BYTES)
    shallow = _responsiveness(bed, SHALLOW_BYTES)
    print(_line("deep", deep))
    print(_line("shallow", shallow))
    assert deep["method"] == "udp-echo"
    for way in ("download", "upload"):
        assert deep["rating"][way] == "Poor"
        assert deep["loaded_latency_ms"][way] >= 5 * deep["idle_latency_ms"]
        assert deep["goodput_bps"][way] > 0.7 * RATE_MBIT * 1e6  # the link was full
        assert RATINGS.index(shallow["rating"][way]) >= RATINGS.index("Fair")
        assert shallow["loaded_latency_ms"][way] < 0.25 * deep["loaded_latency_ms"][way]
        assert shallow["rpm"][way] > 4 * deep["rpm"][way]
