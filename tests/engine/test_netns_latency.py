"""Working latency across a router with a shaped queue: a real iperf3 TCP upload fills a deep
queue and the probes' round trips grow several times over; a shallow queue grows them less.
The same through `linklab run --metric throughput,latency` and `linklab compare --metric
latency`, which calls the difference significant."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.engine.tools import find_tool
from tests.testbed import RoutedTestBed, unavailable_reason

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT = 10
DEEP_BYTES = 625_000  # 500 ms of queue at 10 Mbit/s
SHALLOW_BYTES = 20_000  # 16 ms
IPERF3_PORT, ECHO_PORT = 5201, 5200
LOAD_S = 10  # the upload: the queue fills, then the prober measures for PROBE_S
PROBE_S = 3.0
RUNS, RUN_S = 3, 4  # per session of `linklab run`: 2 s idle probes, then 4 s of upload


@pytest.fixture(scope="module")
def bed() -> Iterator[RoutedTestBed]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    with RoutedTestBed() as testbed:
        testbed.start_server(IPERF3_PORT, ECHO_PORT)
        yield testbed


def _median(summary: dict[str, object]) -> float:
    assert isinstance(summary["received"], int) and summary["received"] > 0, summary
    median = summary["median_ms"]
    assert isinstance(median, float)
    return median


def _loaded(bed: RoutedTestBed, queue_bytes: int) -> dict[str, object]:
    """Probe while one TCP upload (Reno) keeps the router's queue busy."""
    bed.set_queue(RATE_MBIT, queue_bytes)
    argv = [find_tool("iperf3").path, "-c", bed.S4, "-p", str(IPERF3_PORT), "-t", str(LOAD_S)]
    started, load = time.monotonic(), bed.start(bed.c, argv)
    try:
        load.wait(timeout=1)
    except subprocess.TimeoutExpired:
        pass
    else:  # the server was still finishing the previous test: once more
        time.sleep(1)
        started, load = time.monotonic(), bed.start(bed.c, argv)
    # Until the queue holds a quarter of what it can (Reno's sawtooth never drains it).
    deadline = started + LOAD_S - PROBE_S - 1
    while bed.backlog_bytes() < queue_bytes // 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    summary = bed.probe(bed.S4, ECHO_PORT, PROBE_S)
    try:
        load.wait(timeout=LOAD_S + 10)
    except subprocess.TimeoutExpired:
        load.kill()
    assert load.returncode == 0, load.stderr.read() if load.stderr else ""
    return summary


def test_loaded_latency_follows_the_queue_depth(bed: RoutedTestBed) -> None:
    bed.set_queue(RATE_MBIT, DEEP_BYTES)
    idle = _median(bed.probe(bed.S4, ECHO_PORT, 2.0))
    deep_run = _loaded(bed, DEEP_BYTES)
    shallow_run = _loaded(bed, SHALLOW_BYTES)
    deep, shallow = _median(deep_run), _median(shallow_run)
    print(
        f"median RTT: idle {idle:.2f} ms, loaded deep {deep:.1f} ms "
        f"(lost {deep_run['lost']}/{deep_run['sent']}), shallow {shallow:.1f} ms "
        f"(lost {shallow_run['lost']}/{shallow_run['sent']})"
    )
    assert deep >= 3 * idle
    assert shallow < 0.5 * deep
    assert shallow > idle  # a shallow queue still adds its few milliseconds


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
