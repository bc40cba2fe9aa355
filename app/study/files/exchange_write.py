"""Sessions written as an exchange file: as one document (a hand-in, a class push), or
streamed to the file a run and a batch of samples at a time (an export of any size, in
memory that does not grow with it), each session's runs and each run's samples after the
rest of it, as the streaming reader takes them. Either way the file is the same JSON."""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

from app import __version__
from app.domain.errors import BadOption
from app.domain.records import METRIC_FIELDS, RunRecord, SessionRecord, utc_now
from app.domain.results import Sample
from app.store.damage import damage_sentence
from app.store.sessions import SessionStore
from app.study.files.exchange_checks import (
    EXCHANGE_FORMAT,
    EXCHANGE_VERSION,
    RUN_FIELDS,
    SAMPLE_VALUES,
    SESSION_FIELDS,
)

T = TypeVar("T")


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _header() -> dict[str, Any]:
    return {
        "format": EXCHANGE_FORMAT,
        "format_version": EXCHANGE_VERSION,
        "exported_at": utc_now(),
        "app_version": __version__,
    }


def session_piece(record: SessionRecord) -> dict[str, Any]:
    """A session as the file holds it, without its runs."""
    session = {k: getattr(record, k) for k in SESSION_FIELDS}
    session["status"] = record.status.value
    session["plan"] = record.plan.to_dict()
    # Non-finite numbers become null: the file must stay strict JSON.
    environment = json.dumps(record.environment)
    session["environment"] = json.loads(environment, parse_constant=lambda _: None)
    return session


def run_piece(r: RunRecord) -> dict[str, Any]:
    """A run as the file holds it, without its samples and flows."""
    run: dict[str, Any] = {"protocol": r.key.protocol.value, "kind": r.key.kind.value}
    run |= {"ip_version": int(r.key.ip_version), "repetition": r.key.repetition}
    run |= {"value_index": r.key.value_index, "status": "ok" if r.ok else "failed"}
    run |= {k: _finite(getattr(r, k)) for k in RUN_FIELDS}
    run["argv"] = list(r.argv)
    run["metrics"] = {k: _finite(getattr(r.metrics, k)) for k in METRIC_FIELDS}
    return run


def sample_piece(s: Sample) -> dict[str, Any]:
    """A sample as the file holds it (the store read its figures within their bounds, so
    every one is finite, or None)."""
    piece: dict[str, Any] = {"flow": s.flow.value, "start_s": s.start_s, "end_s": s.end_s}
    for name in SAMPLE_VALUES:
        piece[name] = getattr(s, name)
    return piece


def _note(record: SessionRecord, run: RunRecord | None, store: SessionStore) -> str:
    if run is None:
        return damage_sentence(record, store.db.path)
    return (
        f"The raw output of run {run.id} of session {record.short_id} holds bytes that are "
        f"not text (the database is damaged there): they are written as \ufffd; `linklab "
        f"doctor --db` checks the whole file."
    )


def export_sessions(
    store: SessionStore,
    session_ids: Sequence[str],
    notes: list[str] | None = None,
    only_runs: Collection[int] | None = None,
) -> dict[str, Any]:
    """The exchange document for these sessions (ids or unique prefixes), in the given order,
    whole in memory (a hand-in, a class push: write_sessions streams a file instead); notes
    gets a sentence for each damaged session and each run whose raw output was damaged in the
    database. With only_runs, the sessions hold only those of their runs (by run id)."""
    records = {r.id: r for r in (store.get(ref) for ref in session_ids)}
    sessions = []
    for record in records.values():
        if record.damaged and notes is not None:
            notes.append(_note(record, None, store))
        flows = store.flows(record.id)
        runs = []
        for r in store.runs(record.id, with_raw=True):
            if only_runs is not None and r.id not in only_runs:
                continue
            run = run_piece(r)
            run["samples"] = [sample_piece(s) for s in store.samples(r.id)]
            run["flows"] = flows.get(r.id, [])
            runs.append(run)
            if r.damaged and notes is not None:
                notes.append(_note(record, r, store))
        session = session_piece(record)
        session["runs"] = runs
        sessions.append(session)
    return _header() | {"sessions": sessions}


#: Samples written compactly (they are most of a large file), as strict JSON.
_SAMPLES = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def _opened(piece: dict[str, Any], key: str) -> str:
    """The object as JSON left open for one more key, an array: {"a": 1, "key": ["""
    text = json.dumps(piece, allow_nan=False)
    return f"{text[:-1]}, {json.dumps(key)}: ["


def write_sessions(
    store: SessionStore, session_ids: Sequence[str], out: IO[str], notes: list[str] | None = None
) -> list[str]:
    """Stream the exchange file of these sessions (ids or unique prefixes, in that order) to
    out: a session, then its runs one at a time, each run's samples a batch at a time from
    the database. Returns the sessions' ids; notes as export_sessions."""
    records = {r.id: r for r in (store.get(ref) for ref in session_ids)}
    out.write(_opened(_header(), "sessions") + "\n")
    for n, record in enumerate(records.values()):
        if record.damaged and notes is not None:
            notes.append(_note(record, None, store))
        out.write((",\n" if n else "") + _opened(session_piece(record), "runs") + "\n")
        flows = store.flows(record.id)
        for m, listed in enumerate(store.runs(record.id)):  # the raw output read run by run
            r = store.run(record.id, listed.id, with_raw=True)
            if r.damaged and notes is not None:
                notes.append(_note(record, r, store))
            out.write((",\n" if m else "") + _opened(run_piece(r), "samples") + "\n")
            first = True
            for batch in store.sample_batches(r.id):
                if not batch:
                    continue
                # A batch a line: one call of the C encoder for thousands of samples.
                text = _SAMPLES.encode([sample_piece(s) for s in batch])[1:-1]
                out.write(("" if first else ",\n") + text)
                first = False
            out.write(f'\n], "flows": {json.dumps(flows.get(r.id, []), allow_nan=False)}}}')
        out.write("\n]}")
    out.write("\n]}\n")
    return list(records)


def export_file(
    store: SessionStore, session_ids: Sequence[str], path: Path, notes: list[str] | None = None
) -> list[str]:
    """write_sessions to path, atomically (a temporary file beside it, then os.replace): a
    file cut short by a full disk never takes the name."""
    return _atomic(path, lambda handle: write_sessions(store, session_ids, handle, notes))


def dumps_exchange(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, allow_nan=False) + "\n"


def write_exchange(path: Path | str, data: dict[str, Any]) -> None:
    """A whole document to path, atomically."""
    _atomic(Path(path), lambda handle: handle.write(dumps_exchange(data)))


def _atomic(path: Path, write: Callable[[IO[str]], T]) -> T:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as handle:
            done = write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise BadOption(
            f"Cannot write {path} ({err.strerror or err}): choose another place."
        ) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return done
