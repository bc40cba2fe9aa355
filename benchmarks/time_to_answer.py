"""Time to a trustworthy answer: how long LinkLab needs for a point's 95 % confidence interval
to reach 1 % of the mean, against the seed studies' fixed 40 runs of 60 s, and whether short
runs bias the mean (TCP slow start).

The link: two network namespaces joined by a veth pair, shaped with tc tbf to RATE Mbit/s
both ways, with random loss of TCP data (nftables) and a competing UDP flow that comes and
goes at random (on and off for exponentially distributed times), as other stations on a
Wi-Fi cell do. The seed study's 802.11n TCP throughput had a standard deviation of about
1 Mbit/s at 40-70 Mbit/s over 60-s runs (a coefficient of variation of 1.5-2.5 %); the
competitor is sized to give this link about the same spread.

Measured with iperf3, TCP at 1408 B, through `linklab run` (netperf, the presets' engine,
reports no interim results on a tbf-shaped link with LinkLab's -D arguments, so a 60-s run
of it trips LinkLab's silence limit there; iperf3 measures the same TCP):
1. the same link measured in 5-s and 60-s runs, interleaved (sessions of four 5-s runs and
   of one 60-s run in turn): each duration's mean, its coefficient of variation, and the
   difference of the means with its 95 % interval (Welch);
2. `linklab run --early-stop F` with 5-s runs: the runs and the time it took for the CI to
   reach F (by default 2 %, which takes minutes; 1 % takes four times the runs, since the
   half-width falls as 1/sqrt(n), which is how the time to 1 % is extrapolated, stated as such);
3. from the 60-s runs' spread, the runs of 60 s that 1 % needs, and the half-width the seeds'
   40 x 60 s reaches.
Needs root (namespaces); about 10 minutes with the defaults.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.analysis.significance import welch  # noqa: E402
from app.analysis.stats import summarize, t_interval_factor  # noqa: E402
from tests.testbed import TestBed, unavailable_reason  # noqa: E402

RATE_MBIT = 20
SERVER_PORT = 5271
COMPETITOR_PORT = 5270
SIZE = 1408


def drop_tcp_data(bed: TestBed, per_mille: int) -> None:
    """Drop per_mille / 1000 of the TCP data segments arriving at B, at random."""
    nft = ["ip", "netns", "exec", bed.b, "nft"]
    subprocess.run([*nft, "delete", "table", "inet", "llabbench"], capture_output=True)
    for rule in (
        ["add", "table", "inet", "llabbench"],
        ["add", "chain", "inet", "llabbench", "input", "{ type filter hook input priority 0 ; }"],
        [
            "add", "rule", "inet", "llabbench", "input", "meta", "l4proto", "tcp",
            "meta", "length", "gt", "200", "numgen", "random", "mod", "1000", "<",
            str(per_mille), "drop",
        ],
    ):  # fmt: skip
        subprocess.run([*nft, *rule], check=True, capture_output=True)


class Competitor:
    """A UDP flow from A to B at mbit Mbit/s that is on and off for random times (exponential,
    mean_on_s and mean_off_s), each burst one iperf3 client."""

    def __init__(self, bed: TestBed, mbit: float, mean_on_s: float, mean_off_s: float) -> None:
        self.bed, self.mbit = bed, mbit
        self.mean_on_s, self.mean_off_s = mean_on_s, mean_off_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._server: subprocess.Popen[bytes] | None = None
        self._random = random.Random(25)

    def __enter__(self) -> Competitor:
        self._server = subprocess.Popen(
            ["ip", "netns", "exec", self.bed.b, "iperf3", "-s", "-p", str(COMPETITOR_PORT)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._server is not None:
            self._server.terminate()
            self._server.wait()

    def _loop(self) -> None:
        while not self._stop.wait(self._random.expovariate(1 / self.mean_off_s)):
            on = max(1, round(self._random.expovariate(1 / self.mean_on_s)))
            argv = ["iperf3", "-c", TestBed.B4, "-p", str(COMPETITOR_PORT), "-u"]
            argv += ["-b", f"{self.mbit}M", "-t", str(on), "-l", "1200"]
            client = subprocess.Popen(
                ["ip", "netns", "exec", self.bed.a, *argv],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            while client.poll() is None:
                if self._stop.wait(0.1):
                    client.terminate()
            client.wait()


def linklab(bed: TestBed, db: Path, *args: str) -> None:
    argv = bed.linklab(
        bed.a,
        "run",
        "--engine",
        "iperf3",
        "--peer",
        TestBed.B4,
        "--port",
        str(SERVER_PORT),
        "--sizes",
        str(SIZE),
        "--db",
        str(db),
        *args,
    )
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 3):  # 3: completed with a failed run
        raise SystemExit(f"linklab run failed ({done.returncode}): {done.stderr[-2000:]}")


def throughputs(db: Path, duration_s: int) -> list[float]:
    """Mbit/s of every successful run of that duration (the early-stop study's left out:
    those of phase 1 were measured interleaved)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT r.throughput_bps, s.plan_json FROM runs r JOIN sessions s "
            "ON s.id = r.session_id WHERE r.status = 'ok' AND s.name != 'early'"
        ).fetchall()
    return [bps / 1e6 for bps, plan in rows if json.loads(plan)["duration_s"] == duration_s]


def early_stop(
    bed: TestBed, db: Path, fraction: float, max_runs: int, short_s: int
) -> tuple[int, float, float]:
    """(runs, seconds, reached CI half-width as a fraction of the mean)."""
    t0 = time.monotonic()
    linklab(
        bed,
        db,
        "--duration",
        str(short_s),
        "--runs",
        str(max_runs),
        "--early-stop",
        str(fraction),
        "--min-runs",
        "5",
        "--name",
        "early",
    )
    elapsed = time.monotonic() - t0
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT r.throughput_bps FROM runs r JOIN sessions s ON s.id = r.session_id "
            "WHERE s.name = 'early' AND r.status = 'ok'"
        ).fetchall()
    s = summarize(bps for (bps,) in rows)
    assert s.mean is not None and s.ci95 is not None
    return s.n, elapsed, s.ci95 / s.mean


def runs_for(cv: float, target: float) -> int:
    """Runs a point needs for its 95 % CI half-width to reach target x mean at this spread."""
    n = 2
    while t_interval_factor(n - 1) * cv / math.sqrt(n) > target:
        n += 1
    return n


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="long runs (and 4 x as many short)")
    parser.add_argument("--target", type=float, default=0.02, help="early stop measured")
    parser.add_argument("--max-runs", type=int, default=80)
    parser.add_argument("--loss-per-mille", type=int, default=2)
    parser.add_argument("--competitor-mbit", type=float, default=4)
    parser.add_argument("--short-s", type=int, default=5, help="a short run's seconds")
    parser.add_argument("--long-s", type=int, default=60, help="a long run's seconds")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a short look: 2 rounds of 2-s and 6-s runs, early stop at 10 %% (about a minute)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.short_s, args.long_s, args.target, args.max_runs = 2, 2, 6, 0.1, 8
    short_s, long_s = args.short_s, args.long_s
    why = unavailable_reason()
    if why:
        print(f"skipped: {why}")
        return 0
    compileall.compile_dir(ROOT / "app", quiet=1)
    t_start = time.monotonic()
    with TestBed() as bed, tempfile.TemporaryDirectory(prefix="linklab-tta-") as name:
        db = Path(name) / "tta.sqlite3"
        bed.set_rate(RATE_MBIT)
        drop_tcp_data(bed, args.loss_per_mille)
        server = subprocess.Popen(
            ["ip", "netns", "exec", bed.b, "iperf3", "-s", "-p", str(SERVER_PORT)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(0.5)
            with Competitor(bed, args.competitor_mbit, 2.0, 2.0):
                for round_ in range(args.rounds):
                    print(
                        f"round {round_ + 1} of {args.rounds}: 4 x {short_s} s, 1 x {long_s} s",
                        flush=True,
                    )
                    linklab(bed, db, "--duration", str(short_s), "--runs", "4")
                    linklab(bed, db, "--duration", str(long_s), "--runs", "1")
                print(f"early stop at {args.target:.0%} with {short_s}-s runs", flush=True)
                n_early, t_early, reached = early_stop(bed, db, args.target, args.max_runs, short_s)
        finally:
            server.terminate()
            server.wait()
        short, long_ = throughputs(db, short_s), throughputs(db, long_s)
    print(f"{short_s}-s runs (Mbit/s): {', '.join(f'{v:.2f}' for v in short)}")
    print(f"{long_s}-s runs (Mbit/s): {', '.join(f'{v:.2f}' for v in long_)}")
    s5, s60 = summarize(short), summarize(long_)
    assert s5.cv is not None and s60.cv is not None and s5.mean and s60.mean
    difference, low, high, p = welch(long_, short)
    assert difference is not None
    print(
        f"\niperf3 TCP {SIZE} B over a {RATE_MBIT} Mbit/s tbf link, "
        f"{args.loss_per_mille / 10:g} % random TCP loss, a {args.competitor_mbit:g} Mbit/s UDP "
        f"competitor on and off at random (means 2 s / 2 s); this bench took "
        f"{(time.monotonic() - t_start) / 60:.1f} min"
    )
    print(f"  {short_s}-s runs: n {s5.n:3}, mean {s5.mean:6.2f} Mbit/s, CV {s5.cv:.1%}")
    print(f"  {long_s}-s runs: n {s60.n:3}, mean {s60.mean:6.2f} Mbit/s, CV {s60.cv:.1%}")
    interval = "" if low is None or high is None else f" (95 % CI {low:+.2f} … {high:+.2f})"
    print(
        f"  {short_s}-s mean - {long_s}-s mean: {difference:+.2f} Mbit/s "
        f"({difference / s60.mean:+.1%})"
        f"{interval}, p = {p:.2f}"
        if p is not None
        else f"  {short_s}-s mean - {long_s}-s mean: {difference:+.2f} Mbit/s"
    )
    print(
        f"  early stop at {args.target:.0%} with {short_s}-s runs: {n_early} runs, "
        f"{t_early:.0f} s "
        f"(reached {reached:.2%}); 1 % needs about {n_early * (reached / 0.01) ** 2:.0f} runs, "
        f"{t_early * (reached / 0.01) ** 2 / 60:.0f} min (extrapolated: half-width ~ 1/sqrt(n))"
    )
    n60 = runs_for(s60.cv, 0.01)
    fixed = t_interval_factor(39) * s60.cv / math.sqrt(40)
    print(
        f"  at the {long_s}-s runs' spread: 1 % needs {n60} runs of {long_s} s "
        f"({n60 * long_s / 60:.0f} min); the seeds' fixed 40 x 60 s (40 min) reaches "
        f"{fixed:.2%} at that spread"
    )
    n5 = runs_for(s5.cv, 0.01)
    print(
        f"  at the {short_s}-s runs' spread: 1 % needs {n5} runs of {short_s} s "
        f"({n5 * short_s / 60:.0f} min)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
