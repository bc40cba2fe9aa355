"""The database's check at start-up (and when another file is chosen): the whole file read
once, why nothing can be saved to it if so (damaged, not a LinkLab file, a read-only folder,
a newer LinkLab's), sessions deleted past their time to undo purged, sessions left running by
a LinkLab that is gone marked interrupted, scratch files of imports that ended removed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.store.db import Database, StoreCorrupt, StoreDamaged, unwritable_words
from app.store.incoming import remove_left_scratch
from app.store.sessions import SessionStore
from app.store.trash import Trash


@dataclass(frozen=True)
class Checked:
    #: Why nothing can be saved to the database (None: it can be).
    unwritable: str | None
    #: Sessions found left running by a LinkLab that is gone, now interrupted.
    interrupted: int = 0


def check_database(path: Path, purge_before: str) -> Checked:
    """Reads the whole file: never on a GUI thread."""
    remove_left_scratch(path)
    if not path.is_file():  # made by the first session: where it can be
        return Checked(unwritable_words(path) or None)
    try:
        with Database(path, verify=True) as db:  # the one full check of the file
            Trash(db).purge(purge_before)
            return Checked(db.why_readonly or None, SessionStore(db).mark_interrupted())
    except StoreDamaged as err:
        return Checked(err.sentence)  # read-only from now on; reads still work
    except StoreCorrupt as err:
        return Checked(err.sentence)  # not a LinkLab file: nothing is read or written
