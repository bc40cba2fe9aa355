"""The stored sessions of one database as the front door opens them: listed and searched, read
(runs, samples, a monitor over time), renamed and tagged, deleted (never a running one) and
restored within a day, written to and read from exchange files."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from app.domain.errors import BadOption
from app.domain.records import RunRecord, SessionList, SessionRecord, SessionStatus, iso, utc_now
from app.domain.results import Sample
from app.domain.tags import parse_tags
from app.store.db import Opener, StoreError
from app.store.sessions import SessionStore
from app.store.trash import Trash
from app.study.sweep.listing import matches, unreadable_matches
from app.study.sweep.monitor_record import MonitorRecord, read_monitor

#: How long a deleted session can still be restored (Undo); then its rows go.
DELETED_KEPT = dt.timedelta(days=1)


def undo_ends() -> str:
    """Sessions deleted before this moment can no longer be restored."""
    return iso(dt.datetime.now(dt.UTC) - DELETED_KEPT)


class DeleteRefused(StoreError):
    """A running session cannot be deleted."""


@dataclass(frozen=True)
class SessionName:
    id: str
    name: str


@dataclass(frozen=True)
class ImportedFile:
    imported: tuple[SessionName, ...]
    skipped: tuple[SessionName, ...]


class StoredSessions:
    """The sessions of one database; every method opens its own connection, so a window may
    call them from any thread."""

    def __init__(self, db_path: Path, open_db: Opener) -> None:
        self.db_path = db_path
        self._open = open_db

    # -- reading -----------------------------------------------------------------------------
    def readable(self, search: str = "", status: str | None = None) -> list[SessionRecord]:
        """The sessions that can be read (listing() adds those that cannot)."""
        return list(self.listing(search, status).sessions)

    def listing(self, search: str = "", status: str | None = None) -> SessionList:
        """Every session (of a status), newest first, those that cannot be read listed apart;
        with a search, those whose row shows it in their name, peer or conditions, or whose
        id starts with it (app.study.sweep.listing)."""
        if not self.db_path.is_file():
            return SessionList(())
        with self._open(write=False) as db:
            listed = SessionStore(db).listing(status)
        return SessionList(
            tuple(s for s in listed.sessions if matches(s, search)),
            tuple(u for u in listed.unreadable if unreadable_matches(u, search)),
        )

    def get(self, ref: str) -> SessionRecord:
        """A session by its id, a unique id prefix or its exact name."""
        with self._open(write=False) as db:
            return SessionStore(db).get(ref)

    def runs(
        self, session_id: str, *, with_raw: bool = False, partial: bool = False
    ) -> list[RunRecord]:
        """The session's finished runs; partial=True adds those that never finished."""
        with self._open(write=False) as db:
            return SessionStore(db).runs(session_id, with_raw=with_raw, partial=partial)

    def samples(self, run_id: int) -> list[Sample]:
        """A run's interval samples, in order."""
        with self._open(write=False) as db:
            return SessionStore(db).samples(run_id)

    def monitor(self, session: SessionRecord) -> MonitorRecord:
        """A stored monitor: every run, its intervals and its seconds of working latency."""
        with self._open(write=False) as db:
            return read_monitor(SessionStore(db), session)

    # -- changing ----------------------------------------------------------------------------
    def rename(self, ref: str, name: str) -> SessionRecord:
        name = name.strip()
        if not name:
            raise BadOption("A session needs a name: type one.")
        with self._open(write=True) as db:
            store = SessionStore(db)
            session = store.get(ref)
            store.rename(session.id, name)
            return store.get(session.id)

    def tag(
        self,
        ref: str,
        tags: str | Mapping[str, str] = "",
        *,
        remove: Sequence[str] = (),
        replace_all: bool = False,
        notes: str | None = None,
    ) -> SessionRecord:
        """Add tags (text in the one tag syntax, or a mapping), remove some by key, or replace
        them all; notes, when given, replace the session's notes."""
        new = parse_tags(tags) if isinstance(tags, str) else dict(tags)
        with self._open(write=True) as db:
            store = SessionStore(db)
            session = store.get(ref)
            conditions = session.plan.conditions
            merged = new if replace_all else {**conditions.tag_dict, **new}
            for key in remove:
                merged.pop(key, None)
            conditions = conditions.with_tags(merged)
            if notes is not None:
                conditions = replace(conditions, notes=notes.strip())
            store.set_conditions(session.id, conditions)
            return store.get(session.id)

    # -- deleting and restoring --------------------------------------------------------------
    def delete(self, refs: Sequence[str]) -> list[SessionRecord]:
        """Delete sessions and all their runs; refuses (deleting none) while one is running.
        They are hidden at once and can be restored for DELETED_KEPT; then they go for good
        (sessions deleted longer ago go now)."""
        with self._open(write=True) as db:
            store = SessionStore(db)
            store.mark_interrupted()  # one left "running" by a LinkLab that is gone is not
            chosen = [store.get(ref) for ref in refs]
            for session in chosen:
                if session.status is SessionStatus.RUNNING:
                    raise DeleteRefused(
                        f"{session.name or session.short_id} is still running: stop it first, "
                        f"then delete it."
                    )
            trash = Trash(db)
            trash.purge(undo_ends())
            trash.put([s.id for s in chosen], utc_now())
            return chosen

    def restore(self, session_ids: Sequence[str]) -> int:
        """Sessions deleted within DELETED_KEPT back in the list; returns how many came back."""
        with self._open(write=True) as db:
            return Trash(db).restore(session_ids)

    def recently_deleted(self) -> list[tuple[SessionRecord, str]]:
        """The sessions deleted within DELETED_KEPT (restore brings them back), each with the
        moment it was deleted, newest first."""
        if not self.db_path.is_file():
            return []
        with self._open(write=False) as db:
            return SessionStore(db).deleted_since(undo_ends())

    def restore_one(self, ref: str) -> SessionRecord:
        """A deleted session, by its id or id prefix, back in the list."""
        with self._open(write=True) as db:
            store = SessionStore(db)
            session = store.get(ref, deleted=True)
            if not Trash(db).restore([session.id]):
                raise BadOption(f"Session {session.short_id} is not deleted: nothing to restore.")
            return store.get(session.id)

    # -- exchange files ----------------------------------------------------------------------
    def export(self, refs: Sequence[str], path: Path, notes: list[str] | None = None) -> list[str]:
        """Sessions to a .linklab exchange file, streamed; their ids (notes: export_sessions)."""
        from app.study.files.exchange_write import export_file

        with self._open(write=False) as db:
            return export_file(SessionStore(db), refs, path, notes)

    def import_file(self, path: Path) -> ImportedFile:
        """The sessions of an exchange file, streamed, checked whole before the database takes
        any, all or nothing (exchange.import_file); those already here are skipped."""
        from app.study.files.exchange import import_file

        with self._open(write=True):  # one that cannot take them says so before the file is read
            pass
        result = import_file(path, self.db_path, lambda: self._open(write=True))
        return ImportedFile(
            tuple(SessionName(sid, result.names.get(sid, "")) for sid in result.imported),
            tuple(SessionName(sid, result.names.get(sid, "")) for sid in result.skipped),
        )
