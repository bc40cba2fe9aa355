"""Store scale: one million samples written, then a comparison query over 10 sessions x
6 points x 40 runs (every point's runs fetched and summarised), timed."""

from __future__ import annotations

import sys
import tempfile
import time
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

SESSIONS, POINTS, RUNS = 10, 6, 40
SAMPLES_TOTAL = 1_000_000


def main() -> int:
    per_run = SAMPLES_TOTAL // (SESSIONS * POINTS * RUNS)  # 416 intervals: ~7 min runs at 1 s
    values = (128, 384, 640, 896, 1152, 1408)
    plan = Plan(peer=Peer("bench"), values=values, repetitions=RUNS, duration_s=60)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scale.sqlite3"
        with Database(path) as db:
            store = SessionStore(db)
            t0 = time.monotonic()
            written = 0
            ids = []
            for s in range(SESSIONS):
                sid = store.create_session(plan)
                ids.append(sid)
                for i, value in enumerate(values):
                    for rep in range(1, RUNS + 1):
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
    runs = SESSIONS * POINTS * RUNS
    print(
        f"wrote {written:,} samples in {runs:,} runs (one transaction per run): "
        f"{write_s:.1f} s, {written / write_s:,.0f} samples/s, file {size_mb:.0f} MB"
    )
    print(
        f"comparison query, {SESSIONS} sessions x {POINTS} points x {RUNS} runs "
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
