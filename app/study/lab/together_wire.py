"""What a class measured together, as the collector serves it to the instructor (`GET
/v1/together`): the stored rows themselves (the Start together, every part reported, the
stations checked in) and the collector's clock, from which the instructor's LinkLab works the
results out as the collector would (app.study.lab.together_results); the same read straight
from a class store."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.domain.errors import BadOption
from app.store.class_store import ClassStore
from app.study.lab.together import STALE_S, read_together
from app.study.lab.together_results import TogetherResult, together_result

__all__ = ["ROWS_FORMAT", "Waiting", "read_results", "results_from_wire", "rows_to_wire"]

ROWS_FORMAT = "linklab-together-rows"
ROWS_VERSION = 1


@dataclass(frozen=True)
class Waiting:
    """A station checked in, as the instructor sees it before pressing Start together."""

    student: str
    offset_s: float | None
    delay_s: float | None
    clock_problem: str
    waited_s: float  # since it was last heard

    @property
    def fresh(self) -> bool:
        return self.waited_s <= STALE_S


def rows_to_wire(store: ClassStore, together_id: str | None, now: float) -> dict[str, Any]:
    """One Start together (the newest when none is named) and its reports, the stations
    checked in, and this collector's clock."""
    row = store.together(together_id) if together_id else store.newest_together()
    if together_id and row is None:
        raise BadOption(f"This class never measured together as {together_id[:64]!r}.")
    return {
        "format": ROWS_FORMAT,
        "format_version": ROWS_VERSION,
        "now": now,
        "together": row,
        "reports": store.reports(row["id"]) if row else [],
        "checkins": store.checkins(),
    }


def _bad(problem: str) -> BadOption:
    return BadOption(
        f"The collector sent results LinkLab cannot read ({problem}): update LinkLab on both "
        f"computers to the same version."
    )


def results_from_wire(data: object) -> tuple[TogetherResult | None, list[Waiting]]:
    """The results and the stations waiting, worked out from what a collector served."""
    if not isinstance(data, dict) or data.get("format") != ROWS_FORMAT:
        raise _bad("they are not LinkLab's")
    if data.get("format_version") != ROWS_VERSION:
        raise _bad(f"format {data.get('format_version')!r}")
    now = data.get("now")
    if isinstance(now, bool) or not isinstance(now, int | float):
        raise _bad("the collector's clock is missing")
    try:
        waiting = [
            Waiting(
                str(c["student"]),
                None if c["offset_s"] is None else float(c["offset_s"]),
                None if c["delay_s"] is None else float(c["delay_s"]),
                str(c["clock_problem"]),
                float(now) - float(c["seen_at"]),
            )
            for c in data.get("checkins") or []
        ]
        row = data.get("together")
        if row is None:
            return None, waiting
        reports = data.get("reports") or []
        for report in reports:
            json.loads(report["body_json"])["figures"]
        return together_result(read_together(row), reports, float(now)), waiting
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration):
        raise _bad("a row is not one LinkLab wrote") from None


def read_results(
    store: ClassStore, together_id: str | None, now: float
) -> tuple[TogetherResult | None, list[Waiting]]:
    """The same, read from a class store directly."""
    return results_from_wire(json.loads(json.dumps(rows_to_wire(store, together_id, now))))
