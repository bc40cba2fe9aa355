"""One engine invocation: start it, parse its lines as they come, assemble the RunResult."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from app.domain.errors import LinkLabError
from app.domain.results import (
    EngineFailure,
    EngineMessage,
    FarEndIntervals,
    ParseEvent,
    RunResult,
    RunSummary,
    Sample,
)
from app.engine import intervals
from app.engine.bounds import impossible
from app.engine.errors import (
    ConnectTimeout,
    ImpossibleValue,
    PeerVanished,
    StoppedByUser,
)
from app.engine.process import IdleTimeout, ManagedProcess
from app.engine.tools import Tool

Parser = Callable[[Iterable[str]], Iterator[ParseEvent]]
LiveEvent = Sample | EngineMessage


class Classifier(Protocol):
    """Turns the engine's own failure words (and its stderr) into a typed error; `started`
    says whether any interval had arrived (a peer that closes before that is no vanished
    peer but the wrong one, or an incompatible one)."""

    def __call__(self, message: str, *, started: bool = True) -> LinkLabError: ...


class EngineRun:
    """Runs one engine process and turns its output into typed events.

    `events()` yields samples and messages live and returns when the run is over; `result`
    then holds the RunResult. Errors are raised as EngineError subclasses. `cancel()` may be
    called from any thread and ends the run (and its process tree) within about a second.

    Every figure is checked against physical bounds (app.engine.bounds) before it is passed
    on: a sample as it arrives, the summary at the end. An impossible one fails the run with
    ImpossibleValue, whose detail holds the raw output.
    """

    def __init__(
        self,
        tool: Tool,
        argv: Sequence[str],
        parser: Parser,
        classify: Classifier,
        *,
        host: str,
        port: int | None = None,
        idle_timeout_s: float,
        env: Mapping[str, str] | None = None,
        notices: Sequence[str] = (),
    ) -> None:
        self.tool = tool
        self.argv: tuple[str, ...] = tuple(argv)
        self._parser = parser
        self._classify = classify
        self._host = host
        self._port = port
        self._idle_timeout_s = idle_timeout_s
        self._env = env
        self._notices = tuple(notices)
        self._process: ManagedProcess | None = None
        self._raw: list[str] = []
        self._cancel_requested = False
        self.result: RunResult | None = None

    @property
    def idle_timeout_s(self) -> float:
        """How long the engine may print nothing before the peer counts as gone."""
        return self._idle_timeout_s

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def cancel(self) -> None:
        self._cancel_requested = True
        if self._process is not None:
            self._process.cancel()

    def run(self, on_event: Callable[[LiveEvent], None] | None = None) -> RunResult:
        """Run to the end, passing live events to on_event; return the result."""
        for event in self.events():
            if on_event is not None:
                on_event(event)
        assert self.result is not None
        return self.result

    def events(self) -> Iterator[LiveEvent]:
        if self._cancel_requested:
            raise StoppedByUser()
        started_at = time.time()
        t0 = time.monotonic()
        process = ManagedProcess(self.argv, self._env)
        self._process = process
        process.start()
        samples: list[Sample] = []
        far: list[Sample] = []  # the far end's interval reports, given when the run ends
        started = False  # any interval, omitted ones included
        summary: RunSummary | None = None
        failure: str | None = None
        problem: tuple[str, str] | None = None
        try:
            for notice in self._notices:
                yield EngineMessage(notice)
            for event in self._parser(self._tee(process.lines(self._idle_timeout_s))):
                if isinstance(event, Sample):
                    if (problem := impossible(event)) is not None:
                        break
                    started = True
                    if not event.omitted:
                        samples.append(event)
                    yield event
                elif isinstance(event, RunSummary):
                    summary = event
                elif isinstance(event, FarEndIntervals):
                    problem = next(filter(None, map(impossible, event.samples)), None)
                    if problem is not None:
                        break
                    far.extend(event.samples)
                elif isinstance(event, EngineFailure):
                    failure = failure or event.message
                elif isinstance(event, EngineMessage):
                    yield event
        except IdleTimeout as exc:
            process.cancel()
            process.wait()
            if self._cancel_requested:
                raise StoppedByUser() from None
            if not started and self._port is not None:
                # Silent from the start: the peer never answered, rather than went away.
                raise ConnectTimeout(self._host, self._port, detail=str(exc)) from None
            raise PeerVanished(self._host, exc.seconds, detail=str(exc)) from None
        except BaseException:
            # Parser errors, a consumer that stops iterating (GeneratorExit) or an interrupt:
            # never leave the engine running behind us.
            process.cancel()
            process.wait()
            raise
        if problem is not None:
            process.cancel()
        code = process.wait(timeout=5)
        stderr = process.stderr_lines()
        self._raw.extend(f"[stderr] {line}" for line in stderr)
        if self._cancel_requested:
            raise StoppedByUser()
        if problem is None and summary is not None and failure is None and code == 0:
            problem = impossible(summary)
        if problem is not None:
            what, value = problem
            raise ImpossibleValue(self.tool.name, what, value, detail="\n".join(self._raw))
        if process.cancelled:
            raise StoppedByUser()
        if summary is not None and not _has_figures(summary):
            summary = None  # e.g. an empty "end" event after an error
        if failure is not None or summary is None or code != 0:
            message = (
                failure
                or _error_lines(stderr)
                or (
                    f"exit status {code} without results"
                    if code != 0
                    else "the run ended without a summary"
                )
            )
            raise self._classify(message, started=started)
        joined = intervals.join(samples, far) if far else tuple(samples)
        self.result = RunResult(
            engine=self.tool.name,
            engine_version=self.tool.version_string,
            argv=self.argv,
            summary=summary,
            samples=joined,
            raw_output="\n".join(self._raw),
            started_at=started_at,
            elapsed_s=time.monotonic() - t0,
            samples_revised=joined != tuple(samples),
        )

    def _tee(self, lines: Iterable[str]) -> Iterator[str]:
        for line in lines:
            self._raw.append(line)
            yield line


def _has_figures(summary: RunSummary) -> bool:
    """Whether the summary measured anything (a rate, an RTT, a transaction rate)."""
    flows = [
        (f.sender_bps, f.receiver_bps, f.sender_bytes, f.receiver_bytes) for f in summary.flows
    ]
    known = [v for values in flows for v in values] + [
        summary.rtt_mean_ms,
        summary.transactions_per_s,
    ]
    return any(value is not None for value in known)


def _error_lines(stderr: list[str]) -> str:
    """The engine's error sentence from stderr: a line that names the failure, else the last."""
    words = (
        "error",
        "unable",
        "refused",
        "failed",
        "partial response",
        "could not",
        "unrecognized option",
        "invalid option",
    )
    lines = [line.strip() for line in stderr if line.strip()]
    for line in lines:
        if any(word in line.lower() for word in words):
            return line
    return lines[-1] if lines else ""
