"""Out-of-order datagrams end to end against real engines, in a namespace test bed of its own
whose link reorders UDP (a share of it through a slower htb class): a UDP study with iperf3
and one with iperf 2 store the counts each engine printed in the raw output kept with the run
(per run; per interval where the engine states them, iperf 2's receiver), the CSV exports hold
the same numbers, and across the plain link the count is 0."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import require_engine
from tests.testbed import ROOT, Bed, TestBed

pytestmark = [pytest.mark.netns, pytest.mark.slow]

IPERF3_PORT, IPERF2_PORT = 5201, 5001
BED = Bed(needs=("nft",))
#: "[SUM]  0.0- 2.0 sec  920 datagrams received out-of-order" (iperf3) and
#: "[ *1] 0.00-1.00 sec  461 datagrams received out-of-order" (iperf 2).
PRINTED = re.compile(
    r"^\[\s*\*?(?:\d+|SUM)\]\s+(\d+(?:\.\d+)?)-\s*(\d+(?:\.\d+)?)\s+sec\s+(\d+) datagrams"
)


@pytest.fixture(scope="module")
def link(bed: TestBed) -> TestBed:
    require_engine("iperf")
    bed.start_server(
        IPERF3_PORT, "--iperf2-port", str(IPERF2_PORT), "--no-echo",
        ready="iperf 2 UDP server listening on port",
    )  # fmt: skip
    return bed


def _study(bed: TestBed, db: Path, engine: str, direction: str) -> str:
    port = ["--port", str(IPERF3_PORT)] if engine == "iperf3" else ["--iperf2-port", "5001"]
    done = subprocess.run(
        bed.linklab(
            bed.a, "run", "--engine", engine, "--peer", TestBed.B4, *port,
            "--protocol", "udp", "--direction", direction, "--bitrate", "20M",
            "--sizes", "1000", "--runs", "1", "--duration", "2", "--db", str(db), "--json",
        ),
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    session: str = json.loads(done.stdout)["session_id"]
    return session


def _printed(raw: str, after: str = "") -> list[tuple[float, float, int]]:
    """The out-of-order counts the engine printed (after a marker line, if given): (start,
    end, count) per line, or one for a server's report as JSON."""
    if after and "Server JSON output:" in raw:
        doc = json.loads(raw.split("Server JSON output:", 1)[1].split("\niperf Done", 1)[0])
        return [(0.0, 0.0, sum(s["udp"]["out_of_order"] for s in doc["end"]["streams"]))]
    if after:
        assert after in raw
        raw = raw.split(after, 1)[1]
    return [
        (float(m.group(1)), float(m.group(2)), int(m.group(3)))
        for line in raw.splitlines()
        if (m := PRINTED.match(line.strip()))
    ]


def _export(bed: TestBed, db: Path, session: str, kind: str) -> list[dict[str, str]]:
    out = db.with_suffix(f".{kind}.csv")
    done = subprocess.run(
        bed.linklab(bed.a, "export", session, "--format", kind, "--out", str(out), "--db", str(db)),
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with out.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _stored(db: Path, session: str) -> tuple[int | None, str, list[tuple[float, float, int]]]:
    """The run's out-of-order count, its raw output and its samples' (start, end, count)."""
    with Database(db, readonly=True) as opened:
        (run,) = SessionStore(opened).runs(session, with_raw=True)
    conn = sqlite3.connect(db)
    samples = conn.execute("SELECT start_s, end_s, out_of_order FROM samples ORDER BY seq")
    rows = [(start, end, count) for start, end, count in samples]
    conn.close()
    return run.metrics.out_of_order, run.raw_output, rows


def test_iperf3_upload_stores_what_the_server_counted(link: TestBed, tmp_path: Path) -> None:
    """The server counts the upload's datagrams: its report (--get-server-output) has the
    run's count; iperf3 states none per interval."""
    link.set_reorder(20)
    db = tmp_path / "iperf3.sqlite3"
    session = _study(link, db, "iperf3", "up")
    count, raw, samples = _stored(db, session)
    ((*_, printed),) = _printed(raw, after="Server output:")
    assert count == printed > 0
    assert samples and {n for *_, n in samples} == {None}
    (row,) = _export(link, db, session, "csv")
    assert row["out_of_order"] == str(printed)


def test_iperf2_download_stores_each_interval_and_the_run(link: TestBed, tmp_path: Path) -> None:
    """The client receives the download: iperf 2 prints its count after each report."""
    link.set_reorder(20)
    db = tmp_path / "iperf2.sqlite3"
    session = _study(link, db, "iperf2", "down")
    count, raw, samples = _stored(db, session)
    *intervals, (_, _, total) = _printed(raw)
    assert count == total > 0
    # iperf 2 prints an interval's count only when some datagram came out of order: an
    # interval without its line counted none (a calm second on a busy computer).
    printed = {(start, end): n for start, end, n in intervals}
    assert intervals and all(n > 0 for n in printed.values())
    assert set(printed) <= {(start, end) for start, end, _ in samples}
    assert samples == [(start, end, printed.get((start, end), 0)) for start, end, _ in samples]
    (row,) = _export(link, db, session, "csv")
    assert row["out_of_order"] == str(total)
    exported = _export(link, db, session, "samples")
    assert [int(r["out_of_order"]) for r in exported] == [n for *_, n in samples]


def test_across_the_plain_link_none_is_out_of_order(link: TestBed, tmp_path: Path) -> None:
    link.set_reorder(0)
    db = tmp_path / "plain.sqlite3"
    session = _study(link, db, "iperf2", "down")
    count, raw, samples = _stored(db, session)
    assert count == 0 and not _printed(raw)
    assert samples and {n for *_, n in samples} == {0}
