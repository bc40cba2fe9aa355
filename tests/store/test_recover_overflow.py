"""A real database damaged inside one run's raw output (its overflow pages, found with SQLite's
dbstat table): `doctor --db` says what a full read finds, `--recover-to` saves the run and all
its 1800 samples with the unreadable column left empty and counted, and `export --format json`
writes the session with the damaged bytes replaced and a sentence saying so."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.domain.net import Flow
from app.domain.plan import Peer, Plan
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.results import Sample
from app.store.db import Database
from app.store.recover import check, read_all, recover
from app.store.sessions import SessionStore
from tests.conftest import linklab

SAMPLES = 1800


def _has_dbstat() -> bool:
    with sqlite3.connect(":memory:") as conn:
        try:
            conn.execute("SELECT count(*) FROM dbstat").fetchone()
        except sqlite3.OperationalError:
            return False
    return True


pytestmark = pytest.mark.skipif(
    not _has_dbstat(),
    reason="this SQLite has no dbstat table, which the test uses to find a run's overflow pages "
    "to damage (Windows' Python builds SQLite without it)",
)


def _overflow_pages(path: Path) -> tuple[int, list[int]]:
    conn = sqlite3.connect(path)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            int(row[0])
            for row in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'overflow' "
                "ORDER BY pageno"
            )
        ]
    finally:
        conn.close()
    return size, pages


def _database(path: Path) -> str:
    """One session, one run of 1800 samples whose raw output (about 300 KB) fills overflow
    pages; checkpointed so that every page is in the file itself."""
    plan = Plan(peer=Peer("127.0.0.1"), values=(1408,), repetitions=1, duration_s=180, name="long")
    raw = "".join(
        f'{{"event": "interval", "n": {i}, "marker": "RAW-OUTPUT-{i:05d}"}}\n' for i in range(4000)
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        store.add_run(
            sid,
            plan.run_keys()[0],
            1408.0,
            metrics=RunMetrics(throughput_bps=9e8),
            samples=[
                Sample(i * 0.1, (i + 1) * 0.1, Flow.UP, received_bps=9e8 + i)
                for i in range(SAMPLES)
            ],
            started_at=utc_now(),
            elapsed_s=180.0,
            engine="iperf3",
            argv=["iperf3", "-c", "127.0.0.1"],
            raw_output=raw,
        )
        store.finish(sid, SessionStatus.COMPLETED)
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sid


def _damage(path: Path, how: str) -> None:
    """Bytes that are not text written into the middle of an overflow page of the run (SQLite
    checks pages' structure, not their content), or the page's link to the next one broken."""
    size, pages = _overflow_pages(path)
    assert len(pages) > 10, "the raw output must fill overflow pages"
    page = pages[len(pages) // 2]
    data = bytearray(path.read_bytes())
    start = (page - 1) * size
    if how == "bytes":
        assert b"RAW-OUTPUT-" in data[start : start + size]  # the run's raw output is there
        data[start + 200 : start + 216] = b"\xff\xfe" * 8
    else:
        data[start : start + 4] = (2**31 - 1).to_bytes(4, "big")  # the next page: nowhere
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["bytes", "chain"])
def test_damage_inside_a_raw_output_loses_nothing_else(tmp_path: Path, how: str) -> None:
    path = tmp_path / "linklab.sqlite3"
    sid = _database(path)
    _damage(path, how)
    db = ("--db", str(path))

    said = linklab("doctor", *db)
    assert said.returncode == 1, said.stdout
    assert "nothing is damaged" not in said.stdout and "--recover-to NEW.sqlite3" in said.stdout
    if how == "bytes":  # SQLite's own check passes: only the full read finds it
        shown = linklab("sessions", "show", sid[:8], *db)  # reads no raw output
        assert shown.returncode == 0 and "900 Mbit/s" in shown.stdout, shown.stderr
        assert "passed SQLite's integrity check, but a full read" in said.stdout
        assert f"the raw output of run 1 (session {sid[:8]}) cannot be read" in said.stdout
    else:
        assert "failed SQLite's integrity check" in said.stdout

    target = tmp_path / "recovered.sqlite3"
    copied = linklab("doctor", *db, "--recover-to", str(target))
    assert f"Copied 1 session (1 run, {SAMPLES:,} samples)" in copied.stdout, copied.stdout
    assert f"the raw output of run 1 (session {sid[:8]})" in copied.stdout
    assert "left empty" in copied.stdout and "lost: 0 sessions and 0 runs" in copied.stdout
    assert copied.returncode == 1  # something could not be read: said, not hidden
    assert check(target).ok
    with Database(target, readonly=True) as out:
        store = SessionStore(out)
        (run,) = store.runs(sid, with_raw=True)
        assert run.raw_output == "" and len(store.samples(run.id)) == SAMPLES
        # The columns stored after the raw output are on the pages past a broken link.
        assert run.metrics.throughput_bps == (9e8 if how == "bytes" else None)

    if how == "bytes":  # the chain intact: the export reads the whole raw output, repaired
        file = tmp_path / "out.linklab"
        done = linklab("export", sid[:8], "--format", "json", "--out", str(file), *db)
        assert done.returncode == 0, done.stderr
        assert f"The raw output of run 1 of session {sid[:8]} holds bytes" in done.stderr
        exported = json.loads(file.read_text(encoding="utf-8"))
        (run_data,) = exported["sessions"][0]["runs"]
        assert "\ufffd" in run_data["raw_output"] and len(run_data["samples"]) == SAMPLES
        assert "RAW-OUTPUT-03999" in run_data["raw_output"]


def test_a_full_read_of_an_undamaged_file_finds_nothing(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    _database(path)
    found = read_all(path)
    assert found.complete and found.samples_saved == SAMPLES and found.emptied == []
    assert check(path).ok
    saved = recover(path, tmp_path / "copy.sqlite3")
    assert saved.complete and saved.runs_saved == 1
