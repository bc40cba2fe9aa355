"""What a list of sessions shows of each (its name, peer and conditions in words) and the one
search over it: a session matches what a person can read in its row, never a field they
cannot see (the stored conditions' keys), or the start of its id."""

from __future__ import annotations

from app.domain.records import SessionRecord, UnreadableSession
from app.study.sweep.describe import describe_conditions

UNTITLED = "Untitled session"
#: An id is searched from this many characters (as a session is named by its id prefix).
ID_PREFIX_MIN = 4


def listed_name(session: SessionRecord) -> str:
    return session.name or UNTITLED


def listed_peer(session: SessionRecord) -> str:
    return session.plan.peer.name or session.peer_host


def listed_words(session: SessionRecord) -> tuple[str, str, str]:
    """The name, the peer and the conditions, as a session's row shows them."""
    return listed_name(session), listed_peer(session), describe_conditions(session.conditions)


def shows(session: SessionRecord, search: str) -> bool:
    """Whether its row shows the text (in any case) in its name, peer or conditions."""
    wanted = search.strip().casefold()
    return any(wanted in words.casefold() for words in listed_words(session))


def by_id(session: SessionRecord | UnreadableSession, search: str) -> bool:
    """Whether the text is the start of its id (ID_PREFIX_MIN characters or more)."""
    wanted = search.strip().lower()
    return len(wanted) >= ID_PREFIX_MIN and session.id.startswith(wanted)


def matches(session: SessionRecord, search: str) -> bool:
    """The search of every list of sessions: what its row shows, or its id's start."""
    return not search.strip() or shows(session, search) or by_id(session, search)


def unreadable_shows(row: UnreadableSession, search: str) -> bool:
    """Whether the row of a session that cannot be read shows the text: in its name (the
    rest of its row says only that it cannot be read)."""
    return search.strip().casefold() in (row.name or UNTITLED).casefold()


def unreadable_matches(row: UnreadableSession, search: str) -> bool:
    """The same search for a session that cannot be read: its name, or its id's start."""
    return not search.strip() or unreadable_shows(row, search) or by_id(row, search)
