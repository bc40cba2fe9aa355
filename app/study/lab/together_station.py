"""A station of a class measuring together: it measures its clock's offset to the collector
and checks in, waits for the instructor's Start together (asking the collector twice a
second), and runs each of its slots when the collector's clock says so, corrected by that
offset; it pushes its per-second figures as it measures and its last word when the run ends,
through its outbox (sent again until acknowledged). What it measures is kept in its own
database as a session of its own, like any other. What it does comes out as the typed events
of its generators (check_in, wait, take_part), read in one thread."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

from app.domain.errors import BadOption, LinkLabError
from app.domain.plan import Metric, Peer, Plan, Variable
from app.domain.stream import drive
from app.domain.together import Slot, SlotKind, StationStatus, TogetherPlan, slot_from_dict
from app.engine.drivers.registry import main_server
from app.study.lab.class_http import call
from app.study.lab.clock_offset import ClockOffset, measure_offset
from app.study.lab.together import FINAL, REPORT_FORMAT, REPORT_VERSION
from app.study.lab.together_results import START_TOLERANCE_S
from app.study.sweep.events import (
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SamplesRevised,
    SessionFinished,
    StudyEvent,
)

__all__ = [
    "CheckedIn",
    "Measurer",
    "NotCheckedIn",
    "Scheduled",
    "SlotBegins",
    "SlotEnded",
    "StationEvent",
    "StationWaits",
    "TogetherStation",
    "station_plan",
]

#: How often a waiting station asks whether the class is to start.
POLL_S = 0.5
#: How often a waiting station measures its clock's offset again (clocks drift).
RECHECK_S = 60.0


class Measurer(Protocol):
    """What runs a station's measurement: the study front door, in the command line and the
    window."""

    def prepare(self, plan: Plan) -> None:
        """Check the plan and its peer once, before the first slot (slow: seconds)."""

    def run(self, name: str) -> Generator[StudyEvent, None, str]:
        """Measure the prepared plan once, as a session called name, its events yielded as
        it measures; its session id."""

    def stop(self) -> None:
        """End the run in progress now (from any thread)."""


@dataclass(frozen=True)
class CheckedIn:
    url: str
    offset: ClockOffset


@dataclass(frozen=True)
class StationWaits:
    """Waiting, and why in words (for the collector, or for the instructor's start)."""

    sentence: str


@dataclass(frozen=True)
class Scheduled:
    together_id: str
    plan: TogetherPlan
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class SlotBegins:
    slot: Slot
    in_s: float  # until its start, on this station's clock corrected by its offset


@dataclass(frozen=True)
class SlotEnded:
    slot: Slot
    status: StationStatus
    reason: str
    mean_bps: float | None
    start_error_s: float | None  # its engine's start minus the slot's


StationEvent = CheckedIn | StationWaits | Scheduled | SlotBegins | SlotEnded


def station_plan(plan: TogetherPlan, peer: Peer, student: str) -> Plan:
    """One run of the plan against the station's own server: for seconds, one repetition,
    throughput only (no probes before it, nothing that would hold its start back)."""
    return Plan(
        peer=peer,
        protocols=(plan.protocol,),
        direction=plan.direction,
        variable=Variable.DURATION,
        values=(plan.seconds,),
        repetitions=1,
        duration_s=plan.seconds,
        metrics=(Metric.THROUGHPUT,),
        bitrate_bps=plan.bitrate_bps,
        max_consecutive_failures=1,
        name=f"Together: {student}",
    )


class _Slot:
    """What one slot's run reports as it goes."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.started: float | None = None
        self.live: list[list[float]] = []
        self.revised: list[list[float]] | None = None
        self.mean_bps: float | None = None
        self.failure = ""
        self.session_id = ""


class TogetherStation:
    """One station of the class, for one collector."""

    def __init__(
        self,
        url: str,
        token: str,
        student: str,
        exercise_id: str,
        peer: Peer,
        measurer: Measurer,
        queue: Callable[[str, dict[str, Any]], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.token = token
        self.student = student
        self.exercise_id = exercise_id
        self.peer = peer
        self.measurer = measurer
        self._queue = queue
        self.clock = clock
        self.offset: ClockOffset | None = None
        self._checked_at = -RECHECK_S
        self._stop = threading.Event()
        self.done: set[str] = set()  # the Starts together this station took part in

    def stop(self) -> None:
        self._stop.set()
        self.measurer.stop()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- waiting -----------------------------------------------------------------------------
    def check_in(self) -> Generator[StationEvent, None, ClockOffset]:
        """Measure the offset to the collector's clock and check in with it."""
        offset = measure_offset(self.url, self.token, self.clock)
        driver = main_server()
        body = {
            "student": self.student,
            "exercise_id": self.exercise_id,
            "offset_s": offset.offset_s,
            "delay_s": offset.delay_s,
            "exchanges": offset.exchanges,
            "clock_problem": offset.problem,
            "host": self.peer.host,
            "port": self.peer.port(driver.port_key, driver.default_port),
        }
        answer = call(self.url, self.token, "/v1/together/checkin", json.dumps(body).encode())
        if answer.status != 200:
            words = answer.sentence or f"the collector answered {answer.status}"
            raise NotCheckedIn(words.rstrip("."))
        self.offset = offset
        self._checked_at = time.monotonic()
        yield CheckedIn(self.url, offset)
        return offset

    def wait(
        self, timeout: float | None = None
    ) -> Generator[StationEvent, None, dict[str, Any] | None]:
        """The next Start together this station is in (None: stopped, or timeout passed)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        said = ""
        query = f"/v1/together/next?student={_quoted(self.student)}"
        while not self._stop.is_set():
            if deadline is not None and time.monotonic() > deadline:
                return None
            try:
                if time.monotonic() - self._checked_at >= RECHECK_S:
                    yield from self.check_in()
                answer = call(self.url, self.token, query, timeout=5)
                if answer.status == 404:
                    self._checked_at = -RECHECK_S  # the collector forgot it: check in again
                elif answer.status != 200 or not isinstance(answer.data, dict):
                    words = answer.sentence or f"it answered {answer.status}"
                    raise NotCheckedIn(words.rstrip("."))
                else:
                    found = answer.data.get("assignment")
                    if isinstance(found, dict) and found.get("together") not in self.done:
                        return found
                    words = "Waiting for the instructor's Start together."
                    if words != said:
                        said = words
                        yield StationWaits(words)
            except NotCheckedIn as err:
                words = f"Waiting for the class's collector at {self.url}: {err.sentence}."
                if words != said:
                    said = words
                    yield StationWaits(words)
            self._stop.wait(POLL_S)
        return None

    # -- taking part -----------------------------------------------------------------------
    def take_part(
        self, assignment: dict[str, Any]
    ) -> Generator[StationEvent, None, list[SlotEnded]]:
        """Run every slot of the assignment at its time; what became of each."""
        together_id = str(assignment["together"])
        plan = TogetherPlan.from_dict(assignment["plan"])
        slots = tuple(slot_from_dict(s) for s in assignment["slots"])
        offset = float(assignment["offset_s"])  # as the collector recorded it at the start
        self.done.add(together_id)
        yield Scheduled(together_id, plan, slots)
        ended: list[SlotEnded] = []
        try:
            self.measurer.prepare(station_plan(plan, self.peer, self.student))
        except LinkLabError as err:
            for slot in slots:
                ended.append(self._final(together_id, slot, None, err.sentence))
                yield ended[-1]
            return ended
        for slot in slots:
            if self._stop.is_set():
                break
            ended.append((yield from self._slot(together_id, plan, slot, offset)))
            yield ended[-1]
        return ended

    def _local(self, at: float, offset: float) -> float:
        """A time on the collector's clock, on this station's."""
        return at - offset

    def _slot(
        self, together_id: str, plan: TogetherPlan, slot: Slot, offset: float
    ) -> Generator[StationEvent, None, SlotEnded]:
        start = self._local(slot.start_at, offset)
        late = self.clock() - start
        if late > START_TOLERANCE_S:
            return self._final(
                together_id,
                slot,
                None,
                f"it heard of its start {late:.1f} s after it",
                StationStatus.LATE,
            )
        yield SlotBegins(slot, start - self.clock())
        # Sleep until just before, then keep to the clock's own resolution.
        if self._stop.wait(max(0.0, start - self.clock() - 0.05)):
            return self._final(together_id, slot, None, "the station was stopped")
        while self.clock() < start:
            time.sleep(0.0005)
        run = _Slot(self.clock)
        observer = self._observer(together_id, slot, run, plan)
        label = "alone" if slot.kind is SlotKind.ALONE else f"round {slot.round}"
        try:
            drive(self.measurer.run(f"Together: {self.student}, {label}"), observer)
        except LinkLabError as err:
            run.failure = run.failure or err.sentence
        return self._final(together_id, slot, run, run.failure, offset=offset)

    def _observer(
        self, together_id: str, slot: Slot, run: _Slot, plan: TogetherPlan
    ) -> Callable[[StudyEvent], None]:
        def observe(event: StudyEvent) -> None:
            if isinstance(event, RunStarted):
                run.started = self.clock()
            elif isinstance(event, SampleArrived) and not event.sample.omitted:
                sample = event.sample
                bps = sample.goodput_bps(plan.protocol)
                if bps is None:
                    bps = sample.sent_bps
                if bps is not None:
                    figure = [sample.end_s, bps]
                    run.live.append(figure)
                    self._push(together_id, slot, len(run.live) - 1, {"figures": [figure]})
            elif isinstance(event, SamplesRevised):
                run.revised = [
                    [s.end_s, bps]
                    for s in event.samples
                    if not s.omitted and (bps := s.goodput_bps(plan.protocol)) is not None
                ]
            elif isinstance(event, RunFinished):
                run.mean_bps = event.metrics.throughput_bps
            elif isinstance(event, RunFailed) and not event.will_retry:
                run.failure = event.sentence
            elif isinstance(event, SessionFinished):
                run.session_id = event.session_id

        return observe

    def _final(
        self,
        together_id: str,
        slot: Slot,
        run: _Slot | None,
        failure: str,
        status: StationStatus | None = None,
        offset: float = 0.0,
    ) -> SlotEnded:
        """The station's last word on a slot, queued; what it says."""
        if status is None:
            ok = run is not None and not failure and run.mean_bps is not None
            status = StationStatus.OK if ok else StationStatus.FAILED
            if run is not None and not failure and run.mean_bps is None:
                failure = "the run ended without a result"
        started = None if run is None or run.started is None else run.started + offset
        figures = [] if run is None else (run.revised if run.revised else run.live)
        mean = None if run is None else run.mean_bps
        body: dict[str, Any] = {
            "status": status.value,
            "reason": failure,
            "started_at": started,
            "mean_bps": mean,
            "figures": figures,
            "receiver": run is not None and bool(run.revised),
            "session_id": "" if run is None else run.session_id,
        }
        self._push(together_id, slot, FINAL, body)
        ended = SlotEnded(
            slot,
            status,
            failure,
            mean,
            None if started is None else started - slot.start_at,
        )
        return ended

    def _push(self, together_id: str, slot: Slot, part: int, body: dict[str, Any]) -> None:
        document = {
            "format": REPORT_FORMAT,
            "format_version": REPORT_VERSION,
            "together": together_id,
            "slot": slot.number,
            "student": self.student,
            "part": part,
            **body,
        }
        name = "last" if part == FINAL else str(part)
        self._queue(f"together:{together_id}:{slot.number}:{self.student}:{name}", document)


class NotCheckedIn(BadOption):
    """The collector did not take the station's check-in (or cannot be reached)."""


def _quoted(text: str) -> str:
    return urllib.parse.quote(text, safe="")
