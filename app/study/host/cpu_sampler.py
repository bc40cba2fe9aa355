"""This host's CPU load while a run goes on, sampled with psutil: the whole computer's, and
the part of it LinkLab's own processes (this one and its children: the engines, this
computer's servers) used, so that the rest is known to be other programs'."""

from __future__ import annotations

import statistics
import threading
import time

import psutil


class CpuSampler:
    """This host's CPU load during a run, sampled with psutil every half second, each sample
    a share of all its CPUs (0-100 %): the whole computer's, and LinkLab's own processes'."""

    def __init__(self, period_s: float = 0.5) -> None:
        self._period = period_s
        self._values: list[float] = []
        self._own: list[float] = []
        self.own_cpu_s = 0.0  # the CPU seconds LinkLab's processes used while it sampled
        self._cpus = max(psutil.cpu_count() or 1, 1)
        self._seen: dict[tuple[int, float], float] = {}  # (pid, created) -> its CPU seconds
        self._looked = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cpu-sampler", daemon=True)

    def __enter__(self) -> CpuSampler:
        psutil.cpu_percent(interval=None)  # primes the counter
        self._own_seconds()  # and LinkLab's processes' CPU times
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=2)

    def _sample(self) -> None:
        while not self._done.wait(self._period):
            looked = self._looked
            self._values.append(psutil.cpu_percent(interval=None))
            used = self._own_seconds()
            self.own_cpu_s += used
            wall = self._looked - looked
            if wall > 0:
                self._own.append(min(100.0, 100.0 * used / (wall * self._cpus)))

    def _own_seconds(self) -> float:
        """The CPU seconds LinkLab's processes used since the last look. A process not seen
        then started since, so all of its time is new; one that ended since loses the time
        after the last look (at most a period of it)."""
        used = 0.0
        seen: dict[tuple[int, float], float] = {}
        try:
            me = psutil.Process()
            processes = [me, *me.children(recursive=True)]
        except psutil.Error:
            processes = []
        for process in processes:
            try:
                with process.oneshot():
                    times = process.cpu_times()
                    key = (process.pid, process.create_time())
            except psutil.Error:
                continue  # ended as it was looked at
            total = times.user + times.system
            before = self._seen.get(key)
            if before is not None:
                used += max(0.0, total - before)
            elif self._looked:  # not there at the last look: it started since
                used += total
            seen[key] = total
        self._seen = seen
        self._looked = time.monotonic()
        return used

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self._values) if self._values else None

    @property
    def peak(self) -> float | None:
        return max(self._values) if self._values else None

    @property
    def own_mean(self) -> float | None:
        """LinkLab's processes' mean share of all the CPUs over the run."""
        return statistics.fmean(self._own) if self._own else None
