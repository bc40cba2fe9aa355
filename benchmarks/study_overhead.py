"""What a study costs beyond its engine runs, against the bare runs and against Flent.

One sweep, 128, 384 and 640 B x 2 runs x 3 s on the loopback (TCP_STREAM), measured three
ways in interleaved rounds: the six engine commands LinkLab runs (their argv read from the
study's own database), started one after another by this script; `linklab run`; and Flent
2.3.0's batch mode (installed from PyPI into a virtual environment of its own, netperf only:
Flent has no iperf3 runner). Then the same sweep with iperf3 (bare and LinkLab).

Wall time is each command's whole life; peak memory is the largest resident set of the
command and every process under it (os.wait4's rusage). LinkLab's fixed cost is split using
its own database (each run's start and elapsed time, in LinkLab's clock, to the millisecond):
start-up (command started to first engine started), the gaps between runs, and the ending
(last engine ended to the command's exit).

Targets: LinkLab / bare <= 1.03, fixed cost <= 0.5 s, <= 20 ms between runs, peak memory of
`linklab run` <= 60 MiB.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import itertools
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.engine.drivers.iperf3.server import iperf3_server  # noqa: E402
from app.engine.drivers.netperf.server import netserver  # noqa: E402
from app.engine.drivers.registry import find_tool  # noqa: E402
from app.engine.lan.netinfo import free_port  # noqa: E402
from app.engine.process.servers import ServerOptions  # noqa: E402

FLENT = "flent==2.3.0"
FLENT_VENV = ROOT / "build" / "bench" / "flent-2.3.0"
MIB = 1024 * 1024


@dataclass(frozen=True)
class Sweep:
    """The sweep measured three ways."""

    sizes: tuple[int, ...] = (128, 384, 640)
    runs: int = 2
    duration_s: int = 3


#: `--quick`: two sizes (a gap between runs to measure), one run of 1 s each.
QUICK = Sweep((384, 640), 1, 1)


@dataclass
class Measured:
    wall_s: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)
    startup_s: list[float] = field(default_factory=list)
    gaps_s: list[float] = field(default_factory=list)
    ending_s: list[float] = field(default_factory=list)
    outside_s: list[float] = field(default_factory=list)  # per study: all but the runs

    @property
    def wall(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def peak(self) -> float:
        return statistics.median(self.peak_mib)


#: Starts a command and reports its wall time and the peak resident memory of its process
#: tree: a small launcher of its own, since a child started from this (larger) process would be
#: charged this process's memory up to its exec.
LAUNCHER = """
import json, resource, subprocess, sys, time
start = time.time()
t0 = time.monotonic()
code = subprocess.call(sys.argv[2:])
wall = time.monotonic() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as out:
    json.dump({"wall": wall, "peak_kib": peak, "start": start, "end": time.time()}, out)
sys.exit(code)
"""


def timed(argv: list[str], log: Path) -> tuple[float, float, float, float]:
    """(wall seconds, peak RSS MiB of the process tree, epoch at start, epoch at exit)."""
    report = log.with_suffix(".json")
    with log.open("ab") as out:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, str(report), *argv],
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} exited with {done.returncode}: see {log}")
    figures = json.loads(report.read_text(encoding="utf-8"))
    return figures["wall"], figures["peak_kib"] / 1024, figures["start"], figures["end"]


def epoch(iso: str) -> float:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def stored_runs(db: Path) -> list[tuple[float, float, list[str]]]:
    """(start epoch, elapsed s, argv) of the last session's runs, in order."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT started_at, elapsed_s, argv_json FROM runs WHERE session_id = "
            "(SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1) ORDER BY id"
        ).fetchall()
    return [(epoch(s), float(e), json.loads(a)) for s, e, a in rows]


def linklab(
    sweep: Sweep, engine: str, port_flag: str, port: int, db: Path, log: Path, into: Measured
) -> None:
    argv = [
        str(Path(sys.executable).parent / "linklab"),
        "run",
        "--engine",
        engine,
        "--peer",
        "127.0.0.1",
        port_flag,
        str(port),
        "--sizes",
        ",".join(map(str, sweep.sizes)),
        "--runs",
        str(sweep.runs),
        "--duration",
        str(sweep.duration_s),
        "--db",
        str(db),
    ]
    wall, peak, start, end = timed(argv, log)
    runs = stored_runs(db)
    into.wall_s.append(wall)
    into.peak_mib.append(peak)
    into.startup_s.append(runs[0][0] - start)
    into.gaps_s += [b[0] - (a[0] + a[1]) for a, b in itertools.pairwise(runs)]
    into.ending_s.append(end - (runs[-1][0] + runs[-1][1]))
    into.outside_s.append(wall - sum(elapsed for _, elapsed, _ in runs))


def bare(argvs: list[list[str]], log: Path, into: Measured) -> None:
    t0 = time.monotonic()
    peak = 0.0
    for argv in argvs:
        peak = max(peak, timed(argv, log)[1])
    into.wall_s.append(time.monotonic() - t0)
    into.peak_mib.append(peak)


def flent_command() -> list[str] | None:
    """Flent 2.3.0 in a virtual environment of its own (made on first use), or None when it
    cannot be installed (said why)."""
    flent = FLENT_VENV / "bin" / "flent"
    if flent.exists():
        return [str(flent)]
    print(f"installing {FLENT} into {FLENT_VENV.relative_to(ROOT)} ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(FLENT_VENV)], check=True)
        subprocess.run(
            [str(FLENT_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", FLENT],
            check=True,
        )
    except subprocess.CalledProcessError as err:
        print(f"Flent could not be installed ({err}); the Flent column is left out.")
        return None
    return [str(flent)]


def flent_batch(sweep: Sweep, folder: Path, port: int) -> Path:
    args = "\n".join(f"[Arg::s{size}]\nsend_size = {size}\n" for size in sweep.sizes)
    text = (
        "[Batch::sweep]\n"
        "test_name = tcp_1up_noping\n"
        "hosts = 127.0.0.1\n"
        f"length = {sweep.duration_s}\n"
        f"repetitions = {sweep.runs}\n"
        f"for_size = {', '.join(f's{size}' for size in sweep.sizes)}\n"
        "filename_extra = ${send_size}-${repetition}\n"
        f"output_path = {folder / 'flent'}\n"
        f"netperf_control_port = {port}\n\n" + args
    )
    path = folder / "sweep.batch"
    path.write_text(text, encoding="utf-8")
    return path


def report(
    title: str, sweep: Sweep, bare_m: Measured, app_m: Measured, flent_m: Measured | None
) -> None:
    runs = len(sweep.sizes) * sweep.runs
    fixed = app_m.wall - bare_m.wall
    gaps = sorted(app_m.gaps_s)
    print(
        f"\n{title}: {len(sweep.sizes)} sizes x {sweep.runs} runs x {sweep.duration_s} s, "
        f"medians of "
        f"{len(app_m.wall_s)} interleaved rounds"
    )
    print(f"  {'':22} {'wall':>9} {'peak memory':>12}")
    print(f"  {'bare engine runs':22} {bare_m.wall:8.2f}s {bare_m.peak:9.1f} MiB")
    print(f"  {'linklab run':22} {app_m.wall:8.2f}s {app_m.peak:9.1f} MiB")
    if flent_m is not None:
        print(f"  {'Flent 2.3.0 batch':22} {flent_m.wall:8.2f}s {flent_m.peak:9.1f} MiB")
    ratio = app_m.wall / bare_m.wall
    verdict = "met" if ratio <= 1.03 else "NOT met"
    print(f"  LinkLab / bare: wall {ratio:.3f} (target <= 1.03: {verdict})")
    if flent_m is not None:
        print(
            f"  LinkLab / Flent: wall {app_m.wall / flent_m.wall:.3f}, "
            f"memory {app_m.peak / flent_m.peak:.2f}"
        )
    outside = statistics.median(app_m.outside_s)
    print(
        f"  fixed cost: {outside:.2f} s of LinkLab's time outside its {runs} engine runs "
        f"(target <= 0.5 s: {'met' if outside <= 0.5 else 'NOT met'}; its wall time less the "
        f"bare runs': {fixed:.2f} s): start-up "
        f"{statistics.median(app_m.startup_s):.3f} s, between runs median "
        f"{1000 * statistics.median(gaps):.0f} ms (max {1000 * gaps[-1]:.0f} ms; target <= 20 "
        f"ms: {'met' if statistics.median(gaps) <= 0.020 else 'NOT met'}), ending "
        f"{statistics.median(app_m.ending_s):.3f} s"
    )
    print(
        f"  peak memory of linklab run {app_m.peak:.1f} MiB (target <= 60 MiB: "
        f"{'met' if app_m.peak <= 60 else 'NOT met'})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-flent", action="store_true", help="leave Flent out")
    parser.add_argument("--no-iperf3", action="store_true", help="leave the iperf3 sweep out")
    parser.add_argument(
        "--quick", action="store_true", help="a short look: 1 round of two 1-s runs, no Flent"
    )
    args = parser.parse_args(argv)
    sweep = Sweep()
    if args.quick:
        sweep, args.rounds, args.no_flent = QUICK, 1, True
    with tempfile.TemporaryDirectory() as name:
        floor = timed(["true"], Path(name) / "floor.log")[1]
    print(f"peak memory cannot read below the launcher's own: {floor:.1f} MiB")
    # As installed (pip and the bundle compile the modules), whatever PYTHONDONTWRITEBYTECODE.
    compileall.compile_dir(ROOT / "app", quiet=1)
    flent = None if args.no_flent else flent_command()
    netperf_port = free_port(12866)
    iperf3_port = free_port(5299)
    servers = [netserver(find_tool("netserver"), ServerOptions(netperf_port, "127.0.0.1"))]
    if not args.no_iperf3:
        servers.append(iperf3_server(find_tool("iperf3"), ServerOptions(iperf3_port, "127.0.0.1")))
    for server in servers:
        server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="linklab-bench-") as name:
            folder = Path(name)
            log = folder / "output.log"
            db = folder / "bench.sqlite3"
            plans = [("netperf", "--netserver-port", netperf_port)]
            if not args.no_iperf3:
                plans.append(("iperf3", "--port", iperf3_port))
            # A first study of each engine, not counted: Python's caches are warm for every
            # round alike, and its runs' argv are the bare runs'.
            argvs = {}
            for engine, flag, port in plans:
                linklab(sweep, engine, flag, port, db, log, Measured())
                argvs[engine] = [argv for _, _, argv in stored_runs(db)]
            results = {engine: (Measured(), Measured()) for engine, _, _ in plans}
            flent_m = Measured() if flent is not None else None
            batch = flent_batch(sweep, folder, netperf_port)
            for round_ in range(args.rounds):
                print(f"round {round_ + 1} of {args.rounds}", flush=True)
                for engine, flag, port in plans:
                    bare_m, app_m = results[engine]
                    bare(argvs[engine], log, bare_m)
                    linklab(sweep, engine, flag, port, db, log, app_m)
                    if engine == "netperf" and flent is not None and flent_m is not None:
                        wall, peak, _, _ = timed([*flent, "-B", str(batch), "-b", "sweep"], log)
                        flent_m.wall_s.append(wall)
                        flent_m.peak_mib.append(peak)
    finally:
        for server in servers:
            server.stop()
    for engine, _, _ in plans:
        bare_m, app_m = results[engine]
        version = find_tool(engine).version_string
        report(
            f"{engine} {version} TCP_STREAM sweep"
            if engine == "netperf"
            else f"{engine} {version} TCP sweep",
            sweep,
            bare_m,
            app_m,
            flent_m if engine == "netperf" else None,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
