"""Session exchange files: sessions exported to one JSON file, checked in full before import."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app import __version__
from app.domain.errors import BadOption
from app.domain.metrics import COLUMNS, SAMPLE_FIGURES
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Plan, RunKey, RunKind
from app.domain.plan_codec import plan_from_dict
from app.domain.records import (
    METRIC_FIELDS,
    TEXT_METRIC_FIELDS,
    RunMetrics,
    RunRecord,
    SessionRecord,
    SessionStatus,
    utc_now,
)
from app.domain.results import Sample
from app.engine.readings.bounds import beyond, limit
from app.store.imported import import_sessions as stored_in
from app.store.sessions import SessionStore, StoredRun, StoredSession
from app.study.files.json_files import Unreadable, load_json
from app.study.sweep.plan_checks import plan_problems

EXCHANGE_FORMAT = "linklab-sessions"
EXCHANGE_VERSION = 2  # 2: a sample's sent_bps and received_bps (1: bits_per_second)
#: The name ending of exchange files; the installers associate it with LinkLab. Any name
#: imports: the content, not the ending, decides.
EXCHANGE_SUFFIX = ".linklab"

# Caps: generous for anything LinkLab writes, small enough that a hostile file cannot
# exhaust memory or flood the window. Names longer than MAX_NAME are cut, as on rename.
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_NAME = 200
MAX_SHORT = 1_000  # engine, versions, error kind, argv items
MAX_TEXT = 1_000_000  # error, status reason
MAX_RAW = 64 * 1024 * 1024  # one run's raw engine output
MAX_ARGV = 1_000
MAX_SESSIONS = 10_000
MAX_SAMPLES = 1_000_000
MAX_ENV_BYTES = 1_000_000
MAX_DEPTH = 32  # nesting of the environment and the flow summaries
_MAX_INT = 2**63 - 1  # SQLite's INTEGER
_ID = re.compile(r"[0-9a-f]{32}")
_INT_METRICS = frozenset(column.name for column in COLUMNS if column.kind is int)
#: Metrics LinkLab added after the first exchange files: a file without them still imports.
_LATER_METRICS = frozenset(column.name for column in COLUMNS if column.since_schema > 1)
#: A sample's figures, as the metric table lists them.
_SAMPLE_VALUES = tuple(figure.name for figure in SAMPLE_FIGURES)
_INT_SAMPLE_VALUES = frozenset(figure.name for figure in SAMPLE_FIGURES if figure.kind is int)
#: Sample figures LinkLab added after the first exchange files: a file without them imports.
_LATER_SAMPLE_VALUES = frozenset(f.name for f in SAMPLE_FIGURES if f.since_schema > 1)
# Columns named like the fields of RunRecord and ExchangeRun (and of the sessions table).
_RUN_FIELDS = (
    "value",
    "error_kind",
    "error",
    "attempts",
    "started_at",
    "ended_at",
    "elapsed_s",
    "engine",
    "engine_version",
    "raw_output",
)
_SESSION_FIELDS = (
    "id",
    "name",
    "status_reason",
    "created_at",
    "started_at",
    "ended_at",
    "app_version",
    "total_runs",
)

# A session and its runs as the file holds them: the store's own types.
ExchangeRun = StoredRun
ExchangeSession = StoredSession


@dataclass(frozen=True)
class ExchangeFile:
    format_version: int
    exported_at: str
    app_version: str
    sessions: tuple[ExchangeSession, ...]


@dataclass(frozen=True)
class ImportResult:
    imported: list[str]
    skipped: list[str]


# -- export ------------------------------------------------------------------------------------
def export_sessions(
    store: SessionStore,
    session_ids: Sequence[str],
    notes: list[str] | None = None,
    only_runs: Collection[int] | None = None,
) -> dict[str, Any]:
    """The exchange document for these sessions (ids or unique prefixes), in the given order;
    notes gets a sentence for each run whose raw output was damaged in the database. With
    only_runs, the sessions hold only those of their runs (by run id)."""
    records = {r.id: r for r in (store.get(ref) for ref in session_ids)}
    sessions = []
    for record in records.values():
        flows = store.flows(record.id)
        runs = []
        for r in store.runs(record.id, with_raw=True):
            if only_runs is not None and r.id not in only_runs:
                continue
            run: dict[str, Any] = {"protocol": r.key.protocol.value, "kind": r.key.kind.value}
            run |= {"ip_version": int(r.key.ip_version), "repetition": r.key.repetition}
            run |= {"value_index": r.key.value_index, "status": "ok" if r.ok else "failed"}
            run |= {k: _finite(getattr(r, k)) for k in _RUN_FIELDS}
            run["argv"] = list(r.argv)
            run["metrics"] = {k: _finite(getattr(r.metrics, k)) for k in METRIC_FIELDS}
            run["samples"] = [
                {"flow": s.flow.value, "start_s": s.start_s, "end_s": s.end_s}
                | {k: _finite(getattr(s, k)) for k in _SAMPLE_VALUES}
                for s in store.samples(r.id)
            ]
            run["flows"] = flows.get(r.id, [])
            runs.append(run)
            if r.damaged and notes is not None:
                notes.append(
                    f"The raw output of run {r.id} of session {record.short_id} holds bytes "
                    f"that are not text (the database is damaged there): they are written as "
                    f"\ufffd; `linklab doctor --db` checks the whole file."
                )
        session = {k: getattr(record, k) for k in _SESSION_FIELDS}
        session["status"] = record.status.value
        session["plan"] = record.plan.to_dict()
        # Non-finite numbers become null: the file must stay strict JSON.
        environment = json.dumps(record.environment)
        session["environment"] = json.loads(environment, parse_constant=lambda _: None)
        session["runs"] = runs
        sessions.append(session)
    return {
        "format": EXCHANGE_FORMAT,
        "format_version": EXCHANGE_VERSION,
        "exported_at": utc_now(),
        "app_version": __version__,
        "sessions": sessions,
    }


def dumps_exchange(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, allow_nan=False) + "\n"


def write_exchange(path: Path | str, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file in the same folder, then os.replace."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as handle:
            handle.write(dumps_exchange(data))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise BadOption(
            f"Cannot write {path} ({err.strerror or err}): choose another place."
        ) from None


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


# -- reading and checking ----------------------------------------------------------------------
def read_exchange(path: Path | str) -> ExchangeFile:
    """Read and check a whole exchange file; BadOption with one sentence for the first fault."""
    path = Path(path)
    return exchange_from_data(load_json_file(path), path.name)


def exchange_from_data(data: object, name: str) -> ExchangeFile:
    """Check a whole exchange document already read from the file called name."""
    hint = "choose a file that LinkLab exported for another computer (a .linklab file)"
    if not isinstance(data, dict) or data.get("format") != EXCHANGE_FORMAT:
        raise BadOption(f"{name} is not a LinkLab session file: {hint}.")
    top = _Obj(data, "a header that")
    version = top.integer("format_version", 1, _MAX_INT)
    if version > EXCHANGE_VERSION:
        raise BadOption(
            f"{name} was written by a newer LinkLab (session file format {version}; this "
            f"version reads up to {EXCHANGE_VERSION}): update LinkLab, then import it again."
        )
    exported_at = top.time("exported_at")
    app_version = top.text("app_version", MAX_SHORT)
    items = top.array("sessions", MAX_SESSIONS)
    if not items:
        raise top.bad("lists no sessions")
    sessions = tuple(_session(item, n) for n, item in enumerate(items, 1))
    ids = [s.record.id for s in sessions]
    if len(set(ids)) < len(ids):
        twice = next(sid for sid in ids if ids.count(sid) > 1)
        raise _damaged(f"session {twice[:8]}", "twice")
    return ExchangeFile(version, exported_at or "", app_version, sessions)


def load_json_file(path: Path) -> object:
    """The JSON document of an exchange file (or hand-in), read within the memory bound of
    app.study.files.json_files; BadOption with one sentence when it cannot be."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise BadOption(
                f"{path.name} is larger than {MAX_FILE_BYTES // 2**20} MB, more than a LinkLab "
                f"export holds: choose the .linklab file that LinkLab exported."
            )
        return load_json(path, size)
    except OSError as err:
        raise BadOption(
            f"Cannot read {path} ({err.strerror or err}): check the name and that it is a file."
        ) from None
    except Unreadable as err:
        why = str(err)
    raise BadOption(
        f"{path.name} cannot be read as a LinkLab session file ({why}): the file is damaged or "
        f"cut short; ask for a new export."
    )


def _damaged(subject: str, problem: str) -> BadOption:
    return BadOption(
        f"The file holds {subject} {problem}: the file is damaged; ask for a new export."
    )


class _Obj:
    """Typed reads from one JSON object; each fault becomes a sentence naming the place."""

    def __init__(self, data: object, subject: str) -> None:
        self.subject = subject
        if not isinstance(data, dict):
            raise self.bad("is not a JSON object")
        self.data: dict[str, Any] = data

    def bad(self, problem: str) -> BadOption:
        return _damaged(self.subject, problem)

    def wrong(self, key: str, why: str) -> BadOption:
        return self.bad(f"has {key} {repr(self.data[key])[:40]}, {why}")

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise self.bad(f"has no {key}")
        return self.data[key]

    def text(self, key: str, cap: int, *, cut: bool = False) -> str:
        value = self.get(key)
        if not isinstance(value, str) or (len(value) > cap and not cut):
            raise self.wrong(key, f"which is not text of at most {cap} characters")
        try:
            value[:cap].encode("utf-8")
        except UnicodeEncodeError:
            raise self.wrong(key, "which holds broken characters (lone surrogates)") from None
        return value[:cap]

    def choice(self, key: str, allowed: Sequence[str], why: str = "") -> str:
        value = self.get(key)
        if not isinstance(value, str) or value not in allowed:
            raise self.wrong(key, why or "which LinkLab does not know")
        return value

    def time(self, key: str, optional: bool = False) -> str | None:
        value = self.get(key)
        if value is None and optional:
            return None
        try:
            dt.datetime.fromisoformat(value if isinstance(value, str) and len(value) < 64 else "")
        except ValueError:
            raise self.wrong(key, "which is not an ISO 8601 time") from None
        return str(value)

    def integer(self, key: str, low: int, high: int) -> int:
        value: int = self.number(key, whole=True, optional=False, negative=True)
        if not low <= value <= high:
            raise self.wrong(key, f"outside {low}..{high}")
        return value

    def number(self, key: str, *, whole: bool, optional: bool, negative: bool = False) -> Any:
        value = self.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
            raise self.wrong(key, f"which is not a {'whole ' if whole else ''}number")
        try:  # SQLite holds 64-bit integers and doubles
            fits = math.isfinite(value) and abs(value) <= (_MAX_INT if whole else 1e308)
        except OverflowError:
            fits = False
        if not fits:
            raise self.wrong(key, "which is too large to store or not finite")
        if value < 0 and not negative:
            raise self.bad(f"has a negative {key}")
        if (problem := beyond(key, value)) is not None:  # the engine's own bounds
            what, shown = problem
            raise self.bad(f"has {key} {shown}, which is not a possible {what} ({limit(key)})")
        return value if whole else float(value)

    def array(self, key: str, cap: int) -> list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            raise self.wrong(key, "which is not a list")
        if len(value) > cap:
            raise self.bad(f"has more than {cap} {key}")
        return value

    def json_text(self, key: str, kind: type[object], cap: int) -> str:
        """Free-form JSON (environment, flow summaries), stored as text, never interpreted."""
        value = self.get(key)
        if not isinstance(value, kind) or _too_deep(value, MAX_DEPTH):
            what = "an object" if kind is dict else "a list"
            raise self.bad(f"has {key} that is not {what} nested at most {MAX_DEPTH} deep")
        try:
            text = json.dumps(value, allow_nan=False)
        except ValueError:  # 1e999 parses as infinity, which JSON cannot carry on
            raise self.bad(f"has {key} holding a number too large for JSON") from None
        if len(text) > cap:
            raise self.bad(f"has {key} larger than {cap} characters")
        return text


def _too_deep(value: object, limit: int) -> bool:
    """True when lists and objects nest deeper than limit (the recursion stops there)."""
    items = list(value.values()) if isinstance(value, dict) else value
    return isinstance(items, list) and any(limit <= 0 or _too_deep(i, limit - 1) for i in items)


def _session(item: object, number: int) -> ExchangeSession:
    obj = _Obj(item, f"session number {number}, which")
    sid = obj.get("id")
    if not isinstance(sid, str) or not _ID.fullmatch(sid):
        raise obj.wrong("id", "which is not 32 hexadecimal digits")
    name = obj.text("name", MAX_NAME, cut=True)
    label = f"session {sid[:8]}" + (f" ({name[:40]!r})" if name else "")
    obj = _Obj(item, f"{label}, which")
    plan = _plan(obj)
    by_key: dict[RunKey, ExchangeRun] = {}
    for n, item_run in enumerate(obj.array("runs", 10**7), 1):
        run = _run(item_run, n, plan, sid, label)
        if by_key.setdefault(run.record.key, run) is not run:
            raise _damaged(f"{label} whose run {n}", "repeats the key of an earlier run")
    checked = tuple(by_key.values())
    environment = obj.json_text("environment", dict, MAX_ENV_BYTES)
    record = SessionRecord(
        id=sid,
        name=name,
        peer_host=plan.peer.host,
        plan=plan,
        environment=json.loads(environment),
        status=SessionStatus(obj.choice("status", [s.value for s in SessionStatus])),
        status_reason=obj.text("status_reason", MAX_TEXT),
        created_at=obj.time("created_at") or "",
        started_at=obj.time("started_at", optional=True),
        ended_at=obj.time("ended_at", optional=True),
        app_version=obj.text("app_version", MAX_SHORT),
        total_runs=obj.integer("total_runs", 0, 10**8),
        runs_done=len(checked),
        runs_failed=sum(not r.record.ok for r in checked),
    )
    return ExchangeSession(record, checked)


def _plan(obj: _Obj) -> Plan:
    try:
        plan = plan_from_dict(obj.get("plan"))
        problems = [sentence for _, sentence in plan_problems(plan)]
        peer = plan.peer
        if not isinstance(peer.name, str) or not isinstance(peer.host6, str):
            problems.append("the peer's name and IPv6 address must be text")
        else:  # cut like the session's name; lone surrogates raise ValueError (cannot be stored)
            plan = replace(plan, peer=replace(peer, name=peer.name[:MAX_NAME].encode().decode()))
        plan.to_json()
    except BadOption as err:
        problems = [err.sentence]
    except (TypeError, ValueError, AttributeError, RecursionError) as err:
        problems = [f"a field of the wrong type: {type(err).__name__}"]
    if problems:
        raise obj.bad(f"has a plan LinkLab cannot use ({problems[0].rstrip('.')})")
    return plan


def _run(item: object, number: int, plan: Plan, sid: str, label: str) -> ExchangeRun:
    obj = _Obj(item, f"{label} whose run {number}")
    protocol = obj.choice("protocol", [p.value for p in plan.protocols], "which its plan omits")
    ip_version = obj.integer("ip_version", 4, 6)
    if ip_version not in [int(v) for v in plan.ip_versions]:
        raise obj.wrong("ip_version", "which its plan omits")
    kind = obj.choice("kind", [k.value for k in plan.kinds], "which its plan omits")
    key = RunKey(
        Protocol(protocol),
        IpVersion(ip_version),
        obj.integer("value_index", 0, len(plan.values) - 1),
        obj.integer("repetition", 1, plan.repetitions),
        RunKind(kind),
    )
    argv = obj.array("argv", MAX_ARGV)
    if not all(isinstance(a, str) and len(a) <= MAX_SHORT for a in argv):
        raise obj.bad("has an argv that is not a list of short texts")
    metrics = _Obj(obj.get("metrics"), obj.subject)
    record = RunRecord(
        id=0,
        session_id=sid,
        key=key,
        value=obj.number("value", whole=False, optional=False, negative=True),
        ok=obj.choice("status", ("ok", "failed")) == "ok",
        error_kind=obj.text("error_kind", MAX_SHORT),
        error=obj.text("error", MAX_TEXT),
        attempts=obj.integer("attempts", 1, 1000),
        started_at=obj.time("started_at") or "",
        ended_at=obj.time("ended_at") or "",
        elapsed_s=obj.number("elapsed_s", whole=False, optional=True),
        engine=obj.text("engine", MAX_SHORT),
        engine_version=obj.text("engine_version", MAX_SHORT),
        argv=tuple(argv),
        metrics=RunMetrics(**{k: _metric(metrics, k) for k in METRIC_FIELDS}),
        raw_output=obj.text("raw_output", MAX_RAW),
    )
    samples = obj.array("samples", MAX_SAMPLES)
    return ExchangeRun(
        record,
        tuple(_sample(s, n, obj.subject) for n, s in enumerate(samples, 1)),
        obj.json_text("flows", list, MAX_TEXT) if "flows" in obj.data else "[]",
    )


def _metric(metrics: _Obj, key: str) -> Any:
    """One run metric; one a file from an older LinkLab lacks (working latency) is None."""
    if key in _LATER_METRICS and key not in metrics.data:
        return None
    if key in TEXT_METRIC_FIELDS:
        return None if metrics.get(key) is None else metrics.text(key, MAX_SHORT)
    return metrics.number(key, whole=key in _INT_METRICS, optional=True)


def _sample(item: object, number: int, run_label: str) -> Sample:
    obj = _Obj(item, f"{run_label}, sample {number},")
    # Format 1 held one bits_per_second: the client's count.
    legacy = "bits_per_second" in obj.data and "sent_bps" not in obj.data
    rates = ("sent_bps", "received_bps")
    sample = Sample(
        start_s=obj.number("start_s", whole=False, optional=False),
        end_s=obj.number("end_s", whole=False, optional=False),
        flow=Flow(obj.choice("flow", [f.value for f in Flow])),
        **{
            k: obj.number(k, whole=k in _INT_SAMPLE_VALUES, optional=True)
            for k in _SAMPLE_VALUES
            if not (legacy and k in rates) and not (k in _LATER_SAMPLE_VALUES and k not in obj.data)
        },
    )
    if not legacy:
        return sample
    # Sorted as the store's schema 5 migration sorts it: the sender's rate of an upload
    # unless the report had the receiver's jitter, what was received of a download.
    rate = obj.number("bits_per_second", whole=False, optional=True)
    if sample.flow is Flow.UP and sample.jitter_ms is None:
        return replace(sample, sent_bps=rate)
    return replace(sample, received_bps=rate)


# -- import ------------------------------------------------------------------------------------
def import_sessions(store: SessionStore, exchange: ExchangeFile) -> ImportResult:
    """Add the file's sessions in one transaction; sessions already present are skipped."""
    imported, skipped = stored_in(store.db, exchange.sessions)
    return ImportResult(imported, skipped)
