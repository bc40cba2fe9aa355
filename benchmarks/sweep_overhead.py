"""Wall time of `linklab run` (6 sizes x 3 runs x 2 s, loopback) against the same 18 bare
iperf3 runs from a plain script. Target: app <= 1.05 x bare + 0.2 s per run."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.engine.drivers.iperf3.server import iperf3_server  # noqa: E402
from app.engine.drivers.registry import find_tool  # noqa: E402
from app.engine.process.servers import ServerOptions  # noqa: E402

SIZES = [128, 384, 640, 896, 1152, 1408]


def bare(path: str, port: int, runs: int, duration: int) -> float:
    t0 = time.monotonic()
    for size in SIZES:
        for _ in range(runs):
            subprocess.run(
                [
                    path,
                    "-c",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-t",
                    str(duration),
                    "-l",
                    str(size),
                    "-4",
                    "-f",
                    "k",
                    "-V",
                    "--forceflush",
                ],
                check=True,
                capture_output=True,
            )
    return time.monotonic() - t0


def app(port: int, runs: int, duration: int, db: Path) -> float:
    t0 = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "run",
            "--peer",
            "127.0.0.1",
            "--port",
            str(port),
            "--sizes",
            ",".join(map(str, SIZES)),
            "--runs",
            str(runs),
            "--duration",
            str(duration),
            "--db",
            str(db),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return time.monotonic() - t0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--duration", type=int, default=2)
    parser.add_argument("--port", type=int, default=5298)
    parser.add_argument("--quick", action="store_true", help="a short look: 1 run of 1 s a size")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.duration = 1, 1
    tool = find_tool("iperf3")
    server = iperf3_server(tool, ServerOptions(args.port, bind_address="127.0.0.1"))
    server.start()
    n = len(SIZES) * args.runs
    try:
        with tempfile.TemporaryDirectory() as folder:
            bare_s = bare(tool.path, args.port, args.runs, args.duration)
            app_s = app(args.port, args.runs, args.duration, Path(folder) / "bench.sqlite3")
    finally:
        server.stop()
    allowed = 1.05 * bare_s + 0.2 * n
    print(f"{n} runs x {args.duration} s on loopback (iperf3 {tool.version_string})")
    print(f"bare iperf3 script  {bare_s:7.2f} s")
    print(
        f"linklab run         {app_s:7.2f} s   ratio {app_s / bare_s:.3f}, "
        f"overhead {(app_s - bare_s) / n:.3f} s per run"
    )
    print(
        f"target <= {allowed:.2f} s (1.05 x bare + 0.2 s/run): "
        f"{'ok' if app_s <= allowed else 'ABOVE'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
