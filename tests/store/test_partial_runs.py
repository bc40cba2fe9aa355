"""Runs stored as they happen: schema 2 (partial runs) migrated from a real schema-1 file with
its data, samples and indexes kept; a run begun partial, its samples in batches, finished in
one transaction; partial runs never counted as done."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import SCHEMA_VERSION, Database, StoreError
from app.store.run_rows import RunRows
from app.store.schema import MIGRATIONS
from app.store.sessions import SessionStore
from app.store.trash import Trash
from app.study.sweep.sample_writer import SampleWriter
from tests.store.old_files import (
    peers_before_schema_6,
    responsiveness_before_schema_8,
    samples_before_schema_5,
)

KEY = RunKey(Protocol.TCP, IpVersion.V4, 0, 1)


def _plan() -> Plan:
    return Plan(peer=Peer("127.0.0.1"), values=(1408,), repetitions=2, duration_s=1)


def _version_1_file(path: Path) -> tuple[str, int]:
    """A database as LinkLab wrote it before partial runs: one session, one run, 3 samples."""
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        run_id = store.add_run(
            sid,
            KEY,
            1408.0,
            metrics=RunMetrics(throughput_bps=5e6),
            samples=[Sample(float(i), float(i + 1), sent_bps=5e6) for i in range(3)],
            started_at=utc_now(),
            elapsed_s=3.0,
            engine="iperf3",
        )
    # Back to schema 1 exactly: the runs table as version 1 made it.
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("PRAGMA legacy_alter_table = ON")  # samples keeps referring to "runs"
    conn.execute("ALTER TABLE runs RENAME TO runs_now")
    conn.execute(MIGRATIONS[0][3])  # version 1's CREATE TABLE runs
    columns = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
    names = ", ".join(columns)
    conn.execute(f"INSERT INTO runs ({names}) SELECT {names} FROM runs_now")
    conn.execute("DROP TABLE runs_now")
    conn.execute("DROP INDEX IF EXISTS runs_session")
    conn.execute("DROP INDEX IF EXISTS runs_finished_key")
    conn.execute("DROP TABLE exercise_work")  # version 3's table
    samples_before_schema_5(conn)
    peers_before_schema_6(conn)
    responsiveness_before_schema_8(conn)
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    assert (
        "REFERENCES runs(id)"
        in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'samples'").fetchone()[0]
    )
    assert conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 3
    conn.close()
    return sid, run_id


def test_schema_1_file_migrates_keeping_runs_samples_and_keys(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sid, run_id = _version_1_file(path)
    with Database(path) as db:
        assert db.version == SCHEMA_VERSION >= 3
        assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        store = SessionStore(db)
        (run,) = store.runs(sid)
        assert run.id == run_id and run.ok and run.metrics.throughput_bps == 5e6
        assert [s.start_s for s in store.samples(run_id)] == [0.0, 1.0, 2.0]
        indexes = {r[1] for r in db.conn.execute("PRAGMA index_list(runs)")}
        assert {"runs_session", "runs_finished_key"} <= indexes
        # A finished run is still unique per key; a partial one is not.
        with pytest.raises(StoreError):
            store.add_run(
                sid,
                KEY,
                1408.0,
                metrics=None,
                started_at=utc_now(),
                elapsed_s=None,
                engine="iperf3",
            )
        RunRows(store).begin(sid, KEY, 1408.0, attempts=1, engine="iperf3")
        # Deleting the session still takes runs and samples with it (the reference survived).
        Trash(db).remove(sid)
        assert db.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 0


def test_a_run_is_partial_until_it_finishes_and_never_counts_as_done(tmp_path: Path) -> None:
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        run_id = RunRows(store).begin(sid, KEY, 1408.0, attempts=1, engine="iperf3", argv=["x"])
        now = [0.0]
        writer = SampleWriter(RunRows(store), run_id, clock=lambda: now[0])
        for i in range(25):  # 0.1 s samples: a batch about once a second
            now[0] = i * 0.1
            writer.add(Sample(i * 0.1, (i + 1) * 0.1, sent_bps=1e6))
        assert len(store.samples(run_id)) == 21  # batches at 1.0 s and 2.0 s; four pending
        (partial,) = store.runs(sid, partial=True)
        assert partial.partial and not partial.ok and partial.status == "partial"
        assert store.runs(sid) == [] and store.done_keys(sid) == set()
        session = store.get(sid)
        assert (session.runs_done, session.runs_failed, session.runs_partial) == (0, 0, 1)
        writer.finish(metrics=RunMetrics(throughput_bps=1e6), elapsed_s=2.5)
        (run,) = store.runs(sid)
        assert run.ok and not run.partial and len(store.samples(run.id)) == 25
        assert [s.start_s for s in store.samples(run.id)][-1] == pytest.approx(2.4)
        assert store.done_keys(sid) == {KEY}
        assert store.get(sid).runs_done == 1


def test_an_unfinished_run_is_kept_when_it_measured_and_dropped_when_not(tmp_path: Path) -> None:
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        empty = SampleWriter(
            RunRows(store), RunRows(store).begin(sid, KEY, 1408.0, attempts=1, engine="x")
        )
        assert empty.unfinished("Stopped by the user.") is False
        measured = SampleWriter(
            RunRows(store), RunRows(store).begin(sid, KEY, 1408.0, attempts=1, engine="x")
        )
        measured.add(Sample(0.0, 1.0, sent_bps=1e6))
        assert measured.unfinished("Stopped by the user.") is True
        (run,) = store.runs(sid, partial=True)
        assert run.partial and run.error == "Stopped by the user."
        assert len(store.samples(run.id)) == 1
        # The key is measured again (a resumed session): both rows are kept.
        _again = RunRows(store).begin(sid, KEY, 1408.0, attempts=1, engine="x")
        assert len(store.runs(sid, partial=True)) == 2


def test_a_failed_run_measured_again_is_kept_as_an_attempt(tmp_path: Path) -> None:
    """A key's newest finished attempt is its run: the failed one before it (a resume measured
    it again) stays, with its samples and sentence, counted neither done nor failed."""
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(_plan())
        other = RunKey(Protocol.TCP, IpVersion.V4, 0, 2)
        failed = RunRows(store).begin(
            sid, KEY, 1408.0, attempts=1, started_at=utc_now(), engine="x"
        )
        RunRows(store).finish(
            failed,
            metrics=None,
            samples=[Sample(0.0, 1.0, sent_bps=1e6)],
            error_kind="DataStopped",
            error="The link went silent.",
        )
        store.add_run(
            sid,
            other,
            1408.0,
            metrics=None,
            error="The link went silent.",
            started_at=utc_now(),
            elapsed_s=None,
            engine="x",
        )
        assert store.done_keys(sid) == set()  # a failed run is measured again on resume
        session = store.get(sid)
        assert (session.runs_done, session.runs_failed, session.runs_partial) == (2, 2, 0)
        again = RunRows(store).begin(sid, KEY, 1408.0, attempts=1, started_at=utc_now(), engine="x")
        RunRows(store).finish(again, metrics=RunMetrics(throughput_bps=5e6), elapsed_s=1.0)
        assert store.done_keys(sid) == {KEY}
        session = store.get(sid)
        assert (session.runs_done, session.runs_failed, session.runs_partial) == (2, 1, 1)
        (kept,) = [r for r in store.runs(sid, partial=True) if r.partial]
        assert kept.id == failed and kept.error == "The link went silent."
        assert kept.error_kind == "DataStopped" and len(store.samples(failed)) == 1
        assert [r.key for r in store.runs(sid) if r.ok] == [KEY]
        assert [r.key for r in store.runs(sid) if not r.ok] == [other]  # not its key: kept
