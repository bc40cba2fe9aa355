"""A database file cut short (`truncate`, as a copy that did not finish leaves one), and one
that failed its integrity check: the doctor says what the file held and what was lost, naming
the sessions it could not copy, never that everything could be read; `linklab sessions` says
so before it lists a damaged file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.conftest import linklab
from tests.store.test_recover import RUNS, _damaged

SESSIONS, RUNS_EACH = 12, 20


def _made(path: Path) -> list[str]:
    """Twelve sessions of twenty runs, each run with an engine output of about a page."""
    plan = Plan(peer=Peer("127.0.0.1"), values=(1408,), repetitions=RUNS_EACH, duration_s=1)
    ids = []
    with Database(path) as db:
        store = SessionStore(db)
        for n in range(SESSIONS):
            sid = store.create_session(plan)
            store.rename(sid, f"session {n}")
            for rep in range(1, RUNS_EACH + 1):
                store.add_run(
                    sid,
                    RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                    1408.0,
                    metrics=RunMetrics(throughput_bps=1e6 * rep),
                    samples=[Sample(float(t), t + 1.0, received_bps=1e6) for t in range(5)],
                    started_at=utc_now(),
                    elapsed_s=1.0,
                    engine="iperf3",
                    raw_output=os.urandom(1200).hex(),
                )
            ids.append(sid)
    return ids


def _copied(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM sessions")}
    finally:
        conn.close()


@pytest.mark.parametrize("kept", [300_000, 0.6])
def test_a_file_cut_short_says_what_was_lost(kept: float, tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    ids = _made(path)
    whole = path.stat().st_size
    size = int(kept if kept > 1 else whole * kept)
    os.truncate(path, size)  # what `truncate -s` does
    checked = linklab("doctor", "--db", str(path))
    assert checked.returncode == 1
    cut = f"it is cut short: only {size:,} of its {whole:,} bytes are there"
    assert cut in checked.stdout

    target = tmp_path / "new.sqlite3"
    done = linklab("doctor", "--db", str(path), "--recover-to", str(target))
    said = done.stdout.splitlines()[1]
    assert done.returncode == 1, done.stdout
    assert "everything that was there could be read" not in said
    copied = _copied(target)
    lost = [sid for sid in ids if sid not in copied]
    assert lost, "the cut must lose sessions, or the test proves nothing"
    assert said.startswith(f"Copied {len(copied)} sessions")
    assert f"The damaged file held {SESSIONS} sessions and " in said
    assert cut in said
    assert f"lost: {len(lost)} sessions (" in said
    named = [sid[:8] for sid in lost if sid[:8] in said]
    assert len(named) == min(len(lost), 5)
    if len(lost) > 5:
        assert f"and {len(lost) - 5} more)" in said
    # Every run of a session not copied counts as lost (at least those the file still shows).
    runs_lost = int(said.split(" runs that could not be read")[0].rsplit(" ", 1)[-1])
    assert runs_lost >= 1
    with Database(target, readonly=True) as db:
        store = SessionStore(db)
        runs_copied = sum(len(store.runs(sid)) for sid in copied)
    assert f"Copied {len(copied)} sessions ({runs_copied} runs" in said


def test_sessions_warns_of_a_file_that_failed_its_integrity_check(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    _damaged(path)
    listed = linklab("sessions", "--db", str(path))
    assert listed.returncode == 0
    assert listed.stdout.splitlines()[-1] == f"{len(RUNS)} sessions."
    assert listed.stderr.startswith(f"linklab: The database {path} failed its integrity check")
    assert "--recover-to NEW.sqlite3" in listed.stderr
