"""A huge session's round trip: a multi-day monitor of 300 runs × 3000 one-second samples
(tests/huge_session.py: 900,000 samples, each run's raw output as long as iperf3's report),
exported to a .linklab file and imported into another database, each way twice side by side
in child processes: as a whole document in memory (how export and import worked before, and
how a hand-in still is) and as it streams (export_file; FrontDoor.import_file). Prints each
one's wall time and peak memory (its maximum resident set, from getrusage) and the ratios.
`exchange_scale.py RUNS SAMPLES` sizes it otherwise."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MB = 1024 * 1024


# Each way runs in a child of its own (this file with --way), whose peak memory is measured:
# only the modules the way needs are imported there.
def _export_whole(database: str, file: str, session: str) -> None:
    from app.store.db import Database
    from app.store.sessions import SessionStore
    from app.study.files.exchange_write import export_sessions, write_exchange

    with Database(database, readonly=True) as db:
        write_exchange(file, export_sessions(SessionStore(db), [session]))


def _export_streamed(database: str, file: str, session: str) -> None:
    from app.study.frontdoor import FrontDoor

    FrontDoor(Path(database)).sessions().export([session], Path(file))


def _import_whole(_database: str, file: str, target: str) -> None:
    import json

    from app.store.db import Database
    from app.store.sessions import SessionStore
    from app.study.files.exchange import exchange_from_data, import_sessions

    with open(file, encoding="utf-8") as handle:
        exchange = exchange_from_data(json.load(handle), "huge.linklab")
    with Database(target) as db:
        import_sessions(SessionStore(db), exchange)


def _import_streamed(_database: str, file: str, target: str) -> None:
    from app.study.frontdoor import FrontDoor

    FrontDoor(Path(target)).sessions().import_file(Path(file))


#: Each way, given the database, the file, and the session's id (export) or the target
#: database (import).
WAYS: dict[str, Callable[[str, str, str], None]] = {
    "export, whole document": _export_whole,
    "export, streamed": _export_streamed,
    "import, whole document": _import_whole,
    "import, streamed": _import_streamed,
}


def run(way: str, *args: str) -> tuple[float, float]:
    """(seconds, peak MB) of one way, in a child process."""
    from tests.peak_memory import measured

    done = measured(sys.executable, __file__, "--way", way, *args, timeout=7200)
    if done.code != 0:
        raise SystemExit(f"{way} failed: {done.err}")
    return done.seconds, done.peak_mb


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["--way"]:  # in the child: one way, nothing else imported
        WAYS[given[1]](*given[2:5])
        return 0
    import argparse
    import tempfile
    import time

    from tests.huge_session import RUNS, SAMPLES, make_huge

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=RUNS, help=f"runs ({RUNS})")
    parser.add_argument(
        "samples", nargs="?", type=int, default=SAMPLES, help=f"a run's ({SAMPLES})"
    )
    parser.add_argument("--quick", action="store_true", help="a short look: 10 runs x 300 samples")
    args = parser.parse_args(given)
    runs, samples = (10, 300) if args.quick else (args.runs, args.samples)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = folder / "monitor.sqlite3"
        start = time.monotonic()
        sid = make_huge(source, runs, samples)
        made = time.monotonic() - start
        print(
            f"a monitor of {runs} runs × {samples} samples ({runs * samples:,} samples) stored "
            f"in {made:.0f} s: {source.stat().st_size / MB:.0f} MB of SQLite",
            flush=True,
        )
        results: dict[str, tuple[float, float]] = {}
        for way in WAYS:
            file = folder / ("whole.linklab" if "whole" in way else "streamed.linklab")
            if way.startswith("export"):
                results[way] = run(way, str(source), str(file), sid)
                size = file.stat().st_size / MB
                print(f"  {way}: {size:.0f} MB file", flush=True)
            else:
                target = folder / f"{way.split(',')[1].strip().replace(' ', '-')}.sqlite3"
                results[way] = run(way, "", str(folder / "streamed.linklab"), str(target))
            seconds, peak = results[way]
            print(f"  {way}: {seconds:.1f} s, peak {peak:.0f} MB", flush=True)
        for what in ("export", "import"):
            (whole_s, whole_mb), (stream_s, stream_mb) = (
                results[f"{what}, whole document"],
                results[f"{what}, streamed"],
            )
            print(
                f"{what}: streamed / whole document — time {stream_s / whole_s:.2f}, "
                f"peak memory {stream_mb / whole_mb:.3f} ({stream_mb:.0f} MB against "
                f"{whole_mb:.0f} MB)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
