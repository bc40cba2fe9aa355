"""Impossible figures, as they were found: a .linklab file whose run claims 1e308 bit/s or 500 %
loss is refused with a sentence naming the session and the field (nothing written), and a
database that already holds inf, 1e308, 500 % or text in a number's column (an older LinkLab,
or an edit by hand with sqlite3) is shown, exported and printed as JSON with "—" / null in
their place, through the real command line."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
from pathlib import Path

import pytest

from app.domain.net import Flow, Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import METRIC_FIELDS, TEXT_METRIC_FIELDS, RunMetrics, SessionStatus, utc_now
from app.domain.results import Sample
from app.engine.readings.bounds import LIMITS
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import export_sessions
from tests.conftest import linklab


def make_session(path: Path) -> str:
    """One UDP session of four finished runs at two lengths, two samples each."""
    plan = Plan(
        peer=Peer("127.0.0.1"),
        protocols=(Protocol.UDP,),
        values=(128, 1408),
        repetitions=2,
        duration_s=1,
        name="absurd",
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for n, key in enumerate(plan.run_keys()):
            store.add_run(
                sid,
                key,
                float(plan.values[key.value_index]),
                metrics=RunMetrics(
                    throughput_bps=9e8 + n * 1e6,
                    loss_pct=0.5,
                    jitter_ms=0.1,
                    lost_packets=1,
                    packets=200,
                ),
                samples=[
                    Sample(0.0, 1.0, Flow.UP, received_bps=9e8, lost_packets=1, packets=100),
                    Sample(1.0, 2.0, Flow.UP, received_bps=9.1e8, lost_packets=0, packets=100),
                ],
                started_at=utc_now(),
                elapsed_s=2.0,
                engine="iperf3",
                argv=["iperf3", "-c", "127.0.0.1", "-u"],
                flows=[{"flow": "up", "sender_bps": 9e8, "receiver_bps": 9e8}],
            )
        store.finish(sid, SessionStatus.COMPLETED)
    return sid


#: What an older version or a hand edit can leave (SQLite reads 9e999 as infinity; it stores
#: NaN as NULL, so NaN cannot be written into a file at all).
EDITS = (
    "UPDATE runs SET throughput_bps = 9e999 WHERE id = 1",
    "UPDATE runs SET loss_pct = 500, jitter_ms = 'abc', rtt_mean_ms = -9e999 WHERE id = 2",
    "UPDATE runs SET throughput_bps = 1e308, elapsed_s = -9e999, sender_bps = 1e300 WHERE id = 3",
    'UPDATE runs SET flows_json = \'[{"flow": "up", "sender_bps": Infinity, '
    '"receiver_bps": 1e999}]\' WHERE id = 4',
    "UPDATE samples SET received_bps = 9e999, sent_bps = 1e300 WHERE seq = 1",
    "UPDATE samples SET start_s = 9e999 WHERE run_id = 2 AND seq = 0",
    "UPDATE samples SET lost_packets = 9223372036854775807, bytes = -5 WHERE run_id = 3",
)


@pytest.fixture
def edited(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "old.sqlite3"
    sid = make_session(path)
    conn = sqlite3.connect(path)
    with conn:
        for statement in EDITS:
            conn.execute(statement)
    assert conn.execute("SELECT throughput_bps FROM runs WHERE id = 1").fetchone()[0] == float(
        "inf"
    )
    conn.close()
    return path, sid


def _strict(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


# Over 10 s: a database holding impossible figures renders in every command's output.
def test_a_database_holding_impossible_figures_renders_everywhere(
    edited: tuple[Path, str], tmp_path: Path
) -> None:
    path, sid = edited
    db = ("--db", str(path))
    shown = linklab("sessions", "show", sid[:8], *db)
    assert shown.returncode == 0, shown.stderr
    assert "∞" not in shown.stdout and "inf" not in shown.stdout.lower()
    assert "901 Mbit/s" in shown.stdout  # the runs that are possible still count

    as_json = linklab("sessions", "show", sid[:8], "--json", *db)
    assert as_json.returncode == 0, as_json.stderr
    data = _strict(as_json.stdout)
    assert isinstance(data, dict)
    means = [p["throughput_bps"]["mean"] for p in data["points"]]
    assert means == [901e6, 903e6]  # of the one possible run at each length

    for fmt in ("html", "csv", "points", "samples", "json"):
        out = tmp_path / f"report.{fmt}"
        done = linklab("export", sid[:8], "--format", fmt, "--out", str(out), *db)
        assert done.returncode == 0, f"{fmt}: {done.stderr}"
        assert "Traceback" not in done.stderr
        text = out.read_text(encoding="utf-8")
        assert "Infinity" not in text and "1e+308" not in text and "1e308" not in text, fmt
    exported = _strict((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert isinstance(exported, dict)
    runs = exported["sessions"][0]["runs"]
    assert [r["metrics"]["throughput_bps"] for r in runs][:3] == [None, 901e6, None]
    assert runs[1]["metrics"]["loss_pct"] is None and runs[1]["metrics"]["jitter_ms"] is None
    assert runs[3]["flows"] == [{"flow": "up", "sender_bps": None, "receiver_bps": None}]
    assert len(runs[1]["samples"]) == 1  # the sample no time axis can place is left out
    rows = list(csv.DictReader(io.StringIO((tmp_path / "report.csv").read_text("utf-8"))))
    assert rows[0]["throughput_bps"] == "" and rows[1]["loss_pct"] == ""

    # What the export wrote imports again: the impossible figures are gone from it.
    again = tmp_path / "again.sqlite3"
    done = linklab("import", str(tmp_path / "report.json"), "--db", str(again))
    assert done.returncode == 0 and done.stdout == "Imported 1 session.\n", done.stderr


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        (
            "metrics.throughput_bps",
            1e308,
            "throughput_bps 1e+308 bit/s, which is not a possible throughput (from 0 to 10",
        ),
        ("metrics.loss_pct", 500, "loss_pct 500 %, which is not a possible loss"),
        ("metrics.latency_loss_pct", 100.5, "latency_loss_pct 100.5 %"),
        ("elapsed_s", 1e12, "elapsed_s 1e+12 s, which is not a possible run time"),
        ("samples.0.received_bps", 2e13, "sample 1, has received_bps 2e+13 bit/s"),
        ("samples.1.end_s", 1e9, "sample 2, has end_s 1e+09 s"),
    ],
)
def test_an_exchange_file_with_an_impossible_figure_is_refused(
    tmp_path: Path, where: str, value: float, words: str
) -> None:
    source = tmp_path / "student.sqlite3"
    sid = make_session(source)
    file = tmp_path / "absurd.linklab"
    with Database(source, readonly=True) as db:
        document = export_sessions(SessionStore(db), [sid])
    node = document["sessions"][0]["runs"][2]
    *parents, last = where.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value
    file.write_text(json.dumps(document), encoding="utf-8")

    target = tmp_path / "instructor.sqlite3"
    with Database(target) as db:
        SessionStore(db).create_session(Plan(peer=Peer("10.0.0.7"), name="mine"))
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    refused = linklab("import", str(file), "--db", str(target))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert f"session {sid[:8]} ('absurd') whose run 3" in refused.stderr
    assert words in refused.stderr, refused.stderr
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before
    with Database(target, readonly=True) as db:
        assert [s.name for s in SessionStore(db).list_sessions()] == ["mine"]


def test_every_stored_figure_has_bounds() -> None:
    """Each numeric metric of a run is checked on import and trusted on read only within the
    engine's bounds: none is left out."""
    numeric = [name for name in METRIC_FIELDS if name not in TEXT_METRIC_FIELDS]
    assert [name for name in numeric if name not in LIMITS] == []
    assert "elapsed_s" in LIMITS
    assert LIMITS["loss_pct"][2] == 100.0 and LIMITS["latency_loss_pct"][2] == 100.0
    assert LIMITS["end_s"][2] < float("inf")
