"""A responsiveness test through the front door as a worker's events: its progress, then its
result, kept in the database before it is shown (the card and the Sessions list appear
together)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from app.domain.errors import LinkLabError
from app.domain.plan import Peer
from app.engine.errors import StoppedByUser
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.kept import KeptResult
from app.study.responsiveness.results import (
    ResponsivenessEvent,
    ResponsivenessResult,
    ResponsivenessSettings,
)
from app.ui.common.worker import Stop, Worker


@dataclass(frozen=True)
class NotKept:
    """The result could not be stored (it is still shown): why."""

    sentence: str


@dataclass(frozen=True)
class ResponsivenessStopped:
    """Stopped by the user: no result."""


WorkerEvent = (
    ResponsivenessEvent | ResponsivenessResult | KeptResult | NotKept | ResponsivenessStopped
)


def responsiveness_events(
    door: FrontDoor, peer: Peer, settings: ResponsivenessSettings, stop: Stop
) -> Generator[WorkerEvent, None, None]:
    """Stop ends the test within about a second."""
    test = door.responsiveness(peer, settings)
    stop.on_request(test.stop)
    try:
        result = yield from test.events()
    except StoppedByUser:
        yield ResponsivenessStopped()
        return
    try:
        kept = door.results().keep(result, settings)
    except LinkLabError as err:
        yield result
        yield NotKept(err.sentence)
    else:
        yield result
        yield kept


def responsiveness_worker(door: FrontDoor, peer: Peer, settings: ResponsivenessSettings) -> Worker:
    """Runs one test."""
    return Worker(lambda stop: responsiveness_events(door, peer, settings, stop), "responsiveness")
