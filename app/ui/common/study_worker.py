"""A study through the front door as a worker's events, for the pages that run one (Measure,
its Monitor): preparing (the peer check, this computer's servers, the environment snapshot)
and measuring both happen in the worker, never on the GUI thread."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from app.domain.plan import Plan
from app.study.frontdoor import FrontDoor
from app.study.studies import PeerUnreachable
from app.study.sweep.events import StudyEvent
from app.ui.common.worker import Stop, Worker


@dataclass(frozen=True)
class PeerRefused:
    """The peer does not answer: nothing started (the sentence is shown at the peer)."""

    sentence: str


def study_events(
    door: FrontDoor, plan: Plan | None, resume_session: str | None, stop: Stop
) -> Generator[StudyEvent | PeerRefused, None, None]:
    """The study's events as the runner yields them, read in the worker's one thread; Stop
    ends the run in progress within about a second (or, while preparing, starts nothing),
    and the session's last events still come."""
    stopped_by = stop.later()
    try:
        if resume_session is not None:
            study = door.studies().resume(resume_session)
        else:
            assert plan is not None
            prepared = door.studies().prepare(plan)
            if stop.requested:
                return
            study = door.studies().start(prepared)
    except PeerUnreachable as err:
        yield PeerRefused(err.sentence)
        return
    stopped_by(study.stop)
    yield from study.events()


def study_worker(
    door: FrontDoor, plan: Plan | None = None, *, resume_session: str | None = None
) -> Worker:
    """Runs one plan (or resumes one session)."""
    return Worker(lambda stop: study_events(door, plan, resume_session, stop), "study")
