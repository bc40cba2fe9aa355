"""Deleted sessions kept for a while (schema 9's sessions.deleted_at): hidden from every list and
look-up at once, restored on Undo, gone with their runs once the time to undo has passed."""

from __future__ import annotations

from collections.abc import Sequence

from app.store.db import Database

#: The schema whose sessions can be deleted and restored (sessions.deleted_at).
DELETABLE_SINCE = 9
#: A session deleted here goes for good when an exchange file brings it in again.
FORGET_DELETED = "DELETE FROM sessions WHERE id = ? AND deleted_at IS NOT NULL"


def not_deleted(db: Database) -> str:
    """The SQL condition of a session (as s) not deleted: a file older than schema 9, read
    without migrating it, has no deleted sessions."""
    return "s.deleted_at IS NULL" if db.version >= DELETABLE_SINCE else "1"


class Trash:
    """The deleted sessions of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def remove(self, session_id: str) -> None:
        """The session and its runs gone at once, without the time to undo it."""
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def put(self, session_ids: Sequence[str], when: str) -> None:
        """Sessions hidden as deleted: restore() brings them back until purge()."""
        with self.db.transaction() as conn:
            conn.executemany(
                "UPDATE sessions SET deleted_at = ? WHERE id = ?", [(when, i) for i in session_ids]
            )

    def restore(self, session_ids: Sequence[str]) -> int:
        """Deleted sessions (not yet gone) shown again; returns how many came back."""
        done = 0
        with self.db.transaction() as conn:
            for session_id in session_ids:
                cursor = conn.execute(
                    "UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL",
                    (session_id,),
                )
                done += cursor.rowcount
        return done

    def deleted(self, since: str) -> list[tuple[str, str]]:
        """(id, when deleted) of the sessions deleted since that moment, newest first: those
        that can still be restored."""
        if self.db.version < DELETABLE_SINCE:
            return []
        rows = self.db.query(
            "SELECT id, deleted_at FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at >= ? "
            "ORDER BY deleted_at DESC",
            (since,),
        )
        return [(row["id"], row["deleted_at"]) for row in rows]

    def purge(self, before: str) -> int:
        """Sessions deleted before that moment go for good, with their runs."""
        if self.db.readonly or self.db.version < DELETABLE_SINCE:
            return 0
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "DELETE FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?", (before,)
            )
            return cursor.rowcount
