"""A multi-day monitor's session at full size makes the round trip: 300 runs of 3000 samples
(900,000 samples, each run's raw output as long as iperf3's report) exported to a .linklab
file of some 300 MB by `linklab export --format json`, imported into another database by
`linklab import`, every sample, run and figure there again. Each command runs as a child
process whose peak memory (its maximum resident set, from getrusage) must stay far below
the file's size: both stream. (The benchmark benchmarks/exchange_scale.py times them.)"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from itertools import zip_longest
from pathlib import Path

import pytest

from app.store.db import Database
from app.store.sessions import SessionStore
from tests.huge_session import RUNS, SAMPLES, make_huge
from tests.peak_memory import UNAVAILABLE, linklab_measured

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason=UNAVAILABLE)

MB = 1024 * 1024
#: What either command may hold at most: the interpreter, numpy and LinkLab's modules take
#: some 60 to 100 MB; the file is three times this.
BOUND_MB = 160


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("huge") / "monitor.sqlite3"
    return path, make_huge(path)


def _samples(store: SessionStore, run_id: int) -> Iterator[object]:
    for batch in store.sample_batches(run_id):
        yield from batch


# Over 10 s: the whole session is built, exported and imported (minutes on a busy machine).
@pytest.mark.timeout(1500)  # some 2 minutes on a quiet machine, five times that when busy
def test_a_300_by_3000_session_makes_the_round_trip_in_bounded_memory(
    huge: tuple[Path, str], tmp_path: Path
) -> None:
    source, sid = huge
    file = tmp_path / "monitor.linklab"
    exported = linklab_measured(
        "export",
        sid[:8],
        "--format",
        "json",
        "--out",
        str(file),
        "--db",
        str(source),
        timeout=1800,
    )
    assert exported.code == 0, exported.err
    export_peak = exported.peak_mb
    size_mb = file.stat().st_size / MB
    assert size_mb > 250  # the size at which the whole document took gigabytes
    assert export_peak < BOUND_MB, f"{export_peak:.0f} MB to export {size_mb:.0f} MB"

    target = tmp_path / "elsewhere.sqlite3"
    imported = linklab_measured("import", str(file), "--db", str(target), timeout=1800)
    assert imported.code == 0 and imported.out == "Imported 1 session.\n", imported.err
    import_peak = imported.peak_mb
    assert import_peak < BOUND_MB, f"{import_peak:.0f} MB to import {size_mb:.0f} MB"
    assert not [p for p in tmp_path.iterdir() if ".import-" in p.name]  # scratch gone

    with Database(source, readonly=True) as a, Database(target, readonly=True) as b:
        before, after = SessionStore(a), SessionStore(b)
        assert after.get(sid) == before.get(sid)
        runs_before = before.runs(sid, with_raw=True)
        runs_after = after.runs(sid, with_raw=True)
        assert len(runs_after) == len(runs_before) == RUNS
        samples = 0
        for run_a, run_b in zip(runs_before, runs_after, strict=True):
            assert replace(run_b, id=run_a.id) == run_a  # metrics, argv, raw output, times
            for one, other in zip_longest(_samples(before, run_a.id), _samples(after, run_b.id)):
                assert one == other
                samples += 1
        assert samples == RUNS * SAMPLES
