"""A station's measurement through the study front door, for a class measuring together
(the command line's `--wait-for-start` and the window's Wait for Start together): the plan
checked once, then each slot measured as a session of its own in the station's database."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from app.domain.plan import Plan
from app.study.frontdoor import FrontDoor
from app.study.studies import Prepared
from app.study.sweep.events import StudyEvent
from app.study.sweep.study_run import StudyRun

__all__ = ["DoorMeasurer"]


class DoorMeasurer:
    """What a TogetherStation measures with (app.study.lab.together_station.Measurer)."""

    def __init__(self, door: FrontDoor) -> None:
        self.door = door
        self._prepared: Prepared | None = None
        self._study: StudyRun | None = None
        self._stopped = False

    def prepare(self, plan: Plan) -> None:
        self._prepared = self.door.studies().prepare(plan)

    def run(self, name: str) -> Generator[StudyEvent, None, str]:
        assert self._prepared is not None
        prepared = replace(self._prepared, plan=replace(self._prepared.plan, name=name))
        study = self.door.studies().start(prepared)
        self._study = study
        if self._stopped:
            study.stop()
        outcome = yield from study.events()
        return outcome.session_id

    def stop(self) -> None:
        self._stopped = True
        study = self._study
        if study is not None:
            study.stop()

    def close(self) -> None:
        """Stop this computer's own servers, when the plan measured this computer."""
        self.door.loopback.stop()
