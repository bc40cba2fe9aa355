"""Rows of the sessions, runs and samples tables, to and from the typed records: the SQL that
SessionStore runs in its transactions, written once for new runs and imported ones alike."""

from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from math import isfinite
from typing import Any

import psutil

from app.domain.metrics import SAMPLE_FIGURES
from app.domain.net import Flow, IpVersion, Protocol
from app.domain.plan import Peer, RunKey, RunKind
from app.domain.records import (
    METRIC_FIELDS,
    TEXT_METRIC_FIELDS,
    RunMetrics,
    RunRecord,
    SessionRecord,
)
from app.domain.results import LatencySecond, Sample
from app.engine.readings.bounds import LIMITS, beyond
from app.store.schema import LEGACY_RECEIVED_BPS, LEGACY_SENT_BPS
from app.store.stamps import clock_mark

RUN_COLUMNS = (
    "session_id, protocol, ip_version, kind, value_index, value, repetition, status, "
    "error_kind, error, attempts, started_at, ended_at, elapsed_s, engine, engine_version, "
    "argv_json, raw_output, flows_json, clock_step_s, " + ", ".join(METRIC_FIELDS)
)


def readable_run_columns(conn: sqlite3.Connection) -> str:
    """RUN_COLUMNS as a SELECT list for the runs table this connection holds: a file of an
    older schema that is only read (damaged, or being recovered, so never migrated) gives
    NULL for the columns it lacks."""
    try:
        present = {str(row[1]) for row in conn.execute("PRAGMA table_info(runs)")}
    except sqlite3.DatabaseError:
        return RUN_COLUMNS
    return run_columns_for(present)


def run_columns_for(present: set[str]) -> str:
    """RUN_COLUMNS with NULL for the columns not present (none known: all of them)."""
    names = [name.strip() for name in RUN_COLUMNS.split(",")]
    if not present or all(name in present for name in names):
        return RUN_COLUMNS
    return ", ".join(name if name in present else f"NULL AS {name}" for name in names)


SESSION_SELECT = (
    "SELECT s.*, p.host AS peer_host, "
    "coalesce(sum(r.status IN ('ok', 'failed')), 0) AS runs_done, "
    "coalesce(sum(r.status = 'failed'), 0) AS runs_failed, "
    "coalesce(sum(r.status = 'partial'), 0) AS runs_partial "
    "FROM sessions s LEFT JOIN peers p ON p.id = s.peer_id "
    "LEFT JOIN runs r ON r.session_id = s.id"
)


#: The sessions alone, their run counts filled in one by one (a damaged database, where
#: counting every run at once meets the damage).
SESSION_SELECT_BARE = (
    "SELECT s.*, p.host AS peer_host, 0 AS runs_done, 0 AS runs_failed, 0 AS runs_partial "
    "FROM sessions s LEFT JOIN peers p ON p.id = s.peer_id"
)
RUN_COUNTS = (
    "SELECT coalesce(sum(status IN ('ok', 'failed')), 0) AS runs_done, "
    "coalesce(sum(status = 'failed'), 0) AS runs_failed, "
    "coalesce(sum(status = 'partial'), 0) AS runs_partial FROM runs WHERE session_id = ?"
)


def run_from_row(row: sqlite3.Row) -> RunRecord:
    raw = row["raw_output"]
    damaged: tuple[str, ...] = ()
    if isinstance(raw, bytes):  # read as bytes: a damaged page may hold bytes that are not text
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raw, damaged = raw.decode("utf-8", "replace"), ("raw_output",)
    key = RunKey(
        Protocol(row["protocol"]),
        IpVersion(row["ip_version"]),
        row["value_index"],
        row["repetition"],
        RunKind(row["kind"]),
    )
    return RunRecord(
        id=row["id"],
        session_id=row["session_id"],
        key=key,
        value=row["value"],
        ok=row["status"] == "ok",
        error_kind=row["error_kind"],
        error=row["error"],
        attempts=row["attempts"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        elapsed_s=trusted("elapsed_s", row["elapsed_s"]),
        engine=row["engine"],
        engine_version=row["engine_version"],
        argv=tuple(json.loads(row["argv_json"])),
        metrics=RunMetrics(**{name: trusted(name, row[name]) for name in METRIC_FIELDS}),
        raw_output=raw,
        partial=row["status"] == "partial",
        damaged=damaged,
        clock_step_s=clock_mark(row),
    )


def trusted(name: str, value: object) -> Any:
    """A stored figure as the engine's bounds allow it (app.engine.readings.bounds): one
    that is not a number within them (written by an older LinkLab or by hand: inf, NaN, 1e308,
    500 %) is read as unknown, so every view and export shows "—" for it instead of failing."""
    if value is None:
        return None
    largest = _LARGEST.get(name)
    kind = value.__class__
    # What beyond() accepts, decided at once for the common case (a long run's samples are
    # read by the hundred thousand); anything else is left to it.
    if largest is not None and (kind is int or kind is float) and 0 <= value <= largest:  # type: ignore[operator]
        if kind is int or isfinite(value):  # type: ignore[arg-type]
            return value
    if name in TEXT_METRIC_FIELDS:
        return value if isinstance(value, str) else None
    return None if beyond(name, value) is not None else value


#: Each figure's largest value (app.engine.readings.bounds.LIMITS).
_LARGEST = {name: limit[2] for name, limit in LIMITS.items()}


#: A sample's figures as the metric table lists them (the columns of the samples table).
_SAMPLE_FIGURES = tuple(figure.name for figure in SAMPLE_FIGURES)


def sample_from_row(row: sqlite3.Row) -> Sample:
    """One stored interval sample, its figures read as the bounds allow (raises ValueError or
    TypeError for a damaged row, or one whose times cannot be placed on a time axis)."""
    start_s, end_s = row["start_s"], row["end_s"]
    if trusted("start_s", start_s) is None or trusted("end_s", end_s) is None:
        raise ValueError(f"interval {start_s!r}..{end_s!r}")
    return Sample(
        start_s=start_s,
        end_s=end_s,
        flow=Flow(row["flow"]),
        **{name: trusted(name, row[name]) for name in _SAMPLE_FIGURES},
    )


def placeable_samples(rows: list[sqlite3.Row]) -> list[Sample]:
    """The stored samples of these rows, less those whose times no chart can place (written
    by hand, or damaged)."""
    samples = []
    for row in rows:
        try:
            samples.append(sample_from_row(row))
        except (ValueError, TypeError):
            continue
    return samples


def plain(value: object) -> object:
    if hasattr(value, "__dataclass_fields__"):
        return {k: (v.value if hasattr(v, "value") else v) for k, v in asdict(value).items()}  # type: ignore[call-overload]
    return value


def this_owner() -> tuple[str, int, float]:
    pid = os.getpid()
    return socket.gethostname(), pid, psutil.Process(pid).create_time()


INTERRUPTED_REASON = "LinkLab stopped while this session was running."


def owner_gone(row: sqlite3.Row | Mapping[str, Any]) -> bool:
    """Whether the LinkLab that ran a session on this computer is gone (its row's owner)."""
    try:
        host, pid, started = row["owner_host"], row["owner_pid"], row["owner_started"]
    except (KeyError, IndexError):
        return False
    return host in ("", socket.gethostname()) and not owner_alive(pid, started)


def owner_alive(pid: int | None, started: float | None) -> bool:
    if pid is None:
        return False
    try:
        proc = psutil.Process(pid)
        return started is None or abs(proc.create_time() - started) < 1.0
    except psutil.Error:
        return False


@dataclass(frozen=True)
class StoredRun:
    """A run as another database held it: the record, its samples, its flows as JSON, and its
    seconds of working latency."""

    record: RunRecord
    samples: tuple[Sample, ...]
    flows_json: str
    seconds: tuple[LatencySecond, ...] = ()


@dataclass(frozen=True)
class StoredSession:
    record: SessionRecord
    runs: tuple[StoredRun, ...]


def upsert_peer(conn: sqlite3.Connection, peer: Peer, now: str) -> int:
    """The peer's row (its ports by engine as last used), its id."""
    conn.execute(
        "INSERT INTO peers (host, name, last_used) VALUES (?, ?, ?) "
        "ON CONFLICT(host) DO UPDATE SET last_used = excluded.last_used",
        (peer.host, peer.name, now),
    )
    peer_id = int(conn.execute("SELECT id FROM peers WHERE host = ?", (peer.host,)).fetchone()[0])
    conn.executemany(
        "INSERT INTO peer_ports (peer_id, engine, port) VALUES (?, ?, ?) "
        "ON CONFLICT(peer_id, engine) DO UPDATE SET port = excluded.port",
        [(peer_id, engine, port) for engine, port in sorted(peer.ports.items())],
    )
    return peer_id


def insert_run(
    conn: sqlite3.Connection,
    session_id: str,
    key: RunKey,
    value: float | str,
    *,
    ok: bool,
    partial: bool = False,
    error_kind: str,
    error: str,
    attempts: int,
    started_at: str,
    ended_at: str,
    elapsed_s: float | None,
    engine: str,
    engine_version: str,
    argv: Sequence[str],
    raw_output: str,
    flows_json: str,
    metrics: RunMetrics,
    clock_step_s: float | None = None,
) -> int:
    row = (
        session_id,
        key.protocol.value,
        int(key.ip_version),
        key.kind.value,
        key.value_index,
        value,
        key.repetition,
        "partial" if partial else ("ok" if ok else "failed"),
        error_kind,
        error,
        attempts,
        started_at,
        ended_at,
        elapsed_s,
        engine,
        engine_version,
        json.dumps(list(argv)),
        raw_output,
        flows_json,
        clock_step_s,
        *(getattr(metrics, name) for name in METRIC_FIELDS),
    )
    placeholders = ", ".join("?" for _ in row)
    cursor = conn.execute(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({placeholders})", row)
    return int(cursor.lastrowid or 0)


SAMPLE_COLUMNS = "flow, start_s, end_s, " + ", ".join(_SAMPLE_FIGURES)
#: How a file from before schema 5 that is only read (never migrated) gives the two rates
#: from its one bits_per_second, sorted as the migration sorts them.
_LEGACY_RATES = {"sent_bps": LEGACY_SENT_BPS, "received_bps": LEGACY_RECEIVED_BPS}


def readable_sample_columns(conn: sqlite3.Connection) -> str:
    """SAMPLE_COLUMNS as a SELECT list for the samples table this connection holds."""
    try:
        present = {str(row[1]) for row in conn.execute("PRAGMA table_info(samples)")}
    except sqlite3.DatabaseError:
        return SAMPLE_COLUMNS
    return sample_columns_for(present)


def sample_columns_for(present: set[str]) -> str:
    """SAMPLE_COLUMNS for a samples table with these columns (none known: all of them): a
    file of an older schema that is only read (never migrated) gives NULL for the figures
    that arrived later, and one from before schema 5 its one bits_per_second sorted into
    sent and received."""
    if not present or all(name in present for name in _SAMPLE_FIGURES):
        return SAMPLE_COLUMNS
    legacy = "bits_per_second" in present
    columns = ["flow", "start_s", "end_s"]
    for name in _SAMPLE_FIGURES:
        if name in present:
            columns.append(name)
        elif legacy and name in _LEGACY_RATES:
            columns.append(f"{_LEGACY_RATES[name]} AS {name}")
        else:
            columns.append(f"NULL AS {name}")
    return ", ".join(columns)


def insert_samples(
    conn: sqlite3.Connection, run_id: int, samples: Sequence[Sample], first_seq: int = 0
) -> None:
    placeholders = ", ".join("?" for _ in range(5 + len(_SAMPLE_FIGURES)))
    conn.executemany(
        f"INSERT INTO samples (run_id, seq, {SAMPLE_COLUMNS}) VALUES ({placeholders})",
        [
            (
                run_id,
                seq,
                s.flow.value,
                s.start_s,
                s.end_s,
                *(getattr(s, name) for name in _SAMPLE_FIGURES),
            )
            for seq, s in enumerate(samples, start=first_seq)
        ],
    )


def _finite_or_none(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def flows_from_json(text: str | None) -> list[Any]:
    """Stored per-flow totals; NaN or infinite figures (never written by LinkLab, but by hand
    or an older version) read as null, so every export stays strict JSON."""
    try:
        flows = json.loads(text or "[]", parse_float=_finite_or_none, parse_constant=lambda _: None)
    except ValueError:
        return []
    return flows if isinstance(flows, list) else []
