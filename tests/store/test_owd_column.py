"""One-way delay in the store: schema 7 migrated from a schema-6 file with its runs kept, the
figure of a run and of its interval samples stored and read back, an older file that is only
read (never migrated) still read, and exchange files with and without it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.domain.net import Direction, Flow, IpVersion, Protocol
from app.domain.plan import Engine, Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import SCHEMA_VERSION, Database
from app.store.sessions import SessionStore
from app.study.files.exchange import export_sessions, import_sessions, read_exchange, write_exchange
from tests.store.old_files import responsiveness_before_schema_8, runs_before_schema_7

KEY = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)
DELAYED = RunMetrics(throughput_bps=9e6, owd_ms=2.883)
#: The intervals of local-iperf-2.1.8-linux-tcp-reverse-trip-times-e.txt.
SAMPLES = (
    Sample(0.0, 1.0, Flow.DOWN, received_bps=14083425e3, owd_ms=3.510),
    Sample(1.0, 2.0, Flow.DOWN, received_bps=21138244e3, owd_ms=2.468),
)


def _plan() -> Plan:
    return Plan(
        peer=Peer("127.0.0.1"),
        engine=Engine.IPERF2,
        direction=Direction.DOWN,
        values=(1408,),
        repetitions=2,
        duration_s=1,
        clocks_synchronised=True,
    )


def _add(
    store: SessionStore, sid: str, key: RunKey, metrics: RunMetrics, samples: tuple[Sample, ...]
) -> int:
    return store.add_run(
        sid,
        key,
        1408.0,
        metrics=metrics,
        samples=samples,
        started_at=utc_now(),
        elapsed_s=1.0,
        engine="iperf",
    )


def _version_6_file(path: Path) -> str:
    """A database as LinkLab wrote it before one-way delay: one session, one run."""
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, KEY, RunMetrics(throughput_bps=5e6), (Sample(0.0, 1.0, Flow.DOWN, 5e6),))
    conn = sqlite3.connect(path)
    runs_before_schema_7(conn)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    return sid


def test_schema_6_file_migrates_and_stores_one_way_delay(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_6_file(path)
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 7
        store = SessionStore(db)
        (old,) = store.runs(sid)
        assert old.metrics.throughput_bps == 5e6 and old.metrics.owd_ms is None
        assert [s.owd_ms for s in store.samples(old.id)] == [None]
        run_id = _add(store, sid, RunKey(Protocol.TCP, IpVersion.V4, 0, 2), DELAYED, SAMPLES)
        assert store.run(sid, run_id).metrics == DELAYED
        assert tuple(store.samples(run_id)) == SAMPLES
        assert store.get(sid).plan.clocks_synchronised is True


def test_a_schema_6_file_that_is_only_read_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid = _version_6_file(path)
    with Database(path, readonly=True) as db:
        assert db.version == 6  # read as it is, never migrated
        store = SessionStore(db)
        (run,) = store.runs(sid)
        assert run.metrics.throughput_bps == 5e6 and run.metrics.owd_ms is None
        assert [s.owd_ms for s in store.samples(run.id)] == [None]


def test_exchange_files_carry_one_way_delay_and_older_ones_import(tmp_path: Path) -> None:
    with Database(tmp_path / "a.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, KEY, DELAYED, SAMPLES)
        document = export_sessions(store, [sid])
    path = tmp_path / "lab.linklab"
    write_exchange(path, document)
    with Database(tmp_path / "b.sqlite3") as db:
        store = SessionStore(db)
        import_sessions(store, read_exchange(path))
        (run,) = store.runs(sid)
        assert run.metrics == DELAYED
        assert tuple(store.samples(run.id)) == SAMPLES
    # A file from a LinkLab before one-way delay: no owd_ms key, no clocks_synchronised.
    for session in document["sessions"]:
        session["plan"].pop("clocks_synchronised", None)
        for run_data in session["runs"]:
            del run_data["metrics"]["owd_ms"]
            for sample in run_data["samples"]:
                del sample["owd_ms"]
    write_exchange(path, document)
    with Database(tmp_path / "c.sqlite3") as db:
        store = SessionStore(db)
        import_sessions(store, read_exchange(path))
        (run,) = store.runs(sid)
        assert run.metrics.throughput_bps == 9e6 and run.metrics.owd_ms is None
        assert [s.owd_ms for s in store.samples(run.id)] == [None, None]


def test_an_impossible_one_way_delay_in_an_exchange_file_is_refused(tmp_path: Path) -> None:
    import pytest

    from app.domain.errors import LinkLabError

    with Database(tmp_path / "a.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        _add(store, sid, KEY, DELAYED, SAMPLES)
        document = export_sessions(store, [sid])
    document["sessions"][0]["runs"][0]["metrics"]["owd_ms"] = 7e6  # two hours: no path
    path = tmp_path / "lab.linklab"
    write_exchange(path, document)
    with pytest.raises(LinkLabError, match="one-way delay"):
        read_exchange(path)
