"""The checks of an exchange file's pieces — its header, a session without its runs, a run
without its samples, one sample — each fault a sentence naming the place. A whole document
(exchange.exchange_from_data) and a file read as it streams (exchange_stream) are held to
the same checks, piece by piece."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

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
)
from app.domain.results import Sample
from app.engine.readings.bounds import LIMITS, beyond, limit
from app.store.rows import StoredSession
from app.study.sweep.plan_checks import plan_problems

EXCHANGE_FORMAT = "linklab-sessions"
EXCHANGE_VERSION = 2  # 2: a sample's sent_bps and received_bps (1: bits_per_second)

# Caps: generous for anything LinkLab writes, small enough that a hostile file cannot
# exhaust memory or flood the window. Names longer than MAX_NAME are cut, as on rename.
MAX_NAME = 200
MAX_SHORT = 1_000  # engine, versions, error kind, argv items
MAX_TEXT = 1_000_000  # error, status reason
MAX_RAW = 64 * 1024 * 1024  # one run's raw engine output
MAX_ARGV = 1_000
MAX_SESSIONS = 10_000
MAX_RUNS = 10**7
MAX_SAMPLES = 1_000_000
MAX_ENV_BYTES = 1_000_000
MAX_DEPTH = 32  # nesting of the environment and the flow summaries
_MAX_INT = 2**63 - 1  # SQLite's INTEGER
_ID = re.compile(r"[0-9a-f]{32}")
_INT_METRICS = frozenset(column.name for column in COLUMNS if column.kind is int)
#: Metrics LinkLab added after the first exchange files: a file without them still imports.
_LATER_METRICS = frozenset(column.name for column in COLUMNS if column.since_schema > 1)
#: A sample's figures, as the metric table lists them.
SAMPLE_VALUES = tuple(figure.name for figure in SAMPLE_FIGURES)
_INT_SAMPLE_VALUES = frozenset(figure.name for figure in SAMPLE_FIGURES if figure.kind is int)
#: Sample figures LinkLab added after the first exchange files: a file without them imports.
_LATER_SAMPLE_VALUES = frozenset(f.name for f in SAMPLE_FIGURES if f.since_schema > 1)
# Columns named like the fields of RunRecord (and of the sessions table).
RUN_FIELDS = (
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
SESSION_FIELDS = (
    "id",
    "name",
    "status_reason",
    "created_at",
    "started_at",
    "ended_at",
    "app_version",
    "total_runs",
)
#: What a session and a run hold beside their runs and samples (others are not read).
SESSION_KEYS = frozenset(SESSION_FIELDS) | {"status", "plan", "environment"}
RUN_KEYS = frozenset(RUN_FIELDS) | {
    "protocol",
    "kind",
    "ip_version",
    "repetition",
    "value_index",
    "status",
    "argv",
    "metrics",
}
HEADER_KEYS = frozenset({"format", "format_version", "exported_at", "app_version"})


@dataclass(frozen=True)
class ExchangeFile:
    """A whole exchange file read into memory."""

    format_version: int
    exported_at: str
    app_version: str
    sessions: tuple[StoredSession, ...]


def unreadable_file(name: str, why: str) -> BadOption:
    return BadOption(
        f"{name} cannot be read as a LinkLab session file ({why}): the file is damaged or "
        f"cut short; ask for a new export."
    )


def damaged(subject: str, problem: str) -> BadOption:
    return BadOption(
        f"The file holds {subject} {problem}: the file is damaged; ask for a new export."
    )


class Obj:
    """Typed reads from one JSON object; each fault becomes a sentence naming the place."""

    def __init__(self, data: object, subject: str) -> None:
        self.subject = subject
        if not isinstance(data, dict):
            raise self.bad("is not a JSON object")
        self.data: dict[str, Any] = data

    def bad(self, problem: str) -> BadOption:
        return damaged(self.subject, problem)

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


def _too_deep(value: object, depth: int) -> bool:
    """True when lists and objects nest deeper than depth (the recursion stops there)."""
    items = list(value.values()) if isinstance(value, dict) else value
    return isinstance(items, list) and any(depth <= 0 or _too_deep(i, depth - 1) for i in items)


# -- the file's header ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Header:
    format_version: int
    exported_at: str
    app_version: str


def header(data: object, name: str) -> Header:
    """The file's header (everything but its sessions); name: the file's, for the sentences."""
    hint = "choose a file that LinkLab exported for another computer (a .linklab file)"
    if not isinstance(data, dict) or data.get("format") != EXCHANGE_FORMAT:
        raise BadOption(f"{name} is not a LinkLab session file: {hint}.")
    top = Obj(data, "a header that")
    version = top.integer("format_version", 1, _MAX_INT)
    if version > EXCHANGE_VERSION:
        raise BadOption(
            f"{name} was written by a newer LinkLab (session file format {version}; this "
            f"version reads up to {EXCHANGE_VERSION}): update LinkLab, then import it again."
        )
    return Header(version, top.time("exported_at") or "", top.text("app_version", MAX_SHORT))


# -- a session, without its runs -----------------------------------------------------------------
@dataclass(frozen=True)
class SessionHead:
    """A session as its file describes it before its runs: the record (its run counts still
    0) and the words that name it in a sentence."""

    record: SessionRecord
    label: str


def session_head(item: object, number: int) -> SessionHead:
    obj = Obj(item, f"session number {number}, which")
    sid = obj.get("id")
    if not isinstance(sid, str) or not _ID.fullmatch(sid):
        raise obj.wrong("id", "which is not 32 hexadecimal digits")
    name = obj.text("name", MAX_NAME, cut=True)
    label = f"session {sid[:8]}" + (f" ({name[:40]!r})" if name else "")
    obj = Obj(item, f"{label}, which")
    plan = _plan(obj)
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
        runs_done=0,
        runs_failed=0,
    )
    return SessionHead(record, label)


def runs_array(item: Mapping[str, Any], head: SessionHead) -> list[Any]:
    return Obj(item, f"{head.label}, which").array("runs", MAX_RUNS)


def _plan(obj: Obj) -> Plan:
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


# -- a run, without its samples ------------------------------------------------------------------
def run_label(head: SessionHead, number: int) -> str:
    return f"{head.label} whose run {number}"


def run_head(item: object, number: int, head: SessionHead) -> RunRecord:
    """A run's record (id 0) from everything its object holds but its samples and flows."""
    plan, sid = head.record.plan, head.record.id
    obj = Obj(item, run_label(head, number))
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
    metrics = Obj(obj.get("metrics"), obj.subject)
    return RunRecord(
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


def run_flows(item: Mapping[str, Any], number: int, head: SessionHead) -> str:
    """A run's flow summaries as stored text ("[]" when the file has none)."""
    obj = Obj(item, run_label(head, number))
    return obj.json_text("flows", list, MAX_TEXT) if "flows" in obj.data else "[]"


def samples_array(item: Mapping[str, Any], number: int, head: SessionHead) -> list[Any]:
    return Obj(item, run_label(head, number)).array("samples", MAX_SAMPLES)


def _metric(metrics: Obj, key: str) -> Any:
    """One run metric; one a file from an older LinkLab lacks (working latency) is None."""
    if key in _LATER_METRICS and key not in metrics.data:
        return None
    if key in TEXT_METRIC_FIELDS:
        return None if metrics.get(key) is None else metrics.text(key, MAX_SHORT)
    return metrics.number(key, whole=key in _INT_METRICS, optional=True)


# -- one sample ---------------------------------------------------------------------------------
def sample(item: object, number: int, label: str) -> Sample:
    """One sample of the run called label: quickly when it holds what LinkLab writes, else
    checked field by field (a sentence for the first fault, a format 1 file's one rate)."""
    if type(item) is dict and (found := _plain_sample(item)) is not None:
        return found
    return _sample(item, number, label)


def _sample(item: object, number: int, label: str) -> Sample:
    obj = Obj(item, f"{label}, sample {number},")
    # Format 1 held one bits_per_second: the client's count.
    legacy = "bits_per_second" in obj.data and "sent_bps" not in obj.data
    rates = ("sent_bps", "received_bps")
    found = Sample(
        start_s=obj.number("start_s", whole=False, optional=False),
        end_s=obj.number("end_s", whole=False, optional=False),
        flow=Flow(obj.choice("flow", [f.value for f in Flow])),
        **{
            k: obj.number(k, whole=k in _INT_SAMPLE_VALUES, optional=True)
            for k in SAMPLE_VALUES
            if not (legacy and k in rates) and not (k in _LATER_SAMPLE_VALUES and k not in obj.data)
        },
    )
    if not legacy:
        return found
    # Sorted as the store's schema 5 migration sorts it: the sender's rate of an upload
    # unless the report had the receiver's jitter, what was received of a download.
    rate = obj.number("bits_per_second", whole=False, optional=True)
    if found.flow is Flow.UP and found.jitter_ms is None:
        return replace(found, sent_bps=rate)
    return replace(found, received_bps=rate)


#: Each figure, whether it is whole, and its largest value as Obj.number and the bounds allow.
_CHECKS = tuple(
    (
        name,
        name in _INT_SAMPLE_VALUES,
        min(LIMITS[name][2], _MAX_INT if name in _INT_SAMPLE_VALUES else 1e308),
    )
    for name in SAMPLE_VALUES
)
_TIME_LARGEST = min(LIMITS["start_s"][2], LIMITS["end_s"][2])
_FLOWS = {f.value: f for f in Flow}
_KNOWN = frozenset(SAMPLE_VALUES) | {"flow", "start_s", "end_s"}
_REQUIRED = frozenset(SAMPLE_VALUES) - _LATER_SAMPLE_VALUES


def _plain_sample(item: dict[str, Any]) -> Sample | None:
    """The sample when every field is what _sample accepts without a word (the values of a
    format 2 file, each within its bounds), else None: _sample then says what is wrong. It
    accepts less than _sample, never more, and builds the same Sample."""
    keys = item.keys()
    if not (keys <= _KNOWN and _REQUIRED <= keys):
        return None
    named = item.get("flow")
    flow = _FLOWS.get(named) if named.__class__ is str else None
    start: Any = item.get("start_s")
    end: Any = item.get("end_s")
    if flow is None or start.__class__ not in (int, float) or end.__class__ not in (int, float):
        return None
    if not (0 <= start <= _TIME_LARGEST and 0 <= end <= _TIME_LARGEST):  # NaN fails too
        return None
    figures: dict[str, Any] = {}
    get = item.get
    for name, whole, largest in _CHECKS:
        value = get(name)
        if value is not None:
            kind = value.__class__
            if not (kind is int or (kind is float and not whole)) or not 0 <= value <= largest:
                return None
            if not whole:
                value = float(value)
        figures[name] = value
    return Sample(float(start), float(end), flow, **figures)
