"""A run's working latency per second in the store (schema 12): written in batches with the
run's samples as it goes and at its end, read back in order; a schema-11 file migrates with its
runs kept, and one that is only read has none; rows beyond the bounds are left out; deleting
the session takes them with it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import LatencySecond, Sample
from app.store.db import SCHEMA_VERSION, Database
from app.store.recover import recover
from app.store.run_rows import RunRows
from app.store.sessions import SessionStore
from app.store.trash import Trash
from app.study.sweep.sample_writer import SampleWriter
from app.study.sweep.working_latency import LoadedSeconds
from tests.store.old_files import figures_before

KEY = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)


def _begin(store: SessionStore) -> tuple[str, int]:
    sid = store.create_session(Plan(peer=Peer("127.0.0.1"), values=(0,), repetitions=1))
    run_id = RunRows(store).begin(sid, KEY, 0, attempts=1, started_at=utc_now(), engine="iperf3")
    return sid, run_id


def test_seconds_go_in_with_the_samples_and_at_the_end(tmp_path: Path) -> None:
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid, run_id = _begin(store)
        loaded = LoadedSeconds()
        writer = SampleWriter(RunRows(store), run_id, every_s=0.0, latency=loaded)
        # Probes of seconds 0 and 1 (one lost), then one of second 2 completes second 1.
        loaded.add([(0.1, 10.0), (0.5, 14.0), (0.9, 12.0), (1.2, None), (1.6, 20.0)])
        writer.add(Sample(0.0, 1.0, Flow.UP, sent_bps=1e6))  # flushed with second 0
        assert store.latency_seconds(run_id) == [LatencySecond(0, 12.0, 3, 0)]
        loaded.add([(2.1, 30.0)])
        loaded.close()  # the run ends: second 2 is complete too
        writer.finish(metrics=RunMetrics(throughput_bps=1e6))
        assert store.latency_seconds(run_id) == [
            LatencySecond(0, 12.0, 3, 0),
            LatencySecond(1, 20.0, 1, 1),
            LatencySecond(2, 30.0, 1, 0),
        ]
        assert store.latency_seconds(run_id)[1].lost_pct == 50.0
        Trash(db).remove(sid)
        assert store.latency_seconds(run_id) == []


def test_an_older_file_migrates_and_one_only_read_has_none(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        sid, run_id = _begin(store)
        RunRows(store).finish(run_id, metrics=RunMetrics(throughput_bps=1e6))
    conn = sqlite3.connect(path)
    figures_before(conn, 11)
    conn.execute("PRAGMA user_version = 11")
    conn.commit()
    conn.close()
    with Database(path, readonly=True) as db:
        assert db.version == 11
        assert SessionStore(db).latency_seconds(run_id) == []
        assert len(SessionStore(db).runs(sid)) == 1
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION
        store = SessionStore(db)
        assert [r.id for r in store.runs(sid)] == [run_id]
        RunRows(store).add_samples(run_id, 0, [], [LatencySecond(0, 5.0, 10, 0)])
        assert store.latency_seconds(run_id) == [LatencySecond(0, 5.0, 10, 0)]


def test_a_row_beyond_the_bounds_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Database(path) as db:
        store = SessionStore(db)
        _sid, run_id = _begin(store)
        RunRows(store).add_samples(
            run_id, 0, [], [LatencySecond(0, 5.0, 10, 0), LatencySecond(1, 6.0, 9, 1)]
        )
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE latency_seconds SET median_ms = 1e999 WHERE second = 1")
    conn.close()
    with Database(path, readonly=True) as db:
        assert SessionStore(db).latency_seconds(run_id) == [LatencySecond(0, 5.0, 10, 0)]


def test_recovery_copies_the_seconds(tmp_path: Path) -> None:
    source, target = tmp_path / "db.sqlite3", tmp_path / "copy.sqlite3"
    kept = [LatencySecond(0, 5.0, 10, 0), LatencySecond(1, None, 0, 4)]
    with Database(source) as db:
        store = SessionStore(db)
        sid, run_id = _begin(store)
        RunRows(store).finish(run_id, metrics=RunMetrics(throughput_bps=1e6), seconds=kept)
    found = recover(source, target)
    assert found.runs_saved == 1
    with Database(target, readonly=True) as db:
        store = SessionStore(db)
        (run,) = store.runs(sid)
        assert store.latency_seconds(run.id) == kept
