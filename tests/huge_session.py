"""A multi-day monitor's session at full size, stored through the store as the monitor stores
one: RUNS back-to-back runs of SAMPLES one-second interval samples each, every TCP figure
filled in, each run's raw output as long as iperf3's report of it (300 × 3000: 250 hours,
900,000 samples). The round-trip test and the exchange
benchmark build it; nothing here is a stand-in for what LinkLab writes."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
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


def raw_output(run: int, count: int = SAMPLES) -> str:
    """What iperf3 prints for such a run (its text report: a line an interval and the end's
    two), so that the raw output stored with each run is as long as a real one."""
    lines = [
        "Connecting to host 192.0.2.7, port 5201",
        f"[  5] local 192.0.2.1 port {40000 + run} connected to 192.0.2.7 port 5201",
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
    ]
    for t in range(count):
        mbit = 90 + ((run * 31 + t * 7) % 97) / 10
        lines.append(
            f"[  5] {t:7.2f}-{t + 1:<7.2f} sec  {mbit / 8:5.2f} MBytes  {mbit:5.1f} Mbits/sec"
            f"    {(run + t) % 5}   {64 + (run + t) % 40} KBytes"
        )
    lines += ["- - - - - - - - - - - - - - - - - - - - - - - - -", "", "iperf Done."]
    return "\n".join(lines) + "\n"


def make_huge(path: Path, runs: int = RUNS, samples: int = SAMPLES) -> str:
    """The session's id: a monitor of `runs` runs of `samples` samples, stored in `path`."""
    plan = replace(
        monitor_plan(Peer("192.0.2.7"), run_s=samples, name="multi-day monitor"),
        repetitions=runs,  # as a monitor's plan counts its runs at its end
    )
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
                argv=("iperf3", "-c", "192.0.2.7", "-t", str(samples)),
                raw_output=raw_output(run, samples),
            )
        store.finish(session_id, SessionStatus.COMPLETED)
    return session_id
