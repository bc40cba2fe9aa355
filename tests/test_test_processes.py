"""The number of processes `make test` runs the suite in (scripts/test_processes.py): three per
core it may use, a CPU quota counted as the cores it allows, memory capping it, at least one."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT_DIR

SCRIPT = ROOT_DIR / "scripts" / "test_processes.py"
_spec = importlib.util.spec_from_file_location("scripts_test_processes", SCRIPT)
assert _spec is not None and _spec.loader is not None
test_processes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(test_processes)


@pytest.mark.parametrize(
    ("cores", "memory_mb", "expected"),
    [
        (2, 20_000, 6),  # two cores, plenty of memory
        (1, 20_000, 3),
        (8, 20_000, 13),  # memory-bound: 20 GB at 1.5 GB each
        (8, None, 24),  # memory unknown: the cores decide
        (1.5, 20_000, 4),  # a quota of one and a half cores
        (0.02, 20_000, 1),  # a 2 % quota still runs the suite, in one process
        (4, 1_000, 1),  # too little memory for two: one
    ],
)
def test_three_per_core_within_the_memory(
    cores: float, memory_mb: float | None, expected: int
) -> None:
    assert test_processes.processes(cores, memory_mb) == expected


@pytest.mark.parametrize(
    ("line", "cores"), [("max 100000\n", None), ("150000 100000\n", 1.5), ("2000 100000", 0.02)]
)
def test_a_cgroup_quota_is_counted_in_cores(line: str, cores: float | None) -> None:
    assert test_processes.cpu_quota(line) == cores


def test_the_script_prints_what_this_computer_allows() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    expected = test_processes.processes(test_processes.cores(), test_processes.available_mb())
    assert int(done.stdout) == expected >= 1
