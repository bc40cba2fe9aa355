"""Session exchange files: sessions exported to one JSON file (a document, for hand-ins and
class pushes; a file as it streams, exchange_write), and read back checked in full."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.domain.errors import BadOption
from app.domain.plan import RunKey
from app.domain.records import RunRecord
from app.domain.results import Sample
from app.store.db import Database, StoreFull
from app.store.imported import import_sessions as stored_in
from app.store.incoming import Scratch, copy_in, remove_scratch, scratch_path
from app.store.sessions import SessionStore, StoredRun, StoredSession
from app.study.files.exchange_checks import (
    EXCHANGE_FORMAT,
    EXCHANGE_VERSION,
    MAX_NAME,
    MAX_SESSIONS,
    ExchangeFile,
    Obj,
    SessionHead,
    damaged,
    header,
    run_flows,
    run_head,
    run_label,
    runs_array,
    sample,
    samples_array,
    session_head,
    unreadable_file,
)
from app.study.files.exchange_stream import Collected, read_stream
from app.study.files.exchange_write import dumps_exchange, export_sessions, write_exchange
from app.study.files.json_files import Unreadable, load_json

__all__ = [
    "EXCHANGE_FORMAT",
    "EXCHANGE_VERSION",
    "MAX_NAME",
    "ExchangeFile",
    "dumps_exchange",
    "export_sessions",
    "write_exchange",
]

#: The name ending of exchange files; the installers associate it with LinkLab. Any name
#: imports: the content, not the ending, decides.
EXCHANGE_SUFFIX = ".linklab"
#: The largest hand-in read (whole, in memory); a session file streams and has no cap.
MAX_FILE_BYTES = 200 * 1024 * 1024

# A session and its runs as the file holds them: the store's own types.
ExchangeRun = StoredRun
ExchangeSession = StoredSession


@dataclass(frozen=True)
class ImportResult:
    imported: list[str]
    skipped: list[str]
    #: The sessions' names by id (those the file held).
    names: dict[str, str] = field(default_factory=dict, compare=False)


# -- reading and checking ----------------------------------------------------------------------
def read_exchange(path: Path | str) -> ExchangeFile:
    """Read and check a whole exchange file, as it streams (app.study.files.exchange_stream);
    BadOption with one sentence for the first fault. Everything it holds is kept in memory:
    an import streams into the database instead (FrontDoor.import_file)."""
    collected = Collected()
    read_stream(Path(path), collected)
    return collected.exchange()


def exchange_from_data(data: object, name: str) -> ExchangeFile:
    """Check a whole exchange document already read from the file called name (a hand-in, a
    class push), piece by piece as a streamed file is."""
    top = header(data, name)
    assert isinstance(data, dict)  # header() checked it
    items = Obj(data, "a header that").array("sessions", MAX_SESSIONS)
    if not items:
        raise damaged("a header that", "lists no sessions")
    sessions = tuple(_session(item, n) for n, item in enumerate(items, 1))
    ids = [s.record.id for s in sessions]
    if len(set(ids)) < len(ids):
        twice = next(sid for sid in ids if ids.count(sid) > 1)
        raise damaged(f"session {twice[:8]}", "twice")
    return ExchangeFile(top.format_version, top.exported_at, top.app_version, sessions)


def load_json_file(path: Path) -> object:
    """The JSON document of a hand-in, read within the memory bound of
    app.study.files.json_files; BadOption with one sentence when it cannot be."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise BadOption(
                f"{path.name} is larger than {MAX_FILE_BYTES // 2**20} MB, more than a LinkLab "
                f"hand-in holds: choose the .linklab file that LinkLab wrote."
            )
        return load_json(path, size)
    except OSError as err:
        raise BadOption(
            f"Cannot read {path} ({err.strerror or err}): check the name and that it is a file."
        ) from None
    except Unreadable as err:
        raise unreadable_file(path.name, str(err)) from None


def _session(item: object, number: int) -> ExchangeSession:
    head = session_head(item, number)
    assert isinstance(item, dict)  # session_head checked it
    by_key: dict[RunKey, ExchangeRun] = {}
    for n, item_run in enumerate(runs_array(item, head), 1):
        record = run_head(item_run, n, head)
        label = run_label(head, n)
        samples = tuple(
            sample(s, m, label) for m, s in enumerate(samples_array(item_run, n, head), 1)
        )
        run = ExchangeRun(record, samples, run_flows(item_run, n, head))
        if by_key.setdefault(record.key, run) is not run:
            raise damaged(label, "repeats the key of an earlier run")
    checked = tuple(by_key.values())
    session = replace(
        head.record,
        runs_done=len(checked),
        runs_failed=sum(not r.record.ok for r in checked),
    )
    return ExchangeSession(session, checked)


# -- import ------------------------------------------------------------------------------------
def import_sessions(store: SessionStore, exchange: ExchangeFile) -> ImportResult:
    """Add the file's sessions in one transaction; sessions already present are skipped."""
    imported, skipped = stored_in(store.db, exchange.sessions)
    return ImportResult(imported, skipped)


@dataclass
class _Stored:
    """The pieces of a file as it streams, into the scratch file of an import."""

    scratch: Scratch
    names: dict[str, str] = field(default_factory=dict)

    def session(self, head: SessionHead) -> None:
        self.scratch.session(head.record)
        self.names[head.record.id] = head.record.name

    def run(self, record: RunRecord, flows_json: str) -> None:
        self.scratch.run(record, flows_json)

    def samples(self, samples: list[Sample]) -> None:
        self.scratch.samples(samples)

    def flows(self, flows_json: str) -> None:
        self.scratch.flows(flows_json)

    def session_ended(self) -> None:
        pass


def import_file(path: Path, db_path: Path, open_db: Callable[[], Database]) -> ImportResult:
    """Add the sessions of the file at path to the database at db_path as it streams (a file
    of any size in bounded memory), all or nothing. The file is read and checked whole into a
    scratch file beside the database first (which is opened, by open_db, only then), then
    copied in, shown once every session is in; those already here are skipped."""
    scratch = scratch_path(db_path)
    try:
        writer = _Stored(Scratch(scratch))
        try:
            read_stream(path, writer)
        finally:
            writer.scratch.close()
        with open_db() as db:
            imported, skipped = copy_in(db, scratch)
    except StoreFull:
        raise BadOption(
            f"The disk holding {db_path.parent} has no room for the sessions of {path.name}: "
            f"free some space, then import it again (nothing was added)."
        ) from None
    finally:
        remove_scratch(scratch)
    return ImportResult(imported, skipped, writer.names)
