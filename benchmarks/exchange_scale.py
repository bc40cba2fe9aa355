"""A huge session's round trip: a multi-day monitor of 300 runs × 3000 one-second samples
(tests/huge_session.py: 900,000 samples, each run's raw output as long as iperf3's report),
exported to a .linklab file and imported into another database, each way twice side by side
in child processes: as a whole document in memory (how export and import worked before, and
how a hand-in still is) and as it streams (export_file; FrontDoor.import_file). Prints each
one's wall time and peak memory (its maximum resident set, from getrusage) and the ratios.
`exchange_scale.py RUNS SAMPLES` sizes it otherwise."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.huge_session import RUNS, SAMPLES, make_huge  # noqa: E402
from tests.peak_memory import measured  # noqa: E402

MB = 1024 * 1024

#: Each way, run in a child of its own: argv[1] the database, argv[2] the file, argv[3] the
#: session's id (export) or the target database (import).
WAYS = {
    "export, whole document": (
        "from pathlib import Path\n"
        "from app.store.db import Database\n"
        "from app.store.sessions import SessionStore\n"
        "from app.study.files.exchange_write import export_sessions, write_exchange\n"
        "with Database(sys.argv[1], readonly=True) as db:\n"
        "    write_exchange(sys.argv[2], export_sessions(SessionStore(db), [sys.argv[3]]))\n"
    ),
    "export, streamed": (
        "from pathlib import Path\n"
        "from app.study.frontdoor import FrontDoor\n"
        "FrontDoor(Path(sys.argv[1])).sessions().export([sys.argv[3]], Path(sys.argv[2]))\n"
    ),
    "import, whole document": (
        "import json\n"
        "from app.store.db import Database\n"
        "from app.store.sessions import SessionStore\n"
        "from app.study.files.exchange import exchange_from_data, import_sessions\n"
        "with open(sys.argv[2], encoding='utf-8') as handle:\n"
        "    exchange = exchange_from_data(json.load(handle), 'huge.linklab')\n"
        "with Database(sys.argv[3]) as db:\n"
        "    import_sessions(SessionStore(db), exchange)\n"
    ),
    "import, streamed": (
        "from pathlib import Path\n"
        "from app.study.frontdoor import FrontDoor\n"
        "FrontDoor(Path(sys.argv[3])).sessions().import_file(Path(sys.argv[2]))\n"
    ),
}


def run(way: str, *args: str) -> tuple[float, float]:
    """(seconds, peak MB) of one way, in a child process."""
    done = measured(sys.executable, "-c", "import sys\n" + WAYS[way], *args, timeout=7200)
    if done.code != 0:
        raise SystemExit(f"{way} failed: {done.err}")
    return done.seconds, done.peak_mb


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else SAMPLES
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
