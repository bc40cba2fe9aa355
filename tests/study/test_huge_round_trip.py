"""A multi-day monitor's session makes the round trip in memory that does not grow with it:
60 runs of 3000 samples (180,000 samples, each run's raw output as long as iperf3's report)
exported to a .linklab file of some 60 MB by `linklab export --format json`, imported into
another database by `linklab import`, every sample, run and figure there again. Each command
runs as a child process whose peak memory (its maximum resident set, from getrusage) is set
beside the same command's for a session a tenth the size: ten times the data may add only a
small fraction of the file to either peak, so both stream (holding the document whole took
gigabytes). The 300-run session at full size is the benchmark's, benchmarks/exchange_scale.py,
which times it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from itertools import zip_longest
from pathlib import Path

import pytest

from app.store.db import Database
from app.store.sessions import SessionStore
from tests.huge_session import SAMPLES, make_huge
from tests.peak_memory import UNAVAILABLE, linklab_measured

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason=UNAVAILABLE)

MB = 1024 * 1024
#: What either command may hold at most: the interpreter, numpy and LinkLab's modules take
#: some 60 to 100 MB.
BOUND_MB = 160
#: The large session's runs, and the small one's beside it.
RUNS, FEW = 60, 6


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("huge") / "monitor.sqlite3"
    return path, make_huge(path, RUNS)


def _round_trip(source: Path, sid: str, folder: Path) -> tuple[Path, float, float]:
    """The session exported to a file and imported elsewhere: that database, and the export's
    and the import's peak memory in MB."""
    folder.mkdir()
    file = folder / "monitor.linklab"
    export = ("export", sid[:8], "--format", "json", "--out", str(file), "--db", str(source))
    exported = linklab_measured(*export, timeout=1800)
    assert exported.code == 0, exported.err
    target = folder / "elsewhere.sqlite3"
    imported = linklab_measured("import", str(file), "--db", str(target), timeout=1800)
    assert imported.code == 0 and imported.out == "Imported 1 session.\n", imported.err
    assert not [p for p in folder.iterdir() if ".import-" in p.name]  # scratch gone
    return target, exported.peak_mb, imported.peak_mb


def _samples(store: SessionStore, run_id: int) -> Iterator[object]:
    for batch in store.sample_batches(run_id):
        yield from batch


# Over 10 s: the whole session is built, exported and imported (minutes on a busy machine).
@pytest.mark.timeout(900)  # under a minute on a quiet machine, five times that when busy
def test_a_monitor_session_makes_the_round_trip_in_memory_that_does_not_grow_with_it(
    huge: tuple[Path, str], tmp_path: Path
) -> None:
    source, sid = huge
    small_source = tmp_path / "small.sqlite3"
    _, small_export, small_import = _round_trip(
        small_source, make_huge(small_source, FEW), tmp_path / "small"
    )
    target, export_peak, import_peak = _round_trip(source, sid, tmp_path / "large")
    size_mb = (tmp_path / "large" / "monitor.linklab").stat().st_size / MB
    assert size_mb > 50
    assert export_peak < BOUND_MB, f"{export_peak:.0f} MB to export {size_mb:.0f} MB"
    assert import_peak < BOUND_MB, f"{import_peak:.0f} MB to import {size_mb:.0f} MB"
    # Ten times the session adds less than a fifth of its file to either command's peak.
    grown = (export_peak - small_export, import_peak - small_import)
    assert max(grown) < size_mb / 5, f"{grown} MB more for ten times {size_mb / 10:.0f} MB"

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
