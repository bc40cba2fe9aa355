"""The front door: one database's studies, stored sessions, responsiveness tests and results
and lab exercises, each opened here and decided once for the window and the command line
alike; the database checked at start-up, and only read when nothing can be saved to it.

A front end collects input, asks the door for what it works on — studies() to prepare, start
and resume, sessions() to list, read, rename, tag, delete, restore, import and export,
responsiveness() for a test, results() for the kept results, exercises() for the exercise
desk — and renders the typed events and results they return; it never decides what a study
is on its own. Starting a study is two steps, so that a window can take the slow one off its
GUI thread: prepare() checks the plan and the peer (or starts this computer's own servers),
takes the environment snapshot and says up front what cannot run; start() (or resume())
gives a StudyRun whose events() measure until it ends or is stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain.plan import Engine, Peer
from app.engine.drivers.registry import (
    DRIVERS,
    EngineDriver,
    responsiveness_driver,
    server_programs,
)
from app.engine.process.server_records import stop_left_behind
from app.engine.serving.loopback import LoopbackServers
from app.store.db import Database, StoreError
from app.store.startup import check_database
from app.study.stored_sessions import StoredSessions, undo_ends
from app.study.studies import PeerChecker, Snapshot, Studies, default_peer_check, snapshot

if TYPE_CHECKING:
    # Exercises and the responsiveness test load when first used: a study started from the
    # command line does not wait for them.
    from app.study.lab.exercises import ExerciseDesk
    from app.study.responsiveness.kept import KeptResults
    from app.study.responsiveness.results import ResponsivenessSettings
    from app.study.responsiveness.run import ResponsivenessTest


class ReadOnly(StoreError):
    """Nothing can be saved to the database (startup() found why): it is only read."""


class FrontDoor:
    """One database and this computer's own servers, and what a user works on in them. Cheap
    to make; every part opens its own connection, so a window may ask from any thread."""

    def __init__(
        self,
        db_path: Path,
        *,
        loopback: LoopbackServers | None = None,
        take_snapshot: Snapshot = snapshot,
        peer_check: PeerChecker = default_peer_check,
        drivers: Mapping[Engine, EngineDriver] | None = None,
        unwritable: str | None = None,
    ) -> None:
        self.db_path = Path(db_path)
        #: Why nothing can be saved to the database (app.store.startup), set by startup() or
        #: given by a window that ran it: then it is only read, where it can be, saying why.
        self.unwritable = unwritable
        self.drivers = drivers or DRIVERS
        #: This computer's own servers, for studies and tests against it: none run until one
        #: needs them; a front end stops them when it is done.
        self.loopback = loopback if loopback is not None else LoopbackServers(drivers=self.drivers)
        self._snapshot = take_snapshot
        self._peer_check = peer_check
        #: Sentences about servers a LinkLab that ended had left running, stopped by startup().
        self.left_behind: list[str] = []

    # -- the database ----------------------------------------------------------------------
    def require_writable(self) -> None:
        """ReadOnly (with the check's sentence) when nothing can be saved to the database."""
        if self.unwritable:
            raise ReadOnly(self.unwritable)

    def _open(self, *, write: bool) -> Database:
        if write:
            self.require_writable()
        db = Database(self.db_path, readonly=not write)
        if write:
            try:
                db.require_writable()
            except StoreError:
                db.close()
                raise
        return db

    def startup(self) -> int:
        """At start-up: servers a LinkLab that is gone left running are stopped (see
        left_behind), the file is checked whole, and sessions left running by a LinkLab that
        is gone become interrupted. Returns how many; nothing to do without a database.
        Reads the whole file: never on a GUI thread."""
        self.left_behind = stop_left_behind(server_programs(self.drivers))
        return self.check_database()

    def check_database(self) -> int:
        """startup()'s check of the database (again for another file chosen): unwritable set,
        and how many sessions a LinkLab that is gone left running were marked interrupted."""
        checked = check_database(self.db_path, undo_ends())
        self.unwritable = checked.unwritable
        return checked.interrupted

    # -- what it opens -----------------------------------------------------------------------
    def studies(self) -> Studies:
        """Studies prepared, started and resumed here (against this computer: its servers)."""
        return Studies(
            self.db_path,
            drivers=self.drivers,
            loopback=self.loopback,
            open_db=self._open,
            require_writable=self.require_writable,
            take_snapshot=self._snapshot,
            peer_check=self._peer_check,
        )

    def sessions(self) -> StoredSessions:
        """The stored sessions: listed, read, renamed, tagged, deleted, restored, exchanged."""
        return StoredSessions(self.db_path, self._open)

    def responsiveness(
        self,
        peer: Peer,
        settings: ResponsivenessSettings | None = None,
        *,
        echo_port: int | None = None,
    ) -> ResponsivenessTest:
        """A responsiveness test against the peer (this computer: against its own servers on
        the loopback, as a study's), its latency probed at echo_port (else the peer's);
        read its events() off any GUI thread, then keep its result with results().keep()."""
        from app.study.responsiveness.run import ResponsivenessTest

        return ResponsivenessTest(
            peer,
            settings,
            echo_port=peer.echo_port if echo_port is None else echo_port,
            loopback=self.loopback,
            driver=responsiveness_driver(self.drivers),
        )

    def results(self) -> KeptResults:
        """The responsiveness results kept in this database."""
        from app.study.responsiveness.kept import KeptResults

        return KeptResults(self.db_path, self._open)

    def exercises(self) -> ExerciseDesk:
        """Students' work on lab exercises in this database."""
        from app.study.lab.exercises import ExerciseDesk

        return ExerciseDesk(self.db_path, self._open)
