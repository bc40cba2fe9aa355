"""Studies of one database as the front door opens them: a new one prepared (the plan and the
peer checked, this computer's servers started, the environment snapshot taken) and started,
and a stored one resumed, by the one rule of what can be resumed."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.analysis.expectation import medium_problem
from app.domain.errors import BadOption, LinkLabError
from app.domain.net import IpVersion
from app.domain.plan import Conditions, Engine, Plan, Security
from app.domain.records import SessionRecord, SessionStatus
from app.engine.drivers.registry import EngineDriver, peer_servers, phrase
from app.engine.errors import EngineError
from app.engine.lan.peercheck import PeerCheck, check_peer, ipv6_reachable
from app.engine.serving.loopback import LoopbackServers
from app.store.db import Opener
from app.store.sessions import SessionStore
from app.study.host.own_servers import restarts_of, serve_plan
from app.study.host.wifi_reading import not_detected
from app.study.sweep.describe import default_name
from app.study.sweep.plan_checks import validate_plan
from app.study.sweep.study_run import StudyRun

if TYPE_CHECKING:
    from app.study.host.wifi_query import WifiTools

#: Sessions that ended before their plan did (resume_problem: a completed one with failures too).
UNFINISHED = frozenset({SessionStatus.INTERRUPTED, SessionStatus.STOPPED, SessionStatus.FAILED})

Snapshot = Callable[[str, Mapping[str, str]], dict[str, Any]]
PeerChecker = Callable[[Plan, EngineDriver], PeerCheck]


class PeerUnreachable(EngineError):
    """The peer does not answer where the plan needs it: nothing was started."""


class ResumeRefused(BadOption):
    """The session cannot be resumed (running elsewhere, or complete)."""


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


def _detected(
    conditions: Conditions, environment: Mapping[str, Any], detect: Collection[str]
) -> Conditions:
    """conditions with those named in detect filled from the snapshot's link to the peer."""
    from app.study.host.detected_conditions import DETECTABLE, with_detected
    from app.study.host.environment import EnvironmentSnapshot, detected_link

    link = detected_link(EnvironmentSnapshot.from_dict(environment))
    return with_detected(conditions, link, [n for n in DETECTABLE if n not in detect])


def _check_detected(plan: Plan, detect: Collection[str]) -> None:
    """Raise BadOption when the plan, its detected conditions filled, cannot run: a link rate
    stated with the medium left to detection and none detected is refused saying so."""
    missing = medium_problem(plan) if plan.conditions.link_rate_bps is not None else None
    if "medium" in detect and missing is not None and missing[0] == "medium":
        raise BadOption(
            f"The expected goodput needs the medium, and it could not be detected from the "
            f"adapter to {plan.peer.host}: give it with --medium (Ethernet, 802.11n, 802.11ac "
            f"or 802.11ax) or the frame overhead with --frame-overhead, or leave the link "
            f"rate out."
        )
    validate_plan(plan)


def default_peer_check(plan: Plan, driver: EngineDriver) -> PeerCheck:
    """Name resolution and the port of the chosen engine's server; when nothing answers
    there, another engine's port too, to tell a silent address from a missing server."""
    return check_peer(
        plan.peer.host,
        [driver.peer_server(plan.peer)],
        timeout=3.0,
        spare_ports=[server.port for server in peer_servers(plan.peer)],
    )


def resume_problem(session: SessionRecord) -> str:
    """Why the session cannot be resumed; empty when it can. The one rule: one not running
    is resumed (its missing and failed runs measured) while it is unfinished or has failed
    runs, a completed one with failures included; a monitor never is."""
    if session.plan.is_monitor and session.status is not SessionStatus.RUNNING:
        return "A monitor is not resumed: start a new one on the Monitor tab."
    if session.status is SessionStatus.RUNNING:
        return (
            f"Session {session.short_id} is still running in another LinkLab: stop it there first."
        )
    if session.status not in UNFINISHED and not session.runs_failed:
        return (
            f"Session {session.short_id} is {session.status_text} and none of its runs "
            f"failed: nothing to resume."
        )
    return ""


class Studies:
    """Studies started and resumed in one database, against a peer or against this
    computer's own servers (the front door's, kept between its studies)."""

    def __init__(
        self,
        db_path: Path,
        *,
        drivers: Mapping[Engine, EngineDriver],
        loopback: LoopbackServers,
        open_db: Opener,
        require_writable: Callable[[], None],
        take_snapshot: Snapshot = snapshot,
        peer_check: PeerChecker = default_peer_check,
    ) -> None:
        self.db_path = db_path
        self.drivers = drivers
        self.loopback = loopback
        self._open = open_db
        self._require_writable = require_writable
        self._snapshot = take_snapshot
        self._peer_check = peer_check

    def prepare(self, plan: Plan, *, detect: Collection[str] = ()) -> Prepared:
        """Check the plan and the peer, start this computer's servers when it is the peer,
        and take the environment snapshot (detected Wi-Fi security fills an unknown one).
        detect: the conditions (by DETECTABLE's names) the user left to what the system says
        of the link, filled by the rule the window's form fills its own with (`linklab run`
        without --medium or --link-rate). Slow (seconds): never on a GUI thread. Raises
        EngineError subclasses with the sentence for the user; nothing is stored."""
        validate_plan(plan, detect=detect)
        self._require_writable()  # a damaged database takes no new session
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
        if detect:
            plan = replace(plan, conditions=_detected(plan.conditions, environment, detect))
            _check_detected(plan, detect)
        if not plan.name:
            plan = replace(plan, name=default_name(plan))
        live = self.drivers[plan.engine].live_note()
        advice += (live,) if live else ()
        return Prepared(plan, environment, tuple(notes), advice)

    def _local_servers(self, plan: Plan) -> tuple[Plan, list[str]]:
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
        self._require_writable()
        return StudyRun(
            self.db_path,
            prepared.plan,
            environment=prepared.environment,
            notes=prepared.notes,
            advice=prepared.advice,
            drivers=self.drivers,
            server_notes=restarts_of(self.loopback, prepared.plan),
        )

    def resume(
        self,
        ref: str,
        *,
        ports: Mapping[str, int] | None = None,
        echo_port: int | None = None,
    ) -> StudyRun:
        """The missing and failed runs of a stored session, with its own plan (this computer's
        servers are started again when it measured against this computer; a peer whose
        servers moved gets its new ports). ResumeRefused, saying why, by resume_problem."""
        with self._open(write=True) as db:
            store = SessionStore(db)
            store.mark_interrupted()
            session = store.get(ref)
        problem = resume_problem(session)
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
