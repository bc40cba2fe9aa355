"""The front door to studies: everything a user can do with one — start, stop, resume, delete,
rename, tag, import, export — decided once, for the window and the command line alike.

A front end collects input, calls these methods and renders the typed events and results they
return; it never decides what a study is on its own. Starting a study is two steps, so that a
window can take the slow one off its GUI thread: prepare() checks the plan and the peer (or
starts this computer's own servers), takes the environment snapshot and says up front what
cannot run; start() (or resume()) gives a StudyRun whose run() measures until it ends or is
stopped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.domain.errors import BadOption, LinkLabError
from app.domain.net import IpVersion
from app.domain.plan import Engine, Peer, Plan, Security
from app.domain.records import RunRecord, SessionList, SessionRecord, SessionStatus, iso, utc_now
from app.domain.results import Sample
from app.domain.tags import parse_tags
from app.engine.drivers.registry import (
    DRIVERS,
    EngineDriver,
    peer_servers,
    phrase,
    responsiveness_driver,
    server_programs,
)
from app.engine.errors import EngineError
from app.engine.lan.peercheck import PeerCheck, check_peer, ipv6_reachable
from app.engine.latency.echo import DEFAULT_ECHO_PORT
from app.engine.process.server_records import stop_left_behind
from app.engine.serving.loopback import LoopbackServers
from app.store.db import Database, StoreError
from app.store.sessions import SessionStore
from app.store.startup import check_database
from app.store.trash import Trash
from app.study.host.own_servers import restarts_of, serve_plan
from app.study.host.wifi_reading import not_detected
from app.study.sweep.describe import default_name
from app.study.sweep.listing import matches, unreadable_matches
from app.study.sweep.monitor_record import MonitorRecord, read_monitor
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.study_run import StudyRun

if TYPE_CHECKING:
    # Exchange files, exercises and the responsiveness test load when first used: a study
    # started from the command line does not wait for them.
    from app.study.host.wifi_query import WifiTools
    from app.study.lab.exercises import ExerciseDesk
    from app.study.responsiveness.kept import KeptResults
    from app.study.responsiveness.results import ResponsivenessSettings
    from app.study.responsiveness.run import ResponsivenessTest

#: Sessions that ended before their plan did (resume_problem: a completed one with failures too).
UNFINISHED = frozenset({SessionStatus.INTERRUPTED, SessionStatus.STOPPED, SessionStatus.FAILED})

Snapshot = Callable[[str, Mapping[str, str]], dict[str, Any]]
PeerChecker = Callable[[Plan, EngineDriver], PeerCheck]


class PeerUnreachable(EngineError):
    """The peer does not answer where the plan needs it: nothing was started."""


class ResumeRefused(BadOption):
    """The session cannot be resumed (running elsewhere, or complete)."""


#: How long a deleted session can still be restored (Undo); then its rows go.
DELETED_KEPT = dt.timedelta(days=1)


def _undo_ends() -> str:
    """Sessions deleted before this moment can no longer be restored."""
    return iso(dt.datetime.now(dt.UTC) - DELETED_KEPT)


class DeleteRefused(StoreError):
    """A running session cannot be deleted."""


class ReadOnly(StoreError):
    """Nothing can be saved to the database (startup() found why): it is only read."""


@dataclass(frozen=True)
class SessionName:
    id: str
    name: str


@dataclass(frozen=True)
class ImportedFile:
    imported: tuple[SessionName, ...]
    skipped: tuple[SessionName, ...]


@dataclass(frozen=True)
class Prepared:
    """A study ready to start: the plan as it will run, the environment it runs in, and what
    the user is told before the first run (series that cannot run, and why)."""

    plan: Plan
    environment: dict[str, Any]
    notes: tuple[str, ...] = ()
    #: Told before the first run, not kept as the session's reason (e.g. no live samples).
    advice: tuple[str, ...] = ()


def snapshot(
    peer_host: str, engines: Mapping[str, str], *, tools: WifiTools | None = None
) -> dict[str, Any]:
    """The environment snapshot as stored with a session (tools: how the Wi-Fi is asked)."""
    from app.study.host import environment  # runs the system's query tools: only when needed

    return environment.capture(peer_host, engines, tools=tools).to_dict()


def engine_versions(drivers: Mapping[Engine, EngineDriver]) -> dict[str, str]:
    """The version of every engine there is (for the environment snapshot)."""
    versions = {}
    for engine, driver in drivers.items():
        try:
            versions[engine.value] = driver.version()
        except LinkLabError:
            continue
    return versions


def default_peer_check(plan: Plan, driver: EngineDriver) -> PeerCheck:
    """Name resolution and the port of the chosen engine's server; when nothing answers
    there, another engine's port too, to tell a silent address from a missing server."""
    return check_peer(
        plan.peer.host,
        [driver.peer_server(plan.peer)],
        timeout=3.0,
        spare_ports=[server.port for server in peer_servers(plan.peer)],
    )


class FrontDoor:
    """Studies and sessions of one database. Cheap to make; every method opens its own
    connection, so a window may call them from any thread."""

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
        self.loopback = loopback
        self._snapshot = take_snapshot
        self._peer_check = peer_check
        self.drivers = drivers or DRIVERS
        #: Sentences about servers a LinkLab that ended had left running, stopped by startup().
        self.left_behind: list[str] = []

    # -- the database ----------------------------------------------------------------------
    def require_writable(self) -> None:
        """ReadOnly (with the check's sentence) when nothing can be saved to the database."""
        if self.unwritable:
            raise ReadOnly(self.unwritable)

    def exercises(self) -> ExerciseDesk:
        """Students' work on lab exercises in this database."""
        from app.study.lab.exercises import ExerciseDesk

        return ExerciseDesk(self.db_path, self._open)

    def results(self) -> KeptResults:
        """The responsiveness results kept in this database."""
        from app.study.responsiveness.kept import KeptResults

        return KeptResults(self.db_path, self._open)

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
        checked = check_database(self.db_path, _undo_ends())
        self.unwritable = checked.unwritable
        return checked.interrupted

    # -- studies ---------------------------------------------------------------------------
    def prepare(self, plan: Plan) -> Prepared:
        """Check the plan and the peer, start this computer's servers when it is the peer,
        and take the environment snapshot (detected Wi-Fi security fills an unknown one).
        Slow (seconds): never on a GUI thread. Raises EngineError subclasses with the
        sentence for the user; nothing is stored."""
        validate_plan(plan)
        self.require_writable()  # a damaged database takes no new session
        self.drivers[plan.engine].version()  # a missing engine is said before anything starts
        notes: list[str] = []
        moved: list[str] = []  # this computer's server on another port than asked, and why
        if plan.peer.is_this_computer:
            plan, moved = self._local_servers(plan)
        else:
            plan, notes = self._check_peer(plan)
        environment = self._snapshot(plan.peer.host, engine_versions(self.drivers))
        unstated = plan.conditions.security is Security.UNKNOWN
        advice = (*moved, *(a for a in [not_detected(environment)] if a and unstated))
        detected = environment.get("detected_security")
        if plan.conditions.security is Security.UNKNOWN and detected:
            try:
                security = Security(detected)
            except ValueError:
                pass
            else:
                conditions = replace(plan.conditions, security=security, security_detected=True)
                plan = replace(plan, conditions=conditions)
        if not plan.name:
            plan = replace(plan, name=default_name(plan))
        live = self.drivers[plan.engine].live_note()
        advice += (live,) if live else ()
        return Prepared(plan, environment, tuple(notes), advice)

    def _local_servers(self, plan: Plan) -> tuple[Plan, list[str]]:
        if self.loopback is None:
            self.loopback = LoopbackServers(drivers=self.drivers)
        return serve_plan(self.loopback, self.drivers[plan.engine], plan)

    def _check_peer(self, plan: Plan) -> tuple[Plan, list[str]]:
        """The one peer check before a study: the name, the engine's server, and IPv6 when
        IPv6 is planned. A series that cannot run is left out, saying why, when others can."""
        driver = self.drivers[plan.engine]
        check = self._peer_check(plan, driver)
        problem = check.blocking_problem()
        if problem:
            raise PeerUnreachable(problem)
        notes: list[str] = []
        if IpVersion.V6 in plan.ip_versions and driver.takes_bare_connections:
            host, port = plan.peer.host_for(IpVersion.V6), driver.peer_port(plan.peer)
            why = ipv6_reachable(host, port, listens=phrase("ipv6_listen"))
            if why:
                if plan.ip_versions == (IpVersion.V6,):
                    raise PeerUnreachable(why)
                notes.append(f"{why} The IPv6 series are left out; the IPv4 series run.")
                plan = replace(plan, ip_versions=(IpVersion.V4,))
        return plan, notes

    def start(self, prepared: Prepared) -> StudyRun:
        """A new session of the prepared plan; read its events() to measure."""
        self.require_writable()
        return StudyRun(
            self.db_path,
            prepared.plan,
            environment=prepared.environment,
            notes=prepared.notes,
            advice=prepared.advice,
            drivers=self.drivers,
            server_notes=restarts_of(self.loopback, prepared.plan),
        )

    def responsiveness(
        self,
        peer: Peer,
        settings: ResponsivenessSettings | None = None,
        *,
        echo_port: int = DEFAULT_ECHO_PORT,
    ) -> ResponsivenessTest:
        """A responsiveness test against the peer (this computer: against its own servers on
        the loopback, as a study's); read its events() off any GUI thread, then keep its
        result with results().keep()."""
        if peer.is_this_computer and self.loopback is None:
            self.loopback = LoopbackServers(drivers=self.drivers)
        from app.study.responsiveness.run import ResponsivenessTest

        return ResponsivenessTest(
            peer,
            settings,
            echo_port=echo_port,
            loopback=self.loopback,
            driver=responsiveness_driver(self.drivers),
        )

    @staticmethod
    def resume_problem(session: SessionRecord) -> str:
        """Why the session cannot be resumed; empty when it can. The one rule: one not running
        is resumed (its missing and failed runs measured) while it is unfinished or has failed
        runs, a completed one with failures included; a monitor never is."""
        if session.plan.is_monitor and session.status is not SessionStatus.RUNNING:
            return "A monitor is not resumed: start a new one on the Monitor tab."
        if session.status is SessionStatus.RUNNING:
            return (
                f"Session {session.short_id} is still running in another LinkLab: stop it "
                f"there first."
            )
        if session.status not in UNFINISHED and not session.runs_failed:
            return (
                f"Session {session.short_id} is {session.status_text} and none of its runs "
                f"failed: nothing to resume."
            )
        return ""

    def resume(
        self,
        ref: str,
        *,
        ports: Mapping[str, int] | None = None,
        echo_port: int | None = None,
    ) -> StudyRun:
        """The missing and failed runs of a stored session, with its own plan (this computer's
        servers are started again when it measured against this computer; a peer whose
        servers moved gets its new ports)."""
        with self._open(write=True) as db:
            store = SessionStore(db)
            store.mark_interrupted()
            session = store.get(ref)
        problem = self.resume_problem(session)
        if problem:
            raise ResumeRefused(problem)
        plan = session.plan
        advice: list[str] = []
        if plan.peer.is_this_computer:
            plan, advice = self._local_servers(plan)  # its ports as they are now
        else:
            peer = plan.peer
            moved = {key: port for key, port in (ports or {}).items() if port}
            peer = replace(
                peer, ports={**peer.ports, **moved}, echo_port=echo_port or peer.echo_port
            )
            plan = replace(plan, peer=peer)
        return StudyRun(
            self.db_path,
            plan,
            advice=tuple(advice),
            resume_session=session.id,
            drivers=self.drivers,
            server_notes=restarts_of(self.loopback, plan),
        )

    # -- sessions --------------------------------------------------------------------------
    def sessions(self, search: str = "", status: str | None = None) -> list[SessionRecord]:
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

    def session(self, ref: str) -> SessionRecord:
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
            trash.purge(_undo_ends())
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
            return SessionStore(db).deleted_since(_undo_ends())

    def restore_one(self, ref: str) -> SessionRecord:
        """A deleted session, by its id or id prefix, back in the list."""
        with self._open(write=True) as db:
            store = SessionStore(db)
            session = store.get(ref, deleted=True)
            if not Trash(db).restore([session.id]):
                raise BadOption(f"Session {session.short_id} is not deleted: nothing to restore.")
            return store.get(session.id)

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
