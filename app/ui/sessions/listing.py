"""The Sessions list as it is read in the background: its rows (sessions, those that cannot be
read, kept responsiveness results), newest first, the session on view read again, and what of
each damaged session cannot be read, in a sentence."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.domain.records import SessionList
from app.store.damage import damage_sentence, unreadable_sentence
from app.study.frontdoor import FrontDoor
from app.ui.sessions.table_model import Row, row_time
from app.ui.sessions.view import ViewData, view_data


@dataclass(frozen=True)
class Listed:
    rows: list[Row]
    view: ViewData | None
    #: Session id -> what of it cannot be read, and what to do.
    problems: dict[str, str]


def problems(listing: SessionList, path: Path) -> dict[str, str]:
    found = {s.id: damage_sentence(s, path) for s in listing.sessions if s.damaged}
    return found | {u.id: unreadable_sentence(u, path) for u in listing.unreadable}


def read_listing(door: FrontDoor, search: str, status: str | None, on_view: str | None) -> Listed:
    """Off the GUI thread: the list, and the session on view (when still listed) read again."""
    listing = door.sessions().listing(search, status)
    shown = next((s for s in listing.sessions if s.id == on_view), None)
    # A result is a finished test: listed unless another status is asked for.
    results = door.results().kept(search) if status in (None, "completed") else []
    rows: list[Row] = [*listing.sessions, *listing.unreadable, *results]
    rows.sort(key=row_time, reverse=True)
    view = view_data(door, shown) if shown is not None else None
    return Listed(rows, view, problems(listing, door.db_path))
