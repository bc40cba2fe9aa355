"""UDP with heavy loss across a router shaped to 20 Mbit/s, sent at 100 Mbit/s: `linklab run`
stores what was received, and `linklab export --format samples` gives, interval by interval,
the same received throughput (received_bps) with the sender's rate in its own column
(sent_bps), for an upload (the live figures were the sender's: the server's reports replace
them at the run's end), a download and both at once."""

from __future__ import annotations

import csv
import json
import sqlite3
import statistics
from pathlib import Path

import pytest

from tests.testbed import Bed, RoutedTestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

RATE_MBIT, SENT_MBIT = 20, 100
QUEUE_BYTES = 64_000
IPERF3_PORT, ECHO_PORT = 5201, 5200


BED = Bed(
    routed=True,
    rate_mbit=RATE_MBIT,
    queue_bytes=QUEUE_BYTES,
    both_ways=True,
    server_port=IPERF3_PORT,
    echo_port=ECHO_PORT,
)


@pytest.mark.parametrize("direction", ["up", "down", "bidir"])
def test_samples_export_holds_what_was_received_and_what_was_sent(
    bed: RoutedTestBed, tmp_path: Path, direction: str
) -> None:
    db = tmp_path / "lab.sqlite3"
    done = bed.linklab(
        bed.c,
        "run",
        "--peer", bed.S4,
        "--port", str(IPERF3_PORT),
        "--protocol", "udp",
        "--direction", direction,
        "--bitrate", f"{SENT_MBIT}M",
        "--sizes", "1408",
        "--runs", "1",
        "--duration", "3",
        "--db", str(db),
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session_id"]
    out = tmp_path / "samples.csv"
    export = bed.linklab(
        bed.c, "export", session, "--format", "samples", "--out", str(out), "--db", str(db)
    )
    assert export.returncode == 0, export.stderr
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    conn = sqlite3.connect(db)
    ((stored, flows_json),) = conn.execute("SELECT throughput_bps, flows_json FROM runs")
    conn.close()
    flows = {f["flow"]: f for f in json.loads(flows_json)}
    assert set(flows) == ({"up", "down"} if direction == "bidir" else {direction})
    assert stored == pytest.approx(sum(f["receiver_bps"] for f in flows.values()))
    for flow, totals in flows.items():
        mine = [r for r in rows if r["flow"] == flow]
        assert len(mine) >= 3
        received = statistics.fmean(float(r["received_bps"]) for r in mine)
        sent = statistics.fmean(float(r["sent_bps"]) for r in mine if r["sent_bps"])
        # Heavy loss: far more was sent than the 20 Mbit/s link let through.
        assert totals["receiver_bps"] < RATE_MBIT * 1e6 < 2 * RATE_MBIT * 1e6 < sent
        assert received == pytest.approx(totals["receiver_bps"], rel=0.05)
        assert sent == pytest.approx(totals["sender_bps"], rel=0.05)
