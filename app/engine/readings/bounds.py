"""Physical bounds every figure from an engine must keep before a run may be stored, as the
metric table states them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields

from app.domain.metrics import FIGURES
from app.domain.results import FlowSummary, RunSummary, Sample
from app.domain.units import plain_rate

#: Figure name -> (what it is, unit, largest possible value): the metric table's bounds
#: (app.domain.metrics.FIGURES). Every numeric field of Sample, FlowSummary, RunSummary and
#: RunMetrics is there (a test holds to that), so none goes unchecked.
LIMITS: Mapping[str, tuple[str, str, float]] = {
    f.name: (f.what, f.unit, f.largest) for f in FIGURES if f.kind is not str
}


def impossible(item: Sample | FlowSummary | RunSummary) -> tuple[str, str] | None:
    """(what, value with its unit) for the first figure out of bounds, or None when all fit."""
    for spec in fields(item):
        value = getattr(item, spec.name)
        if isinstance(value, tuple):
            for flow in value:
                if isinstance(flow, FlowSummary) and (found := impossible(flow)) is not None:
                    return found
            continue
        if spec.name not in LIMITS or value is None or isinstance(value, bool):
            continue
        what, unit, largest = LIMITS[spec.name]
        if not isinstance(value, int | float):
            return what, repr(value)
        if not (math.isfinite(value) and 0 <= value <= largest):
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            return what, f"{shown} {unit}".rstrip()
    lost, packets = getattr(item, "lost_packets", None), getattr(item, "packets", None)
    if isinstance(lost, int) and isinstance(packets, int) and lost > packets:
        return "loss", f"{lost} of {packets} datagrams"
    return None


def beyond(name: str, value: object) -> tuple[str, str] | None:
    """(what, value with its unit) when a figure named in LIMITS is not a number within its
    bounds; None when it fits (or is missing, or has no bounds)."""
    limit = LIMITS.get(name)
    if limit is None or value is None:
        return None
    what, unit, largest = limit
    if isinstance(value, bool) or not isinstance(value, int | float):
        return what, repr(value)[:40]
    try:
        fits = math.isfinite(value) and 0 <= value <= largest
    except OverflowError:  # an integer beyond any float
        fits = False
    if fits:
        return None
    shown = f"{value:g}" if isinstance(value, float) else str(value)[:40]
    return what, f"{shown} {unit}".rstrip()


def limit(name: str) -> str:
    """The bounds of a figure in words: 'from 0 to 100 %', 'from 0 to 1e+13 bit/s'."""
    _, unit, largest = LIMITS[name]
    if math.isinf(largest):
        return "0 or more, finite"
    if unit == "bit/s":
        return f"from 0 to {plain_rate(largest)}"
    return f"from 0 to {largest:g} {unit}".rstrip()
