"""A study through the front door in a worker thread, its events re-emitted as queued Qt
signals: preparing (the peer check, this computer's servers, the environment snapshot) and
measuring both happen here, never on the GUI thread."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread, Signal

from app.domain.errors import LinkLabError
from app.domain.plan import Plan
from app.study.frontdoor import FrontDoor, PeerUnreachable
from app.study.sweep.events import (
    LatencyNote,
    LatencyProbed,
    MonitorResumed,
    MonitorWaiting,
    PointUpdated,
    Progress,
    RunFailed,
    RunFinished,
    RunStarted,
    SampleArrived,
    SamplesRevised,
    SessionFinished,
    SessionStarted,
    StudyEvent,
    StudyPrepared,
)
from app.study.sweep.study_run import StudyRun


class StudyWorker(QThread):
    """Runs one plan (or resumes one session). Signals arrive in the GUI thread, queued;
    the worker never touches a widget and the GUI never waits for it."""

    prepared = Signal(object)  # StudyPrepared: the plan as it runs, notes for the user
    session_started = Signal(object)  # SessionStarted
    run_started = Signal(object)  # RunStarted
    sample_arrived = Signal(object)  # SampleArrived
    samples_revised = Signal(object)  # SamplesRevised: the receiver's figures, at a run's end
    latency_probed = Signal(object)  # LatencyProbed (batches of probes, a few a second)
    latency_note = Signal(object)  # LatencyNote
    run_finished = Signal(object)  # RunFinished
    run_failed = Signal(object)  # RunFailed
    point_updated = Signal(object)  # PointUpdated
    progress_changed = Signal(object)  # Progress
    session_finished = Signal(object)  # SessionFinished
    monitor_waiting = Signal(object)  # MonitorWaiting: a monitor's peer stopped answering
    monitor_resumed = Signal(object)  # MonitorResumed: it answers again
    refused = Signal(str)  # the peer does not answer: nothing started (shown at the peer)
    failed = Signal(str)  # a sentence: the study could not start or the database failed

    def __init__(
        self, door: FrontDoor, plan: Plan | None = None, *, resume_session: str | None = None
    ) -> None:
        super().__init__()
        self.door = door
        self.plan = plan
        self._resume = resume_session
        self._study: StudyRun | None = None
        self._lock = threading.Lock()
        self._stop_requested = False
        self.session_id: str | None = resume_session

    def stop(self) -> None:
        """Thread-safe: ends the run in progress within about a second (or, while preparing,
        starts nothing)."""
        with self._lock:
            self._stop_requested = True
            study = self._study
        if study is not None:
            study.stop()

    def run(self) -> None:  # QThread entry point, in the worker thread
        try:
            if self._resume is not None:
                study = self.door.resume(self._resume, self._emit)
            else:
                assert self.plan is not None
                prepared = self.door.prepare(self.plan)
                if self._stop_requested:
                    return
                study = self.door.start(prepared, self._emit)
            with self._lock:
                self._study = study
                stop = self._stop_requested
            if stop:
                study.stop()
            study.run()
        except PeerUnreachable as err:
            self.refused.emit(err.sentence)
        except LinkLabError as err:
            self.failed.emit(err.sentence)

    def _emit(self, event: StudyEvent) -> None:
        if isinstance(event, SessionStarted):
            self.session_id = event.session_id
            self.session_started.emit(event)
        elif isinstance(event, SampleArrived):
            self.sample_arrived.emit(event)
        elif isinstance(event, SamplesRevised):
            self.samples_revised.emit(event)
        elif isinstance(event, LatencyProbed):
            self.latency_probed.emit(event)
        elif isinstance(event, LatencyNote):
            self.latency_note.emit(event)
        elif isinstance(event, RunStarted):
            self.run_started.emit(event)
        elif isinstance(event, RunFinished):
            self.run_finished.emit(event)
        elif isinstance(event, RunFailed):
            self.run_failed.emit(event)
        elif isinstance(event, PointUpdated):
            self.point_updated.emit(event)
        elif isinstance(event, Progress):
            self.progress_changed.emit(event)
        elif isinstance(event, SessionFinished):
            self.session_finished.emit(event)
        elif isinstance(event, StudyPrepared):
            self.prepared.emit(event)
        elif isinstance(event, MonitorWaiting):
            self.monitor_waiting.emit(event)
        elif isinstance(event, MonitorResumed):
            self.monitor_resumed.emit(event)
