"""A stored run's figures worked out again from its raw engine output: how a class view tells
a hand-in whose stored numbers were edited from one that is as measured."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.plan import Engine
from app.domain.results import RunSummary
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import EngineError


def reparsed_throughput(engine: str, argv: Sequence[str], raw_output: str) -> float | None:
    """The delivered throughput (bit/s) the raw output states, parsed as the run was; None
    when it states none or cannot be parsed."""
    try:
        driver = DRIVERS[Engine(engine)]
    except ValueError:
        return None
    parser = driver.parser_for(argv)
    if parser is None:
        return None
    summary = None
    try:
        for event in parser(raw_output.splitlines()):
            if isinstance(event, RunSummary):
                summary = event
    except EngineError:
        return None
    if summary is None:
        return None
    known = [f.throughput_bps for f in summary.flows if f.throughput_bps is not None]
    return sum(known) if known else None
