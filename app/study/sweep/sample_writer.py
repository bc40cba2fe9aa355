"""A run's samples on their way to the store while the run goes on: batched about once a
second, one transaction per batch, so that a crash loses at most the last second and a long
study keeps no samples in memory."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from app.domain.records import RunMetrics
from app.domain.results import LatencySecond, Sample
from app.store.run_rows import RunRows

if TYPE_CHECKING:
    from app.study.sweep.working_latency import LoadedSeconds

FLUSH_EVERY_S = 1.0


class SampleWriter:
    """The samples of one run (its row begun as partial) written in batches, with the seconds
    of its working latency completed meanwhile (`latency`), then the run's end: finished (ok
    or failed), left partial, or discarded when nothing was measured."""

    def __init__(
        self,
        rows: RunRows,
        run_id: int,
        *,
        every_s: float | None = None,  # FLUSH_EVERY_S
        clock: Callable[[], float] = time.monotonic,
        latency: LoadedSeconds | None = None,
    ) -> None:
        self.rows = rows
        self._latency = latency
        self.run_id = run_id
        self._every = FLUSH_EVERY_S if every_s is None else every_s
        self._clock = clock
        self._pending: list[Sample] = []
        self._written = 0  # samples already in the store (the next batch's first seq)
        self._last = clock()

    @property
    def count(self) -> int:
        return self._written + len(self._pending)

    def add(self, sample: Sample) -> None:
        self._pending.append(sample)
        if self._clock() - self._last >= self._every:
            self.flush()

    def flush(self) -> None:
        seconds = self._seconds()
        if self._pending or seconds:
            batch, self._pending = self._pending, []
            self.rows.add_samples(self.run_id, self._written, batch, seconds)
            self._written += len(batch)
        self._last = self._clock()

    def _seconds(self) -> list[LatencySecond]:
        return self._latency.take() if self._latency is not None else []

    def finish(
        self,
        *,
        metrics: RunMetrics | None,
        error_kind: str = "",
        error: str = "",
        attempts: int = 1,
        started_at: str | None = None,
        started_steady: float | None = None,
        elapsed_s: float | None = None,
        engine_version: str | None = None,
        argv: Sequence[str] | None = None,
        raw_output: str = "",
        flows: Iterable[object] = (),
        revised: Sequence[Sample] | None = None,
    ) -> None:
        """The run ended with a result (metrics) or an error: its last samples with it, or
        all its samples as revised at its end (`revised`), in place of those written."""
        batch, self._pending = self._pending, []
        if revised is not None:
            batch, self._written = list(revised), 0
        self.rows.finish(
            self.run_id,
            metrics=metrics,
            first_seq=self._written,
            samples=batch,
            error_kind=error_kind,
            error=error,
            attempts=attempts,
            started_at=started_at,
            started_steady=started_steady,
            elapsed_s=elapsed_s,
            engine_version=engine_version,
            argv=argv,
            raw_output=raw_output,
            flows=flows,
            replace_samples=revised is not None,
            seconds=self._seconds(),
        )
        self._written += len(batch)

    def unfinished(self, reason: str, raw_output: str = "") -> bool:
        """The run ends without a result: kept as partial, with the engine's output until
        then, when it measured anything (True); its row removed when it did not."""
        if not self.count:
            self.rows.discard(self.run_id)
            return False
        batch, self._pending = self._pending, []
        self.rows.leave_partial(
            self.run_id, self._written, batch, reason, self._seconds(), raw_output
        )
        self._written += len(batch)
        return True
