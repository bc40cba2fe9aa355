"""Kept responsiveness results: one row per test, one per load direction, one per step of the
ramp with its probes' round trips (schema 8). Rows go in and out as plain values; the study
layer turns them into its typed result."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.errors import BadOption
from app.store.db import Database, StoreError

__all__ = ["LoadRow", "ResponsivenessStore", "ResultRow", "StepRow", "insert_result"]

_HEADER = (
    "id, name, host, this_computer, method, method_sentence, idle_latency_ms, idle_answered, "
    "elapsed_s, settings_json, notes_json, created_at, app_version"
)
_LOAD = "phase, loaded_latency_ms, confidence, goodput_bps, flows, answered, lost, stable"
_STEP = "phase, step, flows, goodput_bps, latency_ms, answered, lost, start_s, end_s, rtts_json"


@dataclass(frozen=True)
class StepRow:
    phase: str
    step: int  # 1, 2, ... within its phase
    flows: int
    goodput_bps: float | None
    latency_ms: float | None
    answered: int
    lost: int
    start_s: float
    end_s: float
    rtts_ms: tuple[float, ...]


@dataclass(frozen=True)
class LoadRow:
    phase: str
    loaded_latency_ms: float | None
    confidence: str
    goodput_bps: float | None
    flows: int
    answered: int
    lost: int
    stable: bool


@dataclass(frozen=True)
class ResultRow:
    id: str
    name: str
    host: str
    this_computer: bool
    method: str
    method_sentence: str
    idle_latency_ms: float
    idle_answered: int
    elapsed_s: float
    settings_json: str
    notes: tuple[str, ...]
    created_at: str
    app_version: str
    loads: tuple[LoadRow, ...]
    steps: tuple[StepRow, ...] = ()  # empty when listed: read with get()


def insert_result(conn: sqlite3.Connection, row: ResultRow) -> None:
    """The result's rows, inside the caller's transaction."""
    conn.execute(
        f"INSERT INTO responsiveness ({_HEADER}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.id,
            row.name,
            row.host,
            int(row.this_computer),
            row.method,
            row.method_sentence,
            row.idle_latency_ms,
            row.idle_answered,
            row.elapsed_s,
            row.settings_json,
            json.dumps(list(row.notes)),
            row.created_at,
            row.app_version,
        ),
    )
    conn.executemany(
        f"INSERT INTO responsiveness_loads (result_id, {_LOAD}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                row.id,
                r.phase,
                r.loaded_latency_ms,
                r.confidence,
                r.goodput_bps,
                r.flows,
                r.answered,
                r.lost,
                int(r.stable),
            )
            for r in row.loads
        ],
    )
    conn.executemany(
        f"INSERT INTO responsiveness_steps (result_id, {_STEP}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                row.id,
                s.phase,
                s.step,
                s.flows,
                s.goodput_bps,
                s.latency_ms,
                s.answered,
                s.lost,
                s.start_s,
                s.end_s,
                json.dumps(list(s.rtts_ms)),
            )
            for s in row.steps
        ],
    )


def _finite(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _rtts(text: str) -> tuple[float, ...]:
    try:
        values = json.loads(text or "[]")
    except ValueError:
        return ()  # damaged by hand: the step's own figures still stand
    if not isinstance(values, list):
        return ()
    return tuple(v for v in (_finite(x) for x in values) if v is not None and v >= 0)


def _notes(text: str) -> tuple[str, ...]:
    try:
        notes = json.loads(text or "[]")
    except ValueError:
        return ()
    return tuple(n for n in notes if isinstance(n, str)) if isinstance(notes, list) else ()


class ResponsivenessStore:
    """The kept responsiveness results of one Database connection."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def present(self) -> bool:
        """Whether the file has the tables (an older file that is only read has none)."""
        if not self.db.readonly:
            return True  # a writable file was migrated when it opened
        rows = self.db.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responsiveness'"
        )
        return bool(rows)

    def add(self, row: ResultRow) -> None:
        with self.db.transaction() as conn:
            insert_result(conn, row)

    def list_rows(self, search: str = "") -> list[ResultRow]:
        """Every result (newest first) with its loads, not its steps."""
        if not self.present:
            return []
        where, params = "", tuple[str, ...]()
        if search:
            like = f"%{search}%"
            # As the sessions' search: the words the row shows, or the id from 4 characters.
            wanted = search.strip().lower()
            where = " WHERE name LIKE ? OR host LIKE ? OR (length(?) >= 4 AND id LIKE ?)"
            params = (like, like, wanted, f"{wanted}%")
        headers = self.db.query(
            f"SELECT {_HEADER} FROM responsiveness{where} ORDER BY created_at DESC", params
        )
        loads: dict[str, list[LoadRow]] = {}
        for r in self.db.query(f"SELECT result_id, {_LOAD} FROM responsiveness_loads"):
            loads.setdefault(r["result_id"], []).append(_load(r))
        return [_header(h, loads.get(h["id"], []), []) for h in headers]

    def get(self, ref: str) -> ResultRow:
        """A result by its id, a unique id prefix (4+ characters) or its exact name, with
        its loads and steps."""
        found = self.find(ref)
        if found is None:
            raise BadOption(
                f"No responsiveness result {ref!r} in {self.db.path}: `linklab sessions list` "
                f"shows them."
            )
        return found

    def find(self, ref: str) -> ResultRow | None:
        """As get(), None when nothing matches."""
        if not self.present:
            return None
        ref = ref.strip()
        rows: list[sqlite3.Row] = []
        if len(ref) >= 4:
            rows = self.db.query(
                f"SELECT {_HEADER} FROM responsiveness WHERE id LIKE ?", (ref.lower() + "%",)
            )
        if not rows:
            rows = self.db.query(f"SELECT {_HEADER} FROM responsiveness WHERE name = ?", (ref,))
        if len(rows) > 1:
            raise BadOption(
                f"{ref!r} matches {len(rows)} responsiveness results: give more of the id."
            )
        if not rows:
            return None
        rid = rows[0]["id"]
        loads = self.db.query(
            f"SELECT {_LOAD} FROM responsiveness_loads WHERE result_id = ?", (rid,)
        )
        steps = self.db.query(
            f"SELECT {_STEP} FROM responsiveness_steps WHERE result_id = ? ORDER BY phase, step",
            (rid,),
        )
        return _header(rows[0], [_load(r) for r in loads], [_step(s) for s in steps])

    def rename(self, result_id: str, name: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE responsiveness SET name = ? WHERE id = ?", (name[:200], result_id))

    def delete(self, result_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM responsiveness WHERE id = ?", (result_id,))

    def known(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids are kept here already."""
        if not self.present or not ids:
            return set()
        marks = ", ".join("?" * len(ids))
        rows = self.db.query(f"SELECT id FROM responsiveness WHERE id IN ({marks})", tuple(ids))
        return {r["id"] for r in rows}


def _header(h: sqlite3.Row, loads: list[LoadRow], steps: list[StepRow]) -> ResultRow:
    try:
        return ResultRow(
            id=h["id"],
            name=h["name"],
            host=h["host"],
            this_computer=bool(h["this_computer"]),
            method=h["method"],
            method_sentence=h["method_sentence"],
            idle_latency_ms=float(h["idle_latency_ms"]),
            idle_answered=int(h["idle_answered"]),
            elapsed_s=float(h["elapsed_s"]),
            settings_json=h["settings_json"],
            notes=_notes(h["notes_json"]),
            created_at=h["created_at"],
            app_version=h["app_version"],
            loads=tuple(loads),
            steps=tuple(steps),
        )
    except (TypeError, ValueError) as err:
        raise StoreError(
            f"The responsiveness result {str(h['id'])[:8]} in the database is damaged ({err}): "
            f"delete it, or restore a backup."
        ) from None


def _load(r: sqlite3.Row) -> LoadRow:
    return LoadRow(
        phase=r["phase"],
        loaded_latency_ms=_finite(r["loaded_latency_ms"]),
        confidence=r["confidence"],
        goodput_bps=_finite(r["goodput_bps"]),
        flows=int(r["flows"]),
        answered=int(r["answered"]),
        lost=int(r["lost"]),
        stable=bool(r["stable"]),
    )


def _step(s: sqlite3.Row) -> StepRow:
    return StepRow(
        phase=s["phase"],
        step=int(s["step"]),
        flows=int(s["flows"]),
        goodput_bps=_finite(s["goodput_bps"]),
        latency_ms=_finite(s["latency_ms"]),
        answered=int(s["answered"]),
        lost=int(s["lost"]),
        start_s=float(s["start_s"]),
        end_s=float(s["end_s"]),
        rtts_ms=_rtts(s["rtts_json"]),
    )
