"""Working latency across a router with a shaped queue, through `linklab run --metric
throughput,latency` (real iperf3 uploads fill a deep queue and the probes' round trips grow
several times over; a shallow queue grows them less) and `linklab compare --metric latency`,
which calls the difference significant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.testbed import Bed, RoutedTestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 10
DEEP_BYTES = 625_000  # 500 ms of queue at 10 Mbit/s
SHALLOW_BYTES = 20_000  # 16 ms
IPERF3_PORT, ECHO_PORT = 5201, 5200
RUNS, RUN_S = 3, 3  # per session of `linklab run`: 2 s idle probes, then 3 s of upload


BED = Bed(routed=True, server_port=IPERF3_PORT, echo_port=ECHO_PORT)


def _linklab_run(bed: RoutedTestBed, db: Path, name: str) -> dict[str, Any]:
    """`linklab run --metric throughput,latency` in C against `linklab serve` in S."""
    done = bed.linklab(
        bed.c,
        "run",
        "--peer", bed.S4,
        "--port", str(IPERF3_PORT),
        "--echo-port", str(ECHO_PORT),
        "--metric", "throughput,latency",
        "--sizes", "1408",
        "--runs", str(RUNS),
        "--duration", str(RUN_S),
        "--name", name,
        "--db", str(db),
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Latency measured with LinkLab's UDP echo on {bed.S4} port {ECHO_PORT}." in done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    assert data["latency_methods"] == {"udp-echo": RUNS}
    return data


# Over 10 s: working latency through a real deep and a shallow queue, told apart by compare.
# Slow (30-45 s): two real studies of three runs, each run 2 s of idle probes then 3 s of
# upload, the fewest that let compare's Welch test call the difference significant, and the
# seconds a 500 ms queue needs to fill and stay full.
def test_linklab_run_and_compare_tell_a_deep_queue_from_a_shallow_one(
    bed: RoutedTestBed, tmp_path: Path
) -> None:
    """The whole path a user takes: real iperf3 loads the link while LinkLab's prober measures,
    the runs are stored, and compare calls the queue's difference significant."""
    db = tmp_path / "lab.sqlite3"
    figures = {}
    for name, queue_bytes in (("deep queue", DEEP_BYTES), ("shallow queue", SHALLOW_BYTES)):
        bed.set_queue(RATE_MBIT, queue_bytes)
        data = _linklab_run(bed, db, name)
        (point,) = data["points"]
        figures[name] = (
            str(data["session_id"]),
            point["latency_idle_ms"]["mean"],
            point["latency_ms"]["mean"],
        )
    (deep_id, deep_idle, deep), (shallow_id, shallow_idle, shallow) = figures.values()
    compared = bed.linklab(
        bed.c, "compare", deep_id, shallow_id, "--metric", "latency", "--db", str(db), "--json"
    )
    assert compared.returncode == 0, compared.stderr
    (pair,) = json.loads(compared.stdout)["comparisons"]
    (diff,) = pair["points"]
    print(
        f"linklab run: deep queue idle {deep_idle:.2f} ms, loaded {deep:.1f} ms; shallow queue "
        f"idle {shallow_idle:.2f} ms, loaded {shallow:.1f} ms; compare p = {diff['p_value']:.2g}"
        f" (Holm {diff['p_holm']:.2g})"
    )
    assert deep >= 4 * deep_idle
    assert shallow < 0.5 * deep
    assert diff["significant"] and diff["p_holm"] < 0.05
    text = bed.linklab(
        bed.c, "compare", deep_id, shallow_id, "--metric", "latency", "--db", str(db)
    )
    assert "less working latency" in text.stdout or "added" in text.stdout, text.stdout
