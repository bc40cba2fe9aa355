"""Working latency in the store: schema 4 migrated from a real schema-3 file with its runs
kept, the figures and the method stored and read back, an older file that is only read (never
migrated) still read, and exchange files with and without them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Metric, Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.store.db import SCHEMA_VERSION, Database
from app.store.sessions import SessionStore
from app.study.files.exchange import export_sessions, import_sessions, read_exchange, write_exchange
from tests.store.old_files import (
    peers_before_schema_6,
    responsiveness_before_schema_8,
    runs_before_schema_7,
    samples_before_schema_5,
)

KEY = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
LATENCY = RunMetrics(
    throughput_bps=9e6,
    latency_idle_ms=0.4,
    latency_ms=212.5,
    latency_p90_ms=260.0,
    latency_loss_pct=1.5,
    latency_method="udp-echo",
)
COLUMNS = ("latency_idle_ms", "latency_ms", "latency_p90_ms", "latency_loss_pct", "latency_method")


def _plan() -> Plan:
    return Plan(
        peer=Peer("127.0.0.1"),
        values=(1408,),
        repetitions=2,
        duration_s=1,
        metrics=(Metric.THROUGHPUT, Metric.LATENCY),
    )


def _add(store: SessionStore, sid: str, key: RunKey, metrics: RunMetrics) -> int:
    return store.add_run(
        sid, key, 1408.0, metrics=metrics, started_at=utc_now(), elapsed_s=1.0, engine="iperf3"
    )


def _version_3_file(path: Path) -> str:
    """A database as LinkLab wrote it before working latency: one session, one run."""
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, KEY, RunMetrics(throughput_bps=5e6, retransmits=3))
    conn = sqlite3.connect(path)
    for column in COLUMNS:
        conn.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    samples_before_schema_5(conn)
    peers_before_schema_6(conn)
    runs_before_schema_7(conn)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    return sid


def test_schema_3_file_migrates_and_stores_latency(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_3_file(path)
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 4
        store = SessionStore(db)
        (old,) = store.runs(sid)
        assert old.metrics.throughput_bps == 5e6 and old.metrics.retransmits == 3
        assert old.metrics.latency_ms is None and old.metrics.latency_method is None
        run_id = _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, 2), LATENCY)
        assert store.run(sid, run_id).metrics == LATENCY


def test_an_older_file_that_is_only_read_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_3_file(path)
    with Database(path, readonly=True) as db:
        assert db.version == 3  # read as it is, never migrated
        (run,) = SessionStore(db).runs(sid)
        assert run.metrics.throughput_bps == 5e6 and run.metrics.latency_ms is None


def test_exchange_files_carry_latency_and_older_ones_import(tmp_path: Path) -> None:
    with Database(tmp_path / "a.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, KEY, LATENCY)
        document = export_sessions(store, [sid])
    path = tmp_path / "lab.linklab"
    write_exchange(path, document)
    with Database(tmp_path / "b.sqlite3") as db:
        store = SessionStore(db)
        import_sessions(store, read_exchange(path))
        (run,) = store.runs(sid)
        assert run.metrics == LATENCY
    # A file from a LinkLab before working latency: its runs have no latency keys at all.
    for session in document["sessions"]:
        for run_data in session["runs"]:
            for column in COLUMNS:
                del run_data["metrics"][column]
    write_exchange(path, document)
    with Database(tmp_path / "c.sqlite3") as db:
        store = SessionStore(db)
        import_sessions(store, read_exchange(path))
        (run,) = store.runs(sid)
        assert run.metrics.throughput_bps == 9e6 and run.metrics.latency_method is None


def test_a_run_is_read_with_or_without_its_raw_output(tmp_path: Path) -> None:
    # The runner keeps every finished run of a study in memory: it reads them without the
    # raw output, which the database keeps for audit.
    with Database(tmp_path / "lab.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        key = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
        run_id = store.add_run(
            sid, key, 1408.0, metrics=LATENCY, started_at=utc_now(), elapsed_s=1.0,
            engine="iperf3", raw_output="[  5] 0.00-1.00 sec",
        )  # fmt: skip
        assert store.run(sid, run_id).raw_output == "[  5] 0.00-1.00 sec"
        light = store.run(sid, run_id, with_raw=False)
        assert light.raw_output == "" and light.metrics == LATENCY
