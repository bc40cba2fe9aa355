"""One engine invocation: start it, parse its lines as they come, assemble the RunResult."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from app.domain.errors import LinkLabError
from app.domain.results import (
    EngineFailure,
    EngineMessage,
    FarEndIntervals,
    LateCounts,
    ParseEvent,
    RunResult,
    RunSummary,
    Sample,
)
from app.engine.errors import (
    ConnectTimeout,
    DataStopped,
    EngineCrashed,
    ImpossibleValue,
    PeerVanished,
    StoppedByUser,
)
from app.engine.process.process import IdleTimeout, ManagedProcess
from app.engine.process.spool import LineSpool, SampleSpool
from app.engine.process.tools import Tool
from app.engine.readings import intervals
from app.engine.readings.bounds import impossible

Parser = Callable[[Iterable[str]], Iterator[ParseEvent]]
LiveEvent = Sample | EngineMessage

#: Intervals that carried no bytes, back to back over this long, are a silent link: the
#: engine goes on printing empty intervals until its own end (and then waits for the peer).
SILENT_DATA_S = 8.0
#: The longest engine error text put into a sentence; the whole output stays in the detail.
MAX_MESSAGE_CHARS = 1024


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

    Every figure is checked against physical bounds (app.engine.readings.bounds) before it is passed
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
        silence_s: float | None = SILENT_DATA_S,
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
        self._silence_s = silence_s
        self._process: ManagedProcess | None = None
        self._raw = LineSpool()
        self._stderr_kept = False  # stderr's lines are in _raw (the process has ended)
        self._cancel_requested = False
        self.result: RunResult | None = None

    @property
    def idle_timeout_s(self) -> float:
        """How long the engine may print nothing before the peer counts as gone."""
        return self._idle_timeout_s

    @property
    def silence_s(self) -> float | None:
        """How long intervals may carry no bytes before the data counts as stopped."""
        return self._silence_s

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def started(self) -> bool:
        """Its engine's process was started."""
        return self._process is not None

    @property
    def ended_at(self) -> float | None:
        """When (time.monotonic()) its engine's process was seen ended; None before it
        starts and while it runs."""
        return self._process.ended_at if self._process is not None else None

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
        """The run's live events; a failure, however it came, carries the engine's own output
        (as far as it came, stdout and stderr, each line bounded as read) in its detail."""
        try:
            yield from self._events()
        except StoppedByUser:
            raise
        except LinkLabError as err:
            if output := self._output():
                err.detail = output
            raise

    def output(self) -> str:
        """What the engine printed so far: stdout, then stderr (once the process has ended)."""
        return self._output()

    def _output(self) -> str:
        """What the engine printed so far: stdout, then stderr (once the process has ended)."""
        lines = self._raw.lines()
        process = self._process
        if not self._stderr_kept and process is not None and process.returncode is not None:
            lines += [f"[stderr] {line}" for line in process.stderr_lines()]
        return "\n".join(lines)

    def _events(self) -> Iterator[LiveEvent]:
        if self._cancel_requested:
            raise StoppedByUser()
        started_at = time.time()
        t0 = time.monotonic()
        process = ManagedProcess(self.argv, self._env)
        self._process = process
        process.start()
        samples = SampleSpool()
        far: list[Sample] = []  # the far end's interval reports, given when the run ends
        late: list[Sample] = []  # counts the engine stated after their interval was passed on
        started = False  # any interval, omitted ones included
        summary: RunSummary | None = None
        failure: str | None = None
        problem: tuple[str, str] | None = None
        silence = _Silence(self._silence_s)
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
                    if (silent_s := silence.observe(event)) is not None:
                        process.cancel()
                        process.wait()
                        if self._cancel_requested:
                            raise StoppedByUser()
                        raise DataStopped(self._host, silent_s, detail=self._raw.text())
                elif isinstance(event, RunSummary):
                    summary = event
                elif isinstance(event, LateCounts):
                    late.extend(event.samples)
                elif isinstance(event, FarEndIntervals):
                    problem = next(filter(None, map(impossible, event.samples)), None)
                    if problem is not None:
                        break
                    far.extend(event.samples)
                elif isinstance(event, EngineFailure):
                    failure = failure or event.message
                elif isinstance(event, EngineMessage):
                    yield event
        except ImpossibleValue as exc:
            # A parser's refusal of a figure that is no number (true, "Infinity", -5 bytes).
            problem = (exc.what, exc.value)
        except IdleTimeout as exc:
            process.cancel()
            process.wait()
            if self._cancel_requested:
                raise StoppedByUser() from None
            if not started and self._port is not None:
                # Silent from the start: the peer never answered, rather than went away.
                raise ConnectTimeout(self._host, self._port, detail=str(exc)) from None
            raise PeerVanished(self._host, exc.seconds, detail=str(exc)) from None
        except (StoppedByUser, DataStopped):
            raise  # the engine is ended already
        except LinkLabError:
            # The parser could not read a line: the engine's output is what is left of the run,
            # so the rest of it is kept (the engine ends its test as it would have).
            self._drain(process)
            raise
        except BaseException:
            # A consumer that stops iterating (GeneratorExit) or an interrupt: never leave the
            # engine running behind us.
            process.cancel()
            process.wait()
            raise
        if problem is not None:
            process.cancel()
        code = process.wait(timeout=5)
        stderr = process.stderr_lines()
        self._raw.extend(f"[stderr] {line}" for line in stderr)
        self._stderr_kept = True
        if self._cancel_requested:
            raise StoppedByUser()
        if problem is None and summary is not None and failure is None and code == 0:
            problem = impossible(summary)
        if problem is not None:
            what, value = problem
            raise ImpossibleValue(self.tool.name, what, value, detail=self._raw.text())
        if process.cancelled:
            raise StoppedByUser()
        if summary is not None and not _has_figures(summary):
            summary = None  # e.g. an empty "end" event after an error
        crash = _crash_signal(code)
        if crash:
            raise EngineCrashed(self.tool.name, crash, detail="\n".join(self._raw))
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
            raise self._classify(_shortened(message), started=started)
        own = tuple(samples.samples())
        samples.close()
        counted = intervals.with_late(own, late) if late else own
        joined = intervals.join(counted, far) if far else counted
        self.result = RunResult(
            engine=self.tool.name,
            engine_version=self.tool.version_string,
            argv=self.argv,
            summary=summary,
            samples=joined,
            raw_output=self._raw.text(),
            started_at=started_at,
            elapsed_s=time.monotonic() - t0,
            samples_revised=joined != own,
            started_steady=t0,
        )

    def _drain(self, process: ManagedProcess) -> None:
        """Keep the rest of the engine's output, unread, until it ends (or goes silent for the
        idle time, or Stop ends it), then reap it."""
        try:
            self._raw.extend(process.lines(self._idle_timeout_s))
        except IdleTimeout:
            process.cancel()
        process.wait(timeout=5)

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


class _Silence:
    """Watches the intervals for a link that carries nothing: how long (by the intervals' own
    times) no interval has carried a byte, once that reaches the limit."""

    def __init__(self, limit_s: float | None) -> None:
        self._limit_s = limit_s
        self._since: float | None = None  # where the data was last seen (or the first interval)

    def observe(self, sample: Sample) -> float | None:
        if self._limit_s is None:
            return None
        carried = _carried(sample)
        if carried is None:
            return None  # a request/response interval: no byte count to judge
        if self._since is None:
            self._since = sample.start_s
        if carried:
            self._since = max(self._since, sample.end_s)
            return None
        quiet = sample.end_s - self._since
        return quiet if quiet >= self._limit_s else None


def _carried(sample: Sample) -> bool | None:
    """Whether the interval carried data: its bytes, else its rate; None when it tells neither."""
    if sample.bytes is not None:
        return sample.bytes > 0
    rate = sample.received_bps if sample.received_bps is not None else sample.sent_bps
    if rate is not None:
        return rate > 0
    return None


def _shortened(message: str) -> str:
    """An engine's message short enough for a sentence (its full output is in the detail)."""
    message = message.strip()
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[: MAX_MESSAGE_CHARS - 1]}…"


#: The form of an engine's own error line: "iperf3: error - …", "netperf: …", "iperf3:
#: parameter error - …".
_OWN_ERROR = re.compile(r"^[\w.-]+: (?:[\w ]*error|interrupt) - ")
_ERROR_WORDS = (
    "error",
    "unable",
    "refused",
    "failed",
    "partial response",
    "could not",
    "unrecognized option",
    "invalid option",
)


def _error_lines(stderr: list[str]) -> str:
    """The engine's error sentence from stderr: its own last error line, else a line that names
    the failure, else the last line (stderr keeps only its last lines, each one short)."""
    lines = [line.strip() for line in stderr if line.strip()]
    own = [line for line in lines if _OWN_ERROR.match(line)]
    if own:
        return own[-1]
    for line in lines:
        if any(word in line.lower() for word in _ERROR_WORDS):
            return line
    return lines[-1] if lines else ""


#: Signals that mean the engine crashed (or was killed by the system), not that it was asked
#: to stop: an interrupt or a terminate is the engine's own error to classify.
CRASH_SIGNALS = ("SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE", "SIGKILL")


def _crash_signal(code: int | None) -> str:
    """'SIGSEGV (segmentation fault)' for an exit by a crash signal; '' otherwise."""
    if code is None or code >= 0:
        return ""
    try:
        found = signal.Signals(-code)
    except ValueError:
        return ""
    if found.name not in CRASH_SIGNALS:
        return ""
    described = signal.strsignal(found) or ""
    return f"{found.name} ({described.lower()})" if described else found.name
