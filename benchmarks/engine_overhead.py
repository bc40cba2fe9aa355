"""Throughput of an app-driven iperf3 run against bare iperf3 with the same arguments.

Alternating pairs on loopback (app, bare, app, bare, ...) so that drift in the machine's load
hits both sides alike; prints the median ratio app/bare per case. Target: >= 0.98.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.domain.net import Protocol
from app.domain.results import RunSummary
from app.engine.drivers.iperf3.driver import output_mode, parser_for, start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.drivers.registry import find_tool
from app.engine.process.servers import ServerOptions


@dataclass(frozen=True)
class Case:
    name: str
    protocol: Protocol
    length: int | None
    bitrate: int | None


CASES = [
    Case("TCP default length", Protocol.TCP, None, None),
    Case("TCP 1408 B", Protocol.TCP, 1408, None),
    Case("UDP 1408 B unlimited", Protocol.UDP, 1408, 0),
]


def bare_throughput(argv: list[str], mode_parser: object) -> float:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    summaries = [e for e in mode_parser(done.stdout.splitlines()) if isinstance(e, RunSummary)]  # type: ignore[operator]
    value = summaries[0].flows[0].throughput_bps
    assert value is not None
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--port", type=int, default=5299)
    parser.add_argument("--quick", action="store_true", help="a short look: 1 pair of 1-s runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.pairs, args.duration = 1, 1

    tool = find_tool("iperf3")
    server = iperf3_server(tool, ServerOptions(args.port, bind_address="127.0.0.1"))
    server.start()
    print(
        f"iperf3 {tool.version_string}, {args.pairs} pairs x {args.duration} s per case, loopback"
    )
    print(f"{'case':<24} {'app median':>14} {'bare median':>14} {'median ratio':>13}")
    worst = float("inf")
    try:
        for case in CASES:
            opts = Iperf3Options(
                host="127.0.0.1",
                port=args.port,
                protocol=case.protocol,
                duration_s=args.duration,
                length=case.length,
                bitrate_bps=case.bitrate,
            )
            mode = output_mode(tool)
            ratios, apps, bares = [], [], []
            for _ in range(args.pairs):
                run = start_iperf3(tool, opts)
                app = run.run().throughput_bps
                bare = bare_throughput(list(run.argv), parser_for(mode))
                assert app is not None
                apps.append(app)
                bares.append(bare)
                ratios.append(app / bare)
            ratio = statistics.median(ratios)
            worst = min(worst, ratio)
            print(
                f"{case.name:<24} {statistics.median(apps) / 1e9:>10.2f} Gb/s "
                f"{statistics.median(bares) / 1e9:>10.2f} Gb/s {ratio:>13.3f}"
            )
    finally:
        server.stop()
    print(f"worst median ratio {worst:.3f} (target >= 0.98): {'ok' if worst >= 0.98 else 'BELOW'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
