"""An exchange file read as it streams: the parser's events walked piece by piece — the file's
header, each session without its runs, each run without its samples, each sample — every
piece checked as a whole document's is (app.study.files.exchange_checks) and handed to a sink
as soon as it is: a file of any size is checked, or imported, in memory that does not grow
with it. LinkLab writes each object's runs (a session's) and samples (a run's) after the rest
of it, so that the piece is known whole when they begin; a run's flows may follow them."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import ijson

from app.domain.errors import BadOption
from app.domain.plan import RunKey
from app.domain.records import RunRecord
from app.domain.results import Sample
from app.store.rows import StoredRun, StoredSession
from app.study.files.exchange_checks import (
    HEADER_KEYS,
    MAX_RUNS,
    MAX_SAMPLES,
    MAX_SESSIONS,
    RUN_KEYS,
    SESSION_KEYS,
    ExchangeFile,
    Header,
    Obj,
    SessionHead,
    damaged,
    header,
    run_flows,
    run_head,
    run_label,
    sample,
    session_head,
    unreadable_file,
)
from app.study.files.json_files import (
    CHUNK,
    MAX_NESTING,
    NOT_A_NUMBER,
    Guarded,
    Unreadable,
    parser_words,
)

#: Samples handed to the sink at a time.
BATCH = 5_000
#: The most values one piece other than a sample list may hold (a plan, an environment, a
#: run's argv or flows hold far fewer): a hostile piece is refused before it is built.
MAX_PIECE_VALUES = 1_000_000

Event = tuple[str, Any]
_OPEN = frozenset({"start_map", "start_array"})
_CLOSE = frozenset({"end_map", "end_array"})


class Sink(Protocol):
    """Where the checked pieces go, in the file's order (a session's runs after it, a run's
    samples after it)."""

    def session(self, head: SessionHead) -> None: ...
    def run(self, record: RunRecord, flows_json: str) -> None: ...
    def samples(self, samples: list[Sample]) -> None: ...
    def flows(self, flows_json: str) -> None: ...
    def session_ended(self) -> None: ...


@dataclass
class Collected:
    """A sink that keeps everything: the whole file in memory, as read_exchange gives it."""

    read: list[StoredSession] = field(default_factory=list)
    header: Header | None = None
    _head: SessionHead | None = None
    _runs: list[tuple[RunRecord, list[Sample], str]] = field(default_factory=list)

    def session(self, head: SessionHead) -> None:
        self._head, self._runs = head, []

    def run(self, record: RunRecord, flows_json: str) -> None:
        self._runs.append((record, [], flows_json))

    def samples(self, samples: list[Sample]) -> None:
        self._runs[-1][1].extend(samples)

    def flows(self, flows_json: str) -> None:
        record, samples, _ = self._runs[-1]
        self._runs[-1] = (record, samples, flows_json)

    def session_ended(self) -> None:
        assert self._head is not None
        runs = tuple(StoredRun(r, tuple(s), f) for r, s, f in self._runs)
        record = replace(
            self._head.record,
            runs_done=len(runs),
            runs_failed=sum(not r.record.ok for r in runs),
        )
        self.read.append(StoredSession(record, runs))

    def exchange(self) -> ExchangeFile:
        assert self.header is not None
        top = self.header
        return ExchangeFile(top.format_version, top.exported_at, top.app_version, tuple(self.read))


def read_stream(path: Path, sink: Sink) -> Header:
    """Check the file at path as it streams, handing each piece to sink; BadOption with one
    sentence for the first fault (the sink has then had the pieces before it)."""
    try:
        handle = path.open("rb")
    except OSError as err:
        raise BadOption(
            f"Cannot read {path} ({err.strerror or err}): check the name and that it is a file."
        ) from None
    with handle:
        try:
            events = ijson.basic_parse(Guarded(handle), use_float=True, buf_size=CHUNK)
            found = _Reader(iter(events), sink, path.name).file()
            if isinstance(sink, Collected):
                sink.header = found
            return found
        except ijson.JSONError as err:
            raise unreadable_file(path.name, parser_words(err)) from None
        except Unreadable as err:
            raise unreadable_file(path.name, str(err)) from None
        except OSError as err:
            raise BadOption(
                f"Cannot read {path} ({err.strerror or err}): check that the file is there."
            ) from None


class _Reader:
    """The walk over one file's events."""

    def __init__(self, events: Iterator[Event], sink: Sink, name: str) -> None:
        self.events = events
        self.sink = sink
        self.name = name

    def next(self) -> Event:
        try:
            return next(self.events)
        except StopIteration:
            raise Unreadable("it is not valid JSON: it ends too soon") from None

    # -- values ---------------------------------------------------------------------------------
    def value(self, first: Event, limit: int = MAX_PIECE_VALUES) -> Any:
        """The JSON value that begins with first, built (at most limit values, MAX_NESTING
        deep)."""
        event, value = first
        if event not in _OPEN:
            return _scalar(event, value)
        root: Any = {} if event == "start_map" else []
        stack: list[Any] = [root]
        key = ""
        keys: list[str] = []
        for count, (event, value) in enumerate(self.events):
            if count > limit:
                raise Unreadable("it holds more values in one place than any LinkLab file holds")
            if event == "map_key":
                key = value
                continue
            if event in _CLOSE:
                stack.pop()
                if not stack:
                    return root
                key = keys.pop()
                continue
            item: Any = {} if event == "start_map" else [] if event == "start_array" else None
            built = _scalar(event, value) if item is None else item
            top = stack[-1]
            if isinstance(top, dict):
                top[key] = built
            else:
                top.append(built)
            if item is not None:
                if len(stack) >= MAX_NESTING:
                    raise Unreadable("it nests deeper than any LinkLab file")
                stack.append(item)
                keys.append(key)
        raise Unreadable("it is not valid JSON: it ends too soon")

    def skip(self, first: Event) -> None:
        """Pass over the value that begins with first, building nothing."""
        if first[0] not in _OPEN:
            return
        depth = 1
        for event, _ in self.events:
            if event in _OPEN:
                depth += 1
                if depth > MAX_NESTING:
                    raise Unreadable("it nests deeper than any LinkLab file")
            elif event in _CLOSE:
                depth -= 1
                if not depth:
                    return
        raise Unreadable("it is not valid JSON: it ends too soon")

    def entries(self) -> Iterator[str]:
        """The keys of the object just begun, each before its value is read (by the caller)."""
        while True:
            event, value = self.next()
            if event == "end_map":
                return
            yield value

    # -- the file -------------------------------------------------------------------------------
    def file(self) -> Header:
        first = self.next()
        if first[0] != "start_map":
            self.skip(first)
            header(None, self.name)  # not a LinkLab session file
        data: dict[str, Any] = {}
        found: Header | None = None
        for key in self.entries():
            if key == "sessions" and found is None:
                found = header(data, self.name)
                self.sessions(Obj(data | {"sessions": []}, "a header that"))
            elif key in HEADER_KEYS:
                data[key] = self.value(self.next())
            else:
                self.skip(self.next())
        if found is None:  # no sessions
            found = header(data, self.name)
            Obj(data, "a header that").get("sessions")
        return found

    def sessions(self, top: Obj) -> None:
        first = self.next()
        if first[0] != "start_array":
            top.data["sessions"] = self.value(first)
            raise top.wrong("sessions", "which is not a list")
        seen: set[str] = set()
        number = 0
        while (event := self.next())[0] != "end_array":
            number += 1
            if number > MAX_SESSIONS:
                raise top.bad(f"has more than {MAX_SESSIONS} sessions")
            if event[0] != "start_map":
                session_head(self.value(event), number)  # not a JSON object: says so
            self.session(number, seen)
        if not number:
            raise top.bad("lists no sessions")

    def session(self, number: int, seen: set[str]) -> None:
        data: dict[str, Any] = {}
        head: SessionHead | None = None
        for key in self.entries():
            if key == "runs" and head is None:
                head = session_head(data, number)
                if head.record.id in seen:
                    raise damaged(f"session {head.record.id[:8]}", "twice")
                seen.add(head.record.id)
                self.sink.session(head)
                self.runs(head)
            elif key in SESSION_KEYS:
                data[key] = self.value(self.next())
            else:
                self.skip(self.next())
        if head is None:
            head = session_head(data, number)
            Obj(data, f"{head.label}, which").get("runs")  # has no runs
        self.sink.session_ended()

    def runs(self, head: SessionHead) -> None:
        first = self.next()
        obj = Obj({"runs": None}, f"{head.label}, which")
        if first[0] != "start_array":
            obj.data["runs"] = self.value(first)
            raise obj.wrong("runs", "which is not a list")
        keys: set[RunKey] = set()
        number = 0
        while (event := self.next())[0] != "end_array":
            number += 1
            if number > MAX_RUNS:
                raise obj.bad(f"has more than {MAX_RUNS} runs")
            if event[0] != "start_map":
                run_head(self.value(event), number, head)  # not a JSON object: says so
            self.run(head, number, keys)

    def run(self, head: SessionHead, number: int, keys: set[RunKey]) -> None:
        data: dict[str, Any] = {}
        begun = False
        for key in self.entries():
            if key == "samples" and not begun:
                record = run_head(data, number, head)
                if record.key in keys:
                    raise damaged(run_label(head, number), "repeats the key of an earlier run")
                keys.add(record.key)
                self.sink.run(record, run_flows(data, number, head))
                begun = True
                self.samples(run_label(head, number))
            elif key == "flows":
                data["flows"] = self.value(self.next())
                if begun:
                    self.sink.flows(run_flows(data, number, head))
            elif key in RUN_KEYS:
                data[key] = self.value(self.next())
            else:
                self.skip(self.next())
        if not begun:
            run_head(data, number, head)
            Obj(data, run_label(head, number)).get("samples")  # has no samples

    def samples(self, label: str) -> None:
        """A run's samples, each built from its events here (the one place that sees most of
        a large file's events: kept short), in batches to the sink."""
        first = self.next()
        if first[0] != "start_array":
            obj = Obj({"samples": self.value(first)}, label)
            raise obj.wrong("samples", "which is not a list")
        events, sink = self.events, self.sink
        batch: list[Sample] = []
        number = 0
        isfinite = math.isfinite
        for event, value in events:
            if event == "end_array":
                break
            number += 1
            if number > MAX_SAMPLES:
                raise Obj({}, label).bad(f"has more than {MAX_SAMPLES} samples")
            if event != "start_map":
                sample(self.value((event, value)), number, label)  # not an object: says so
            item: dict[str, Any] = {}
            key = ""
            for event, value in events:
                if event == "map_key":
                    key = value
                elif event == "end_map":
                    break
                elif event in _OPEN:
                    item[key] = self.value((event, value), limit=10_000)
                else:
                    if value.__class__ is float and not isfinite(value):
                        raise Unreadable(NOT_A_NUMBER)
                    item[key] = value
            else:
                raise Unreadable("it is not valid JSON: it ends too soon")
            batch.append(sample(item, number, label))
            if len(batch) >= BATCH:
                sink.samples(batch)
                batch = []
        else:
            raise Unreadable("it is not valid JSON: it ends too soon")
        if batch:
            sink.samples(batch)


def _scalar(event: str, value: Any) -> Any:
    if event == "number" and isinstance(value, float) and not math.isfinite(value):
        raise Unreadable(NOT_A_NUMBER)
    if event in ("map_key", "end_map", "end_array"):
        raise Unreadable("it is not valid JSON")
    return value
