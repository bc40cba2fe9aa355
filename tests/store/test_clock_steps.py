"""Sessions and runs stored across a step of the computer's clock (the store's clock given
as a parameter): a run never ends before it begins, every stamp of the session keeps its
order, and the run and the session keep how far the computer's clock was set; a session the
store did not begin (another process's) is stamped by the computer's clock as it is. A real
SQLite file; schema 14 keeps the marks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus
from app.domain.results import Sample
from app.store.db import Database
from app.store.run_rows import RunRows
from app.store.sessions import SessionStore
from tests.domain.test_clock import Clocks

KEYS = [RunKey(Protocol.TCP, IpVersion.V4, 0, repetition) for repetition in (1, 2, 3)]


def seconds(stamp: str | None) -> float:
    assert stamp is not None
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def run_one(store: SessionStore, sid: str, key: RunKey, clocks: Clocks, step: float = 0) -> int:
    """A 10-s run; the computer's clock is set by `step` half way through."""
    run_id = RunRows(store).begin(sid, key, 1408.0, attempts=1, engine="iperf3")
    clocks.steady += 5
    RunRows(store).add_samples(run_id, 0, [Sample(0.0, 5.0, sent_bps=1e6)])
    clocks.offset += step
    clocks.steady += 5
    RunRows(store).finish(run_id, metrics=RunMetrics(throughput_bps=1e6), elapsed_s=10.0)
    return run_id


def test_a_clock_set_back_mid_run_leaves_every_stamp_in_order_and_marked(
    tmp_path: Path,
) -> None:
    clocks = Clocks()
    with Database(tmp_path / "lab.sqlite3") as db:
        store = SessionStore(db, clocks.clock())
        sid = store.create_session(Plan(peer=Peer("192.0.2.1"), values=(1408,), repetitions=3))
        run_one(store, sid, KEYS[0], clocks)
        run_one(store, sid, KEYS[1], clocks, step=-7200)  # set back two hours mid-run
        clocks.steady += 2
        run_one(store, sid, KEYS[2], clocks)
        store.finish(sid, SessionStatus.COMPLETED)
        session = store.get(sid)
        runs = store.runs(sid)
    first, stepped, after = runs
    for run in runs:
        assert seconds(run.ended_at) - seconds(run.started_at) == 10  # never ends before
    assert seconds(stepped.started_at) >= seconds(first.ended_at)
    assert seconds(after.started_at) - seconds(stepped.ended_at) == 2
    assert seconds(session.ended_at) - seconds(session.started_at) == 32
    assert first.clock_step_s is None
    assert stepped.clock_step_s == after.clock_step_s == -7200
    assert session.clock_step_s == -7200


def test_a_session_this_store_did_not_begin_follows_the_computers_clock(
    tmp_path: Path,
) -> None:
    clocks = Clocks()
    path = tmp_path / "lab.sqlite3"
    with Database(path) as db:
        sid = SessionStore(db, clocks.clock()).create_session(
            Plan(peer=Peer("192.0.2.1"), values=(1408,))
        )
    clocks.offset = -7200
    with Database(path) as db:
        other = SessionStore(db, clocks.clock())  # another process: no time of the session's
        other.finish(sid, SessionStatus.STOPPED)
        session = other.get(sid)
    assert seconds(session.ended_at) - seconds(session.started_at) == -7200
    assert session.clock_step_s is None  # nothing here could tell the clock was set
