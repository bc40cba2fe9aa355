"""An exchange file read as it streams (app.study.files.json_text), piece by piece — the
file's header, each session without its runs, each run without its samples, each sample —
every piece checked as a whole document's is (app.study.files.exchange_checks) and handed to
a sink as soon as it is: a file of any size is checked, or imported, in memory that does not
grow with it. LinkLab writes each object's runs (a session's) and samples (a run's) after the
rest of it, so that the piece is known whole when they begin; a run's flows may follow them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from app.domain.errors import BadOption
from app.domain.plan import RunKey
from app.domain.records import RunRecord
from app.domain.results import Sample
from app.domain.units import counted
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
from app.study.files.json_files import Unreadable
from app.study.files.json_text import JsonText

#: Samples handed to the sink at a time.
BATCH = 5_000


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
            found = _Reader(JsonText(handle), sink, path.name).file()
        except Unreadable as err:
            raise unreadable_file(path.name, str(err)) from None
        except OSError as err:
            raise BadOption(
                f"Cannot read {path} ({err.strerror or err}): check that the file is there."
            ) from None
    if isinstance(sink, Collected):
        sink.header = found
    return found


class _Reader:
    """The walk over one file's pieces."""

    def __init__(self, text: JsonText, sink: Sink, name: str) -> None:
        self.text = text
        self.sink = sink
        self.name = name

    def file(self) -> Header:
        text = self.text
        if not text.opens("{"):
            header(text.value(), self.name)  # not a LinkLab session file
        data: dict[str, Any] = {}
        found: Header | None = None
        for key in text.keys():
            if key == "sessions" and found is None:
                found = header(data, self.name)
                self.sessions(Obj(data | {"sessions": None}, "a header that"))
            elif key in HEADER_KEYS:
                data[key] = text.value()
            else:
                text.skip()
        text.end()
        if found is None:  # no sessions
            found = header(data, self.name)
            Obj(data, "a header that").get("sessions")
        return found

    def sessions(self, top: Obj) -> None:
        text = self.text
        if not text.opens("["):
            top.data["sessions"] = text.value()
            raise top.wrong("sessions", "which is not a list")
        seen: set[str] = set()
        count = 0
        for number in text.items():
            count = number
            if number > MAX_SESSIONS:
                raise top.bad(f"has more than {counted(MAX_SESSIONS, 'session')}")
            if not text.opens("{"):
                session_head(text.value(), number)  # not a JSON object: says so
            self.session(number, seen)
        if not count:
            raise top.bad("lists no sessions")

    def session(self, number: int, seen: set[str]) -> None:
        text = self.text
        data: dict[str, Any] = {}
        head: SessionHead | None = None
        for key in text.keys():
            if key == "runs" and head is None:
                head = session_head(data, number)
                if head.record.id in seen:
                    raise damaged(f"session {head.record.id[:8]}", "twice")
                seen.add(head.record.id)
                self.sink.session(head)
                self.runs(head)
            elif key in SESSION_KEYS:
                data[key] = text.value()
            else:
                text.skip()
        if head is None:
            head = session_head(data, number)
            Obj(data, f"{head.label}, which").get("runs")  # has no runs
        self.sink.session_ended()

    def runs(self, head: SessionHead) -> None:
        text = self.text
        obj = Obj({"runs": None}, f"{head.label}, which")
        if not text.opens("["):
            obj.data["runs"] = text.value()
            raise obj.wrong("runs", "which is not a list")
        keys: set[RunKey] = set()
        for number in text.items():
            if number > MAX_RUNS:
                raise obj.bad(f"has more than {counted(MAX_RUNS, 'run')}")
            if not text.opens("{"):
                run_head(text.value(), number, head)  # not a JSON object: says so
            self.run(head, number, keys)

    def run(self, head: SessionHead, number: int, keys: set[RunKey]) -> None:
        text = self.text
        data: dict[str, Any] = {}
        begun = False
        for key in text.keys():
            if key == "samples" and not begun:
                record = run_head(data, number, head)
                if record.key in keys:
                    raise damaged(run_label(head, number), "repeats the key of an earlier run")
                keys.add(record.key)
                self.sink.run(record, run_flows(data, number, head))
                begun = True
                self.samples(run_label(head, number))
            elif key == "flows":
                data["flows"] = text.value()
                if begun:
                    self.sink.flows(run_flows(data, number, head))
            elif key in RUN_KEYS:
                data[key] = text.value()
            else:
                text.skip()
        if not begun:
            run_head(data, number, head)
            Obj(data, run_label(head, number)).get("samples")  # has no samples

    def samples(self, label: str) -> None:
        """A run's samples, each decoded whole by the C scanner, in batches to the sink."""
        text, sink = self.text, self.sink
        if not text.opens("["):
            obj = Obj({"samples": text.value()}, label)
            raise obj.wrong("samples", "which is not a list")
        batch: list[Sample] = []
        for number in text.items():
            if number > MAX_SAMPLES:
                raise Obj({}, label).bad(f"has more than {counted(MAX_SAMPLES, 'sample')}")
            batch.append(sample(text.value(), number, label))
            if len(batch) >= BATCH:
                sink.samples(batch)
                batch = []
        if batch:
            sink.samples(batch)
