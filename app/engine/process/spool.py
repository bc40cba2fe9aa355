"""What a long run keeps until it ends, on disk past a bound rather than in memory: its raw
output lines and its samples, so that an hour at 0.1-s intervals keeps memory flat."""

from __future__ import annotations

import json
import tempfile
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import astuple
from typing import IO

from app.domain.net import Flow
from app.domain.results import Sample

#: Lines (about 100 bytes each) and samples kept in memory before the older ones go to disk.
MEMORY_LINES = 8192
MEMORY_SAMPLES = 4096


class LineSpool:
    """The run's output lines as they arrive; `text()` joins them all with newlines."""

    def __init__(self, keep: int | None = None) -> None:
        self._keep = MEMORY_LINES if keep is None else keep
        self._recent: list[str] = []
        self._file: IO[str] | None = None
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines())

    def append(self, line: str) -> None:
        self._recent.append(line)
        self._count += 1
        if len(self._recent) >= self._keep:
            self._spill()

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.append(line)

    def lines(self) -> list[str]:
        if self._file is None:
            return list(self._recent)
        self._file.seek(0)
        # Written one line each: a line holds no line end (the reader split on them all).
        kept = self._file.read().split("\n")[:-1]
        self._file.seek(0, 2)
        return kept + self._recent

    def text(self) -> str:
        return "\n".join(self.lines())

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(
                "w+", encoding="utf-8", errors="replace", newline=""
            )
            weakref.finalize(self, self._file.close)  # a run dropped on an error, too
        self._file.write("".join(f"{line}\n" for line in self._recent))
        self._recent = []

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class SampleSpool:
    """The run's samples as they arrive, in order; `samples()` gives them all back."""

    def __init__(self, keep: int | None = None) -> None:
        self._keep = MEMORY_SAMPLES if keep is None else keep
        self._recent: list[Sample] = []
        self._file: IO[str] | None = None

    def append(self, sample: Sample) -> None:
        self._recent.append(sample)
        if len(self._recent) >= self._keep:
            if self._file is None:
                self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
                weakref.finalize(self, self._file.close)
            # One JSON array a line, the fields in order (the flow by its value).
            self._file.write("".join(f"{json.dumps(_row(s))}\n" for s in self._recent))
            self._recent = []

    def samples(self) -> list[Sample]:
        if self._file is None:
            return list(self._recent)
        self._file.seek(0)
        found = [_sample(json.loads(line)) for line in self._file]
        self._file.seek(0, 2)
        return found + self._recent

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _row(sample: Sample) -> list[object]:
    return [v.value if isinstance(v, Flow) else v for v in astuple(sample)]


def _sample(row: list[object]) -> Sample:
    start_s, end_s, flow, *rest = row
    return Sample(start_s, end_s, Flow(flow), *rest)  # type: ignore[arg-type]
