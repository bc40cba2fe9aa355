"""The latency prober's idle round trip on the loopback against `ping`'s, side by side, and its
CPU cost. Target: prober median within 0.5 ms of ping's.

The responder runs in a process of its own, as on a peer. Rounds alternate prober and ping
(200 probes every 10 ms each) so that the machine's load hits both alike. A last case runs a
busy Python thread beside the prober, as the window's threads may be, with and without the
kernel's receive stamps.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.analysis.stats import preload  # noqa: E402
from app.engine.latency.probe import UdpProber  # noqa: E402

TARGET_MS = 0.5


def responder() -> None:
    """The echo responder, as on a peer (this file with --responder, in a process of its own):
    its port on stdout, until stdin closes."""
    from app.engine.latency.echo import EchoResponder

    echo = EchoResponder(0, ["127.0.0.1"])
    echo.start()
    print(echo.port, flush=True)
    sys.stdin.read()
    echo.stop()


def ping_rtts(count: int, interval: float) -> list[float]:
    done = subprocess.run(
        ["ping", "-n", "-c", str(count), "-i", f"{interval:g}", "127.0.0.1"],
        capture_output=True,
        text=True,
        timeout=count * interval + 30,
        check=True,
    )
    return [float(ms) for ms in re.findall(r"time=([\d.]+) ms", done.stdout)]


def prober_rtts(port: int, count: int, interval: float, kernel: bool) -> tuple[list[float], float]:
    """Round trips of one prober run, and the CPU seconds (user + system, psutil) this process
    spent on it."""
    prober = UdpProber(
        "127.0.0.1",
        port,
        interval_s=interval,
        duration_s=count * interval,
        kernel_timestamps=kernel,
    )
    cpu = _cpu_seconds()
    prober.run()
    cpu = _cpu_seconds() - cpu
    return [r.rtt_ms for r in prober.records() if r.rtt_ms is not None], cpu


def _cpu_seconds() -> float:
    times = psutil.Process().cpu_times()
    return float(times.user + times.system)


def busy(stop: threading.Event) -> None:
    """Pure Python work that holds the interpreter lock as much as it can."""
    total = 0
    while not stop.is_set():
        for i in range(10_000):
            total += i * i


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.01)
    parser.add_argument("--quick", action="store_true", help="a short look: 1 round of 50")
    parser.add_argument("--responder", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.responder:
        responder()
        return 0
    if args.quick:
        args.rounds, args.count = 1, 50
    preload()  # the summary's trimmed mean loads SciPy once: not the prober's cost
    have_ping = shutil.which("ping") is not None
    echo = subprocess.Popen(
        [sys.executable, __file__, "--responder"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert echo.stdout is not None and echo.stdin is not None
    port = int(echo.stdout.readline())
    probe_all: list[float] = []
    ping_all: list[float] = []
    cpu_total = 0.0
    try:
        print(f"loopback, {args.rounds} rounds of {args.count} probes every {args.interval} s")
        print(f"{'round':<6} {'prober median':>14} {'ping median':>12} {'difference':>11}")
        for n in range(1, args.rounds + 1):
            rtts, cpu = prober_rtts(port, args.count, args.interval, kernel=True)
            probe_all += rtts
            cpu_total += cpu
            ping = ping_rtts(args.count, args.interval) if have_ping else []
            ping_all += ping
            p_med = statistics.median(rtts)
            shown = f"{statistics.median(ping):>9.3f} ms" if ping else f"{'-':>12}"
            diff = f"{p_med - statistics.median(ping):>8.3f} ms" if ping else ""
            print(f"{n:<6} {p_med:>11.3f} ms {shown} {diff}")
        probe_median = statistics.median(probe_all)
        print(f"prober: median {probe_median:.3f} ms over {len(probe_all)} probes")
        if ping_all:
            ping_median = statistics.median(ping_all)
            apart = probe_median - ping_median
            verdict = "ok" if abs(apart) <= TARGET_MS else "OVER"
            print(f"ping:   median {ping_median:.3f} ms over {len(ping_all)} replies")
            print(f"difference {apart:.3f} ms (target within {TARGET_MS} ms): {verdict}")
        else:
            print("ping is not installed (iputils-ping): no comparison")
        probes = args.rounds * args.count
        per_probe = cpu_total / probes
        rate = 1 / args.interval
        print(
            f"prober CPU: {cpu_total:.3f} s for {probes} probes = {per_probe * 1e6:.0f} µs per "
            f"probe = {per_probe * rate * 100:.1f} % of one core at {rate:.0f} probes/s"
        )

        print("with a busy Python thread beside the prober:")
        for kernel in (True, False):
            stop = threading.Event()
            worker = threading.Thread(target=busy, args=(stop,))
            worker.start()
            try:
                rtts, _ = prober_rtts(port, args.count, args.interval, kernel)
            finally:
                stop.set()
                worker.join()
            label = "kernel receive stamps" if kernel else "stamps taken in Python"
            print(
                f"  {label:<23} median {statistics.median(rtts):.3f} ms, "
                f"p90 {statistics.quantiles(rtts, n=10)[-1]:.3f} ms"
            )
    finally:
        echo.stdin.close()
        echo.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
