"""Store scale: one million samples written, then a comparison query over 10 sessions x
6 points x 40 runs (every point's runs fetched and summarised), timed."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.analysis.points import point_summaries
from app.analysis.stats import preload
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.domain.results import Sample
from app.store.db import Database
from app.store.sessions import SessionStore

POINTS = 6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--runs", type=int, default=40, help="runs per point")
    parser.add_argument("--samples", type=int, default=1_000_000, help="samples in all")
    parser.add_argument(
        "--quick", action="store_true", help="a short look: 2 sessions x 6 points x 4 runs"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sessions, args.runs, args.samples = 2, 4, 20_000
    sessions, runs_per_point = args.sessions, args.runs
    # 416 intervals a run by default: runs of about 7 minutes at 1 s.
    per_run = args.samples // (sessions * POINTS * runs_per_point)
    values = (128, 384, 640, 896, 1152, 1408)
    plan = Plan(peer=Peer("bench"), values=values, repetitions=runs_per_point, duration_s=60)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scale.sqlite3"
        with Database(path) as db:
            store = SessionStore(db)
            t0 = time.monotonic()
            written = 0
            ids = []
            for s in range(sessions):
                sid = store.create_session(plan)
                ids.append(sid)
                for i, value in enumerate(values):
                    for rep in range(1, runs_per_point + 1):
                        bps = 40e6 + 1e5 * ((s * 7 + i * 3 + rep) % 11)
                        samples = [Sample(t, t + 1.0, sent_bps=bps) for t in range(per_run)]
                        store.add_run(
                            sid,
                            RunKey(Protocol.TCP, IpVersion.V4, i, rep),
                            value,
                            metrics=RunMetrics(throughput_bps=bps),
                            samples=samples,
                            started_at=utc_now(),
                            elapsed_s=60.0,
                            engine="iperf3",
                        )
                        written += len(samples)
                store.finish(sid, store.get(sid).status)
            write_s = time.monotonic() - t0
            size_mb = path.stat().st_size / 1e6
            preload()  # SciPy's first import (about 1 s) is not the query's cost
            t1 = time.monotonic()
            for sid in ids:
                session = store.get(sid)
                point_summaries(session.plan, store.runs(sid))
            query_s = time.monotonic() - t1
            t2 = time.monotonic()
            one_run = store.runs(ids[0])[0]
            store.samples(one_run.id)
            sample_s = time.monotonic() - t2
        # Opening: as every read does (no whole-file check), and as start-up does (checked).
        opens = {}
        for verify in (False, True):
            times = []
            for _ in range(5):
                t3 = time.monotonic()
                with Database(path, readonly=True, verify=verify):
                    pass
                times.append(time.monotonic() - t3)
            opens[verify] = sorted(times)[len(times) // 2]
    runs = sessions * POINTS * runs_per_point
    print(
        f"wrote {written:,} samples in {runs:,} runs (one transaction per run): "
        f"{write_s:.1f} s, {written / write_s:,.0f} samples/s, file {size_mb:.0f} MB"
    )
    print(
        f"comparison query, {sessions} sessions x {POINTS} points x {runs_per_point} runs "
        f"summarised: {query_s * 1000:.0f} ms"
    )
    print(f"one run's {per_run} samples read back: {sample_s * 1000:.1f} ms")
    print(
        f"opening the database (median of 5): {opens[False] * 1000:.1f} ms as every read does; "
        f"{opens[True] * 1000:.1f} ms with PRAGMA quick_check, once per start-up "
        f"(ratio {opens[True] / max(opens[False], 1e-9):.0f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
