"""A work that yields typed events as it goes (a study, a monitor, a responsiveness test) and
returns its result at the end: drive() reads one to the end, for the command line and for
callers that want only the result."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TypeVar

__all__ = ["drive"]

E = TypeVar("E")
R = TypeVar("R")


def drive(events: Generator[E, None, R], each: Callable[[E], object] | None = None) -> R:
    """Read the events to the end, each handed to each() as it comes; what the generator
    returns."""
    while True:
        try:
            event = next(events)
        except StopIteration as end:
            result: R = end.value
            return result
        if each is not None:
            each(event)
