"""Responsiveness results kept like sessions: a finished test stored with each step of its
ramp, listed, read back, renamed and deleted, for the window and the command line alike."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app import __version__
from app.analysis.responsiveness import Rating, rating, rpm
from app.analysis.saturation import Confidence
from app.domain.errors import BadOption
from app.domain.plan import THIS_COMPUTER
from app.domain.records import utc_now
from app.engine.latency.probe_results import LatencyMethod
from app.store.db import Opener, StoreError
from app.store.responsiveness import LoadRow, ResponsivenessStore, ResultRow, StepRow
from app.study.responsiveness.results import (
    LOAD_PHASES,
    LoadResult,
    Phase,
    ResponsivenessResult,
    ResponsivenessSettings,
    Step,
)

KIND = "responsiveness"


@dataclass(frozen=True)
class KeptResult:
    """A stored responsiveness test. Listed ones carry their loads without the steps."""

    id: str
    name: str
    created_at: str
    app_version: str
    result: ResponsivenessResult
    settings: ResponsivenessSettings | None = None

    @property
    def short_id(self) -> str:
        return self.id[:8]

    @property
    def this_computer(self) -> bool:
        return self.result.host == THIS_COMPUTER

    @property
    def peer_name(self) -> str:
        """The peer as the window names it: "this computer", or its host."""
        return "this computer" if self.this_computer else self.result.host

    @property
    def steps(self) -> int:
        return sum(len(load.steps) for load in self.result.loads)

    def shows(self, search: str) -> bool:
        """Whether its row shows the text (in any case): its name or its host, what a search
        of the list matches besides the start of its id."""
        wanted = search.strip().casefold()
        return wanted in self.name.casefold() or wanted in self.result.host.casefold()

    def summary(self) -> dict[str, Any]:
        """The fields of `linklab sessions --json` for this result (kind "responsiveness")."""
        data = self.result.to_dict()
        return {
            "kind": KIND,
            "session_id": self.id,
            "name": self.name,
            "status": "completed",
            "peer": self.result.host,
            "created_at": self.created_at,
            "idle_latency_ms": data["idle_latency_ms"],
            "loaded_latency_ms": data["loaded_latency_ms"],
            "rpm": data["rpm"],
            "rating": data["rating"],
            "both": data["both"],
            "method": data["method"],
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole result (`linklab sessions show ID --json`): the summary, the test's
        settings, and per direction each step of the ramp."""
        return {
            **self.summary(),
            **{k: v for k, v in self.result.to_dict().items() if k not in ("peer",)},
            "app_version": self.app_version,
            "settings": asdict(self.settings) if self.settings else None,
            "steps": {
                load.phase.value: [step_dict(step) for step in load.steps]
                for load in self.result.loads
            },
        }


def step_dict(step: Step) -> dict[str, Any]:
    return {
        "flows": step.flows,
        "start_s": round(step.start_s, 3),
        "end_s": round(step.end_s, 3),
        "goodput_bps": None if step.goodput_bps is None else round(step.goodput_bps),
        "latency_ms": None if step.latency_ms is None else round(step.latency_ms, 3),
        "probes_answered": step.answered,
        "probes_lost": step.lost,
    }


def default_name(result: ResponsivenessResult, created_at: str = "") -> str:
    """ "Responsiveness to 10.0.0.5 at 14:02:31": two tests of one peer differ by their time
    (this computer's clock), so a comparison of the two can tell them apart."""
    when = local_time(created_at)
    return f"Responsiveness to {result.host}" + (f" at {when}" if when else "")


def local_time(created_at: str) -> str:
    """A stored UTC time as this computer's clock reads it ("14:02:31"); "" when unreadable."""
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%H:%M:%S")


# -- to and from the store's rows ------------------------------------------------------------
def to_row(
    result: ResponsivenessResult,
    settings: ResponsivenessSettings | None,
    *,
    name: str = "",
    result_id: str = "",
    created_at: str = "",
    app_version: str = __version__,
) -> ResultRow:
    loads = tuple(
        LoadRow(
            phase=load.phase.value,
            loaded_latency_ms=load.loaded_latency_ms,
            confidence=load.confidence.value,
            goodput_bps=load.goodput_bps,
            flows=load.flows,
            answered=load.answered,
            lost=load.lost,
            stable=load.stable,
        )
        for load in result.loads
    )
    steps = tuple(
        StepRow(
            phase=load.phase.value,
            step=number,
            flows=step.flows,
            goodput_bps=step.goodput_bps,
            latency_ms=step.latency_ms,
            answered=step.answered,
            lost=step.lost,
            start_s=step.start_s,
            end_s=step.end_s,
            rtts_ms=step.rtts_ms,
        )
        for load in result.loads
        for number, step in enumerate(load.steps, 1)
    )
    created_at = created_at or utc_now()
    return ResultRow(
        id=result_id or uuid.uuid4().hex,
        name=(name.strip() or default_name(result, created_at))[:200],
        host=result.host,
        this_computer=result.host == THIS_COMPUTER,
        method=result.method.value,
        method_sentence=result.method_sentence,
        idle_latency_ms=result.idle_latency_ms,
        idle_answered=result.idle_answered,
        elapsed_s=result.elapsed_s,
        settings_json=json.dumps(asdict(settings)) if settings else "{}",
        notes=result.notes,
        created_at=created_at,
        app_version=app_version,
        loads=loads,
        steps=steps,
    )


def load_from_row(row: LoadRow, steps: Sequence[StepRow]) -> LoadResult:
    latency = row.loaded_latency_ms
    value = rpm(latency) if latency is not None and latency > 0 else None
    return LoadResult(
        phase=Phase(row.phase),
        loaded_latency_ms=latency,
        rpm=value,
        rating=rating(value) if value is not None else Rating.POOR,
        confidence=Confidence(row.confidence),
        goodput_bps=row.goodput_bps,
        flows=row.flows,
        answered=row.answered,
        lost=row.lost,
        stable=row.stable,
        steps=tuple(
            Step(
                s.flows,
                s.goodput_bps,
                s.latency_ms,
                s.answered,
                s.lost,
                s.start_s,
                s.end_s,
                s.rtts_ms,
            )
            for s in sorted(steps, key=lambda s: s.step)
            if s.phase == row.phase
        ),
    )


def settings_from_json(text: str) -> ResponsivenessSettings | None:
    try:
        data = json.loads(text or "{}")
        return ResponsivenessSettings(**data) if data else None
    except (ValueError, TypeError, BadOption):
        return None  # damaged, or of another LinkLab: the figures stand without it


def from_row(row: ResultRow) -> KeptResult:
    try:
        order = {phase.value: n for n, phase in enumerate(LOAD_PHASES)}
        loads = sorted(row.loads, key=lambda r: order.get(r.phase, 9))
        result = ResponsivenessResult(
            host=row.host,
            method=LatencyMethod(row.method),
            method_sentence=row.method_sentence,
            idle_latency_ms=row.idle_latency_ms,
            idle_answered=row.idle_answered,
            loads=tuple(load_from_row(load, row.steps) for load in loads),
            elapsed_s=row.elapsed_s,
            notes=row.notes,
        )
    except ValueError as err:
        raise StoreError(
            f"The responsiveness result {row.id[:8]} in the database is damaged ({err}): "
            f"delete it, or restore a backup."
        ) from None
    return KeptResult(
        row.id,
        row.name,
        row.created_at,
        row.app_version,
        result,
        settings_from_json(row.settings_json),
    )


# -- the shelf of kept results -----------------------------------------------------------------
class KeptResults:
    """The responsiveness results of one database; every method opens its own connection."""

    def __init__(self, db_path: Path, opener: Opener) -> None:
        self.db_path = db_path
        self._open = opener

    def keep(
        self,
        result: ResponsivenessResult,
        settings: ResponsivenessSettings | None = None,
        name: str = "",
    ) -> KeptResult:
        """Store a finished test (with every step of its ramp) and return it as kept."""
        row = to_row(result, settings, name=name)
        with self._open(write=True) as db:
            ResponsivenessStore(db).add(row)
        return replace(from_row(row), result=result)

    def kept(self, search: str = "") -> list[KeptResult]:
        if not self.db_path.is_file():
            return []
        with self._open(write=False) as db:
            return [from_row(row) for row in ResponsivenessStore(db).list_rows(search)]

    def find(self, ref: str) -> KeptResult | None:
        if not self.db_path.is_file():
            return None
        with self._open(write=False) as db:
            row = ResponsivenessStore(db).find(ref)
        return None if row is None else from_row(row)

    def get(self, ref: str) -> KeptResult:
        found = self.find(ref)
        if found is None:
            raise BadOption(
                f"No responsiveness result {ref!r} in {self.db_path}: `linklab sessions list` "
                f"shows them."
            )
        return found

    def rename(self, ref: str, name: str) -> KeptResult:
        name = name.strip()
        if not name:
            raise BadOption("A result needs a name: type one.")
        kept = self.get(ref)
        with self._open(write=True) as db:
            ResponsivenessStore(db).rename(kept.id, name)
        return replace(kept, name=name[:200])

    def delete(self, refs: Sequence[str]) -> list[KeptResult]:
        chosen = [self.get(ref) for ref in refs]
        with self._open(write=True) as db:
            store = ResponsivenessStore(db)
            for kept in chosen:
                store.delete(kept.id)
        return chosen


def lookup(
    ref: str, session: Callable[[str], Any], results: KeptResults
) -> Any:  # SessionRecord | KeptResult
    """The session or the responsiveness result a reference names (an id, a unique id prefix
    or an exact name); one sentence when it names neither, or both."""
    said: BadOption | None = None
    try:
        found_session = session(ref)
    except BadOption as err:
        found_session, said = None, err
    found_result = results.find(ref)
    if found_session is not None and found_result is not None:
        raise BadOption(
            f"{ref!r} names a session and a responsiveness result: give more of the id."
        )
    if found_result is not None:
        return found_result
    if said is not None:
        raise said
    return found_session


__all__ = [
    "KIND",
    "KeptResult",
    "KeptResults",
    "default_name",
    "from_row",
    "lookup",
    "step_dict",
    "to_row",
]
