"""The fuzz harness: a target's inputs, made by a seeded mutator from real seeds, each put
through the target within a time limit; any error that is not one of LinkLab's own typed
errors, and any input slower than the limit, is a finding kept with the input that caused it."""

from __future__ import annotations

import contextlib
import random
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from app.domain.errors import LinkLabError

__all__ = ["Finding", "Report", "Target", "fuzz"]

#: Findings kept per target (their count goes on): the first few say what to fix.
KEPT_FINDINGS = 20


@dataclass(frozen=True)
class Target:
    """What is fuzzed: seeds (built once, lazily), a mutator that makes an input from a seed,
    and the call that reads the input. typed are the errors a reader may raise."""

    name: str
    seeds: Callable[[], Sequence[Any]]
    mutate: Callable[[random.Random, Any], Any]
    call: Callable[[Any], object]
    typed: tuple[type[BaseException], ...] = (LinkLabError,)
    describe: Callable[[Any], str] = repr


@dataclass(frozen=True)
class Finding:
    kind: str  # "untyped" (an error of another type) or "slow" (past the time limit)
    index: int  # which input of the run (the same seed and count make it again)
    error: str
    example: str  # the input, as describe() shows it

    def words(self) -> str:
        return f"{self.kind} at input {self.index}: {self.error}"


@dataclass
class Report:
    target: str
    count: int = 0
    seconds: float = 0.0
    typed_errors: int = 0
    slowest_s: float = 0.0  # of CPU time
    untyped: int = 0
    slow: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.untyped == 0 and self.slow == 0

    def line(self) -> str:
        each = 1000 * self.seconds / self.count if self.count else 0.0
        return (
            f"{self.target}: {self.count} inputs in {self.seconds:.1f} s ({each:.2f} ms each, "
            f"slowest {self.slowest_s:.3f} s of CPU): {self.typed_errors} typed errors, "
            f"{self.untyped} untyped, {self.slow} slow"
        )


class _TooSlow(BaseException):
    """Raised in the reader by a timer (a BaseException: no `except Exception` hides it)."""


def _ring(_signum: int, _frame: FrameType | None) -> None:
    raise _TooSlow


#: The timers (POSIX): the reader's CPU time (what is its own on a busy machine) and, so that
#: a reader that waits is found too, real time. Elsewhere the time is only measured, and a
#: slow input is found when it returns.
_TIMERS = (
    ((signal.ITIMER_PROF, signal.SIGPROF), (signal.ITIMER_REAL, signal.SIGALRM))
    if hasattr(signal, "setitimer")
    else ()
)


@contextlib.contextmanager
def _timers() -> Iterator[None]:
    previous = [(number, signal.signal(number, _ring)) for _, number in _TIMERS]
    try:
        yield
    finally:
        _arm(0.0, 0.0)
        for number, handler in previous:
            signal.signal(number, handler)


def _arm(cpu_s: float, wall_s: float) -> None:
    for (timer, _), seconds in zip(_TIMERS, (cpu_s, wall_s), strict=False):
        signal.setitimer(timer, seconds)


def fuzz(
    target: Target,
    count: int,
    *,
    seed: int = 0,
    limit_s: float = 2.0,
    wall_limit_s: float | None = None,
    findings_dir: Path | None = None,
) -> Report:
    """Put count inputs through target, each within limit_s of CPU time (and wall_limit_s of
    real time, by default ten times that); a finding's input is written to findings_dir."""
    wall_s = wall_limit_s if wall_limit_s is not None else 10 * limit_s
    rng = random.Random(f"{target.name}:{seed}")
    seeds = list(target.seeds())
    if not seeds:
        raise ValueError(f"{target.name} has no seeds")
    report = Report(target.name)
    started = time.perf_counter()
    with _timers():
        for index in range(count):
            value = target.mutate(rng, rng.choice(seeds))
            found: Finding | None = None
            begun = time.process_time()
            try:
                _arm(limit_s, wall_s)
                try:
                    target.call(value)
                finally:
                    _arm(0.0, 0.0)
            except _TooSlow:
                found = Finding("slow", index, f"still reading after {limit_s} s", "")
            except target.typed:
                report.typed_errors += 1
            except Exception as err:  # what the harness looks for: any other error
                found = Finding("untyped", index, f"{type(err).__name__}: {err}"[:500], "")
            took = time.process_time() - begun
            report.slowest_s = max(report.slowest_s, took)
            if found is None and took > limit_s:  # a C call the timer could not interrupt
                found = Finding("slow", index, f"took {took:.2f} s", "")
            if found is not None:
                _keep(report, found, target.describe(value), findings_dir, target.name)
            report.count += 1
    report.seconds = time.perf_counter() - started
    return report


def _keep(
    report: Report, found: Finding, example: str, findings_dir: Path | None, name: str
) -> None:
    setattr(report, found.kind, getattr(report, found.kind) + 1)
    if len(report.findings) >= KEPT_FINDINGS:
        return
    report.findings.append(Finding(found.kind, found.index, found.error, example[:2000]))
    if findings_dir is not None:
        findings_dir.mkdir(parents=True, exist_ok=True)
        path = findings_dir / f"{name}-{found.kind}-{found.index}.txt"
        path.write_text(f"{found.error}\n\n{example}", encoding="utf-8", errors="replace")
