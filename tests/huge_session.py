"""A multi-day monitor's session at full size, stored through the store as the monitor stores
one: RUNS back-to-back runs of SAMPLES one-second interval samples each, every TCP figure
filled in (300 × 3000: 250 hours, 900,000 samples). The round-trip test and the exchange
benchmark build it; nothing here is a stand-in for what LinkLab writes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, RunKey
from app.domain.records import RunMetrics, SessionStatus, iso
from app.domain.results import Sample
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.sweep.monitor import monitor_plan

RUNS = 300
SAMPLES = 3000


def samples_of(run: int, count: int = SAMPLES) -> list[Sample]:
    """One run's samples: rates, bytes, retransmits, RTT and window varying run by run."""
    out = []
    for t in range(count):
        rate = 90e6 + 1e5 * ((run * 31 + t * 7) % 97) + 0.25
        out.append(
            Sample(
                float(t),
                float(t + 1),
                sent_bps=rate * 1.01,
                received_bps=rate,
                bytes=int(rate / 8),
                retransmits=(run + t) % 5,
                rtt_ms=10.0 + ((run * 13 + t) % 50) / 10,
                cwnd_bytes=64_000 + 1_000 * ((run + t) % 40),
            )
        )
    return out


def make_huge(path: Path, runs: int = RUNS, samples: int = SAMPLES) -> str:
    """The session's id: a monitor of `runs` runs of `samples` samples, stored in `path`."""
    plan = monitor_plan(Peer("192.0.2.7"), run_s=samples, name="multi-day monitor")
    plan = plan.__class__(**{**plan.__dict__, "repetitions": runs})
    start = dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)
    with Database(path) as db:
        store = SessionStore(db)
        session_id = store.create_session(plan, {"host": {"name": "lab-pc"}})
        for run in range(1, runs + 1):
            began = start + dt.timedelta(seconds=(run - 1) * samples)
            store.add_run(
                session_id,
                RunKey(Protocol.TCP, IpVersion.V4, 0, run),
                0,
                metrics=RunMetrics(throughput_bps=95e6 + run, sender_bps=96e6 + run),
                samples=samples_of(run, samples),
                started_at=iso(began),
                elapsed_s=float(samples),
                engine="iperf3",
                engine_version="3.12",
                argv=("iperf3", "-c", "192.0.2.7", "-t", str(samples), "-J"),
                raw_output=f'{{"start": {{}}, "run": {run}}}',
            )
        store.finish(session_id, SessionStatus.COMPLETED)
    return session_id
