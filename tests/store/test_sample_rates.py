"""A sample's two rates in the store: schema 5 sorts an older file's one bits_per_second into
the sender's and the receiver's column (migrated, read without migrating, and recovered), and
a run's samples revised at its end take the place of those written while it ran."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import SCHEMA_VERSION, Database
from app.store.recover import recover
from app.store.run_rows import RunRows
from app.store.sessions import SessionStore
from app.study.sweep.sample_writer import SampleWriter
from tests.store.old_files import (
    peers_before_schema_6,
    responsiveness_before_schema_8,
    runs_before_schema_7,
    samples_before_schema_5,
)

KEY = RunKey(Protocol.UDP, IpVersion.V4, 0, 1)
#: As LinkLab 4 stored them: an upload's interval as its sender reported it; a download's as
#: the receiving client did (with its jitter); an upload interval with the receiver's jitter.
SENT_UP = Sample(0.0, 1.0, Flow.UP, sent_bps=100e6, packets=8878)
RECEIVED_DOWN = Sample(0.0, 1.0, Flow.DOWN, received_bps=20e6, jitter_ms=0.1, lost_packets=3)
RECEIVED_UP = Sample(1.0, 2.0, Flow.UP, received_bps=19e6, jitter_ms=0.2, lost_packets=5)
SAMPLES = [SENT_UP, RECEIVED_DOWN, RECEIVED_UP]


def _plan() -> Plan:
    return Plan(peer=Peer("127.0.0.1"), protocols=(Protocol.UDP,), values=(1408,), duration_s=2)


def _version_4_file(path: Path) -> str:
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        store.add_run(
            sid,
            KEY,
            1408.0,
            metrics=RunMetrics(throughput_bps=19.5e6),
            samples=SAMPLES,
            started_at=utc_now(),
            elapsed_s=2.0,
            engine="iperf3",
        )
    conn = sqlite3.connect(path)
    samples_before_schema_5(conn)
    peers_before_schema_6(conn)
    runs_before_schema_7(conn)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    columns = {r[1] for r in conn.execute("PRAGMA table_info(samples)")}
    assert "bits_per_second" in columns and "sent_bps" not in columns
    conn.close()
    return sid


def _read(path: Path, sid: str, *, readonly: bool = False) -> list[Sample]:
    with Database(path, readonly=readonly) as db:
        store = SessionStore(db)
        (run,) = store.runs(sid)
        return store.samples(run.id)


def test_schema_4_file_migrates_each_rate_to_its_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_4_file(path)
    assert _read(path, sid) == SAMPLES
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 5
        columns = {r[1] for r in db.query("PRAGMA table_info(samples)")}
    assert {"sent_bps", "received_bps"} <= columns and "bits_per_second" not in columns


def test_an_older_file_only_read_sorts_the_rates_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_4_file(path)
    assert _read(path, sid, readonly=True) == SAMPLES
    with Database(path, readonly=True) as db:
        assert db.version == 4  # never migrated


def test_recovering_an_older_file_keeps_both_rates(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_4_file(path)
    saved = recover(path, tmp_path / "saved.sqlite3")
    assert saved.samples_saved == 3
    assert _read(tmp_path / "saved.sqlite3", sid) == SAMPLES


def test_samples_revised_at_the_end_replace_those_written_live(tmp_path: Path) -> None:
    """An upload's live samples are the sender's; the receiver's, joined in when the run
    ends, take their place (one row per interval, numbered from 0 again)."""
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        run_id = RunRows(store).begin(
            sid, KEY, 1408.0, attempts=1, engine="iperf3",
            engine_version="3.12", argv=["iperf3"],
        )  # fmt: skip
        writer = SampleWriter(RunRows(store), run_id, every_s=0.0)
        live = [Sample(float(i), i + 1.0, sent_bps=100e6) for i in range(3)]
        for sample in live:
            writer.add(sample)
        assert store.samples(run_id) == live
        revised = [Sample(float(i), i + 1.0, sent_bps=100e6, received_bps=20e6) for i in range(2)]
        writer.finish(metrics=RunMetrics(throughput_bps=20e6), revised=revised)
        assert store.samples(run_id) == revised
        seqs = [r["seq"] for r in db.query("SELECT seq FROM samples WHERE run_id = ?", (run_id,))]
        assert seqs == [0, 1]
