"""How many processes `make test` runs the suite in: three per core this process may use (its
CPU affinity, and the CPU quota of its cgroup, v2 or v1), as many as the memory available
holds at MEMORY_PER_PROCESS_MB each, at least one. Prints the number; standard library only
(it runs before the virtual environment may exist). docs/PERFORMANCE.md says how the three per
core and the memory per process were measured."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

#: Processes per core: the tests wait more than they compute (an engine measures for a fixed
#: time, a window waits for a signal), so three share a core: on two cores six took 503-515 s
#: where four took 583 s (docs/PERFORMANCE.md). A seventh process would wait for a core: the
#: six keep both busy.
PER_CORE = 3
#: A test process's peak memory with room to spare (Qt, SciPy, a window, engines it starts).
MEMORY_PER_PROCESS_MB = 1500

CGROUP_ROOT = Path("/sys/fs/cgroup")


def processes(cores: float, available_mb: float | None) -> int:
    """The number of test processes for this many cores (a quota may be a fraction) and this
    much available memory (None: unknown)."""
    by_cpu = max(1, math.floor(PER_CORE * cores))
    if available_mb is None:
        return by_cpu
    return max(1, min(by_cpu, math.floor(available_mb / MEMORY_PER_PROCESS_MB)))


def cpu_quota(cpu_max: str) -> float | None:
    """Cores a cgroup v2 `cpu.max` line ("max 100000", "150000 100000") allows; None: no limit."""
    quota, _, period = cpu_max.strip().partition(" ")
    if quota == "max" or not period:
        return None
    return int(quota) / int(period)


def _cgroup_paths() -> tuple[str | None, dict[str, str]]:
    """This process's cgroup v2 path, and its v1 path per controller (/proc/self/cgroup)."""
    v2, v1 = None, {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None, {}
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            v2 = path
        for controller in controllers.split(","):
            v1[controller] = path
    return v2, v1


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _ancestors(root: Path, path: str) -> list[Path]:
    """root/path and every folder above it up to root: a limit anywhere above applies too."""
    here = root / path.lstrip("/")
    return [here, *[p for p in here.parents if p.is_relative_to(root)]]


def cores() -> float:
    """The cores this process may use: its affinity, less any cgroup CPU quota."""
    try:
        count: float = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    v2, v1 = _cgroup_paths()
    if v2 is not None:
        for folder in _ancestors(CGROUP_ROOT, v2):
            text = _read(folder / "cpu.max")
            quota = cpu_quota(text) if text else None
            if quota is not None:
                count = min(count, quota)
    if "cpu" in v1:
        for folder in _ancestors(CGROUP_ROOT / "cpu", v1["cpu"]):
            quota_us, period_us = (
                _read(folder / "cpu.cfs_quota_us"),
                _read(folder / "cpu.cfs_period_us"),
            )
            if quota_us and period_us and int(quota_us) > 0 and int(period_us) > 0:
                count = min(count, int(quota_us) / int(period_us))
    return count


def available_mb() -> float | None:
    """Memory available to this process: the system's MemAvailable, less any cgroup limit's
    unused part when that is smaller; None when neither can be read."""
    found: float | None = None
    meminfo = _read(Path("/proc/meminfo")) or ""
    for line in meminfo.splitlines():
        if line.startswith("MemAvailable:"):
            found = int(line.split()[1]) / 1024
    v2, v1 = _cgroup_paths()
    limits: list[tuple[str | None, str | None]] = []
    if v2 is not None:
        for folder in _ancestors(CGROUP_ROOT, v2):
            limits.append((_read(folder / "memory.max"), _read(folder / "memory.current")))
    if "memory" in v1:
        for folder in _ancestors(CGROUP_ROOT / "memory", v1["memory"]):
            used = _read(folder / "memory.usage_in_bytes")
            limits.append((_read(folder / "memory.limit_in_bytes"), used))
    for limit, used in limits:
        if not limit or not limit.strip().isdigit():
            continue  # "max": no limit
        room = (int(limit) - int(used or 0)) / 2**20
        if room < 2**40:  # v1 writes "no limit" as a huge number
            found = room if found is None else min(found, room)
    return found


def main() -> int:
    print(processes(cores(), available_mb()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
