"""This host's CPU load while a run goes on, sampled with psutil."""

from __future__ import annotations

import statistics
import threading

import psutil


class CpuSampler:
    """This host's CPU load during a run, sampled with psutil every half second."""

    def __init__(self, period_s: float = 0.5) -> None:
        self._period = period_s
        self._values: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cpu-sampler", daemon=True)

    def __enter__(self) -> CpuSampler:
        psutil.cpu_percent(interval=None)  # primes the counter
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=2)

    def _sample(self) -> None:
        while not self._done.wait(self._period):
            self._values.append(psutil.cpu_percent(interval=None))

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self._values) if self._values else None

    @property
    def peak(self) -> float | None:
        return max(self._values) if self._values else None
