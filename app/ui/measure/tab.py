"""The Measure tab: the set-up form, Start / Stop, a study run from it and its log, the study's
charts and results beside them (app.ui.measure.study_charts) and the Monitor page."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.exercise import Exercise
from app.domain.plan import Metric, Plan
from app.domain.records import SessionStatus, status_words
from app.domain.units import counted
from app.study.sweep.events import (
    LatencyNote,
    LatencyProbed,
    PointUpdated,
    Progress,
    RunFailed,
    RunStarted,
    SampleArrived,
    SamplesRevised,
    ServerNote,
    SessionFinished,
    SessionStarted,
    StudyPrepared,
)
from app.study.sweep.stopped import stop_took_words, stopped_words
from app.ui.common.log_view import LogView
from app.ui.common.remembered import remember_splitter
from app.ui.common.study_worker import PeerRefused, study_worker
from app.ui.common.worker import Worker, wire
from app.ui.context import AppContext
from app.ui.measure.detection import LinkDetection
from app.ui.measure.engine_choice import EngineChooser
from app.ui.measure.exercise_lock import lock_step, unlock
from app.ui.measure.last_form import LastForm
from app.ui.measure.monitor_page import attach_monitor
from app.ui.measure.run_controls import RunControls
from app.ui.measure.run_text import eta_text
from app.ui.measure.setup_panel import SetupPanel
from app.ui.measure.study_charts import StudyCharts
from app.ui.server.local_servers import LocalServers


class MeasureTab(QWidget):
    status_message = Signal(str)
    #: A sentence said before whose condition is fixed (the peer answers, the field is
    #: valid): the status bar takes it back, unless it says something newer by then.
    status_withdrawn = Signal(str)
    session_saved = Signal(str)  # a session finished (or stopped): the browser refreshes
    running_changed = Signal(bool)

    def __init__(
        self, context: AppContext, servers: LocalServers, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.servers = servers
        self.worker: Worker | None = None
        self.exercise: Exercise | None = None  # the lab exercise whose step is set up
        #: Set by the window: a responsiveness test loads the link this study would measure.
        self.other_test_running: Callable[[], bool] = lambda: False
        self._plan: Plan | None = None
        self._running_plan: Plan | None = None
        self._stop_asked_at: float | None = None
        self._eta = ""  # the time left as the status bar says it; "" until there is a figure
        #: The form as it was before a resume put the resumed session's plan on it.
        self._form_before: Plan | None = None
        #: "Fix <field> before starting: …" as said: it goes once the form no longer has
        #: that problem first.
        self._fix_said = ""
        self.setup = SetupPanel(context.peer_history())
        self.setup.setObjectName("setup_panel")
        self.setup.setMinimumWidth(460)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.setup, 1)
        controls = RunControls(self, lambda: self.start(), lambda: self.stop())
        self.command, self.progress = controls.command, controls.progress
        self.start_button, self.stop_button = controls.start_button, controls.stop_button
        left_layout.addLayout(controls)
        self.study_charts = StudyCharts()
        self.monitor = attach_monitor(self)  # Measure › Monitor: one flow until Stop
        self.log = LogView(5000)
        self.log.setObjectName("log")
        self.log.setAccessibleName("Log")
        self.log.setPlaceholderText("Engine messages and errors appear here.")
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.study_charts.tabs)
        right.addWidget(self.study_charts.table)
        right.addWidget(self.log)
        # The charts first: they keep most of the height as the window grows or shrinks.
        right.setStretchFactor(0, 4)
        right.setStretchFactor(1, 2)
        right.setStretchFactor(2, 1)
        right.setSizes([470, 160, 100])
        right.setObjectName("measure_results_splitter")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([500, 780])
        splitter.setObjectName("measure_splitter")
        self.splitter = splitter
        # Where the user left them, across restarts: the form's width, the charts' height.
        remember_splitter(splitter, context.settings, "measure/form")
        remember_splitter(right, context.settings, "measure/results")
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.last_form = LastForm(self.setup, context)
        self.setup.plan_changed.connect(self._plan_changed)
        self.detection = LinkDetection(self, tools=lambda: context.wifi)
        self.detection.wifi_read.connect(self.setup.conditions_box.set_wifi_reading)
        self.detection.security_detected.connect(self.setup.set_detected_security)
        self.detection.link_detected.connect(self.setup.conditions_box.set_detected_link)
        self.setup.peer_row.answered.connect(self.detection.detect)
        # Whichever way a peer is set (typed, chosen from the history or from Find computers,
        # restored at start-up), the link to it is asked about once it settles.
        self._peer_settled = QTimer(self)
        self._peer_settled.setSingleShot(True)
        self._peer_settled.setInterval(400)
        self._peer_settled.timeout.connect(self._detect_peer)
        self.setup.peer_row.changed.connect(self._peer_settled.start)
        self.setup.peer_row.problem_gone.connect(self.status_withdrawn)
        self.setup.peer_row.attach(context)
        self.engine_chooser = EngineChooser(self._say)
        self.last_form.restore()  # then an engine not installed here is replaced, said once
        self.engines_changed()
        self._plan_changed(self.setup.plan())
        self.detection.detect(self.setup.peer_row.peer().host)

    # -- form ------------------------------------------------------------------------------
    def _detect_peer(self) -> None:
        """Ask about the link to the peer in the form, unless that is the one last asked."""
        host = self.setup.peer_row.peer().host
        if host != self.detection.asked:
            self.detection.detect(host)

    def engines_changed(self) -> None:
        """Engines that are not installed cannot be chosen (Settings may have fixed that)."""
        self.setup.set_engine_unavailable(self.context.missing_engines())
        self._show_command()  # another engine binary: another command line
        self.engine_chooser.choose(self.setup.study.engine, self.context)  # and say so once

    def _plan_changed(self, plan: Plan | None) -> None:
        self._plan = plan
        if self._fix_said and self._fix_said != self._fix_sentence():
            said, self._fix_said = self._fix_said, ""
            self.status_withdrawn.emit(said)
        if self.worker is None and not self.monitor.running:
            self.idle_progress()  # the last study's progress is not this plan's
            self.study_charts.preview(plan)
        self._set_buttons()
        self._show_command()
        self.last_form.remember()  # what the next start of LinkLab shows

    def _fix_sentence(self) -> str:
        """What Start says of the form's first problem ("" when it has none)."""
        problem = self.setup.first_problem()
        if problem is None:
            return ""
        _key, label, sentence = problem
        return f"Fix {label} before starting: {sentence}"

    def _show_command(self) -> None:
        """The command of the plan on screen, whatever changed it (a field, a preset, an
        exercise step, an engine found in Settings, the end of a study); while a study runs,
        the command of the run in progress instead."""
        if self.worker is not None:
            return
        plan = self._plan
        if plan is None:
            problem = self.setup.first_problem()
            text = "No command yet: " + (
                f"fix {problem[1]} first. {problem[2]}" if problem else "the plan cannot run."
            )
        else:
            text = self._first_command(plan)
        self.command.setText(text)
        self.command.setCursorPosition(0)

    def _first_command(self, plan: Plan) -> str:
        """The command line of the plan's first run, exactly as the runner will start it."""
        try:
            return " ".join(self.context.drivers[plan.engine].argv(plan, plan.run_keys()[0]))
        except LinkLabError as err:
            return err.sentence

    # -- running ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.worker is not None or self.monitor.running

    def start(self) -> None:
        """Start the plan in the form: refused with the field to fix; the peer check, this
        computer's servers and the environment snapshot then happen in the worker."""
        if self.worker is not None or self.monitor.running:
            return
        if self.other_test_running():
            self._say(
                "A responsiveness test is running: it loads the link and would skew this study. "
                "Stop it on the Responsiveness tab, or wait for its result.",
                error=True,
            )
            return
        problem = self.setup.first_problem()
        if problem is not None:
            self._fix_said = self._fix_sentence()
            self._say(self._fix_said, error=True)
            self.setup.focus_field(problem[0])
            return
        plan = self._plan
        if plan is None:
            return
        if plan.assignment is not None and self.exercise is not None:
            a = plan.assignment
            try:  # the locked fields as the exercise set them, and the steps in order
                plan = (
                    self.context.door()
                    .exercises()
                    .plan_for(
                        self.exercise,
                        a.step,
                        student=a.student,
                        group=a.group,
                        peer=plan.peer,
                        base=plan,
                    )
                )
            except LinkLabError as err:
                self._say(err.sentence, error=True)
                return
        where = (
            "Starting LinkLab's servers on this computer…"
            if plan.peer.is_this_computer
            else f"Checking {plan.peer.host} before starting…"
        )
        self._say(where)
        self._launch(study_worker(self.context.door(), plan))

    def lock_exercise_step(self, exercise: Exercise, number: int, student: str, group: str) -> None:
        """Set up step number of a lab exercise: its plan, its locked fields greyed out."""
        self.exercise = exercise
        lock_step(self.setup, exercise, number, student, group)
        self.setup.pages.setCurrentIndex(0)

    def leave_exercise(self) -> None:
        self.exercise = None
        unlock(self.setup)

    def resume(self, session_id: str) -> None:
        """Run the missing runs of a stored session (from the Sessions tab)."""
        if self.worker is not None:
            return
        self._say(f"Resuming session {session_id[:8]}…")
        self._form_before = self.setup.build_candidate()[0]  # back on the form afterwards
        self._launch(study_worker(self.context.door(), resume_session=session_id))

    def _launch(self, worker: Worker) -> None:
        wire(
            worker,
            {
                StudyPrepared: self._prepared,
                SessionStarted: self._session_started,
                RunStarted: self._run_started,
                SampleArrived: self.study_charts.sample,
                SamplesRevised: self.study_charts.revised,
                LatencyProbed: self.study_charts.probed,
                LatencyNote: lambda event: self._say(event.sentence),
                ServerNote: lambda event: self._say(event.sentence),
                RunFailed: self._run_failed,
                PointUpdated: self._point,
                Progress: self._progress,
                SessionFinished: self._session_finished,
                PeerRefused: self._refused,
            },
            failed=self._failed,
            finished=self._worker_done,
        )
        self.worker = worker
        self.progress.setRange(0, 0)  # busy until the plan's runs are known
        self._set_running(True)
        worker.start()

    def idle_progress(self) -> None:
        """An empty progress bar: nothing measured of the plan on screen."""
        self.progress.setRange(0, 1)
        self.progress.reset()

    def _prepared(self, event: StudyPrepared) -> None:
        """The plan as it runs: this computer's ports, a peer that answered, series left out."""
        plan = event.plan
        self._running_plan = plan
        if self._form_before is not None:  # a resume: the greyed form shows what runs
            self.setup.set_plan(plan)
        if plan.peer.is_this_computer:
            self.setup.peer_row.show_ports(plan.peer.ports)
        else:
            self.setup.peer_row.remember(plan.peer.host)
            self.setup.peer_row.show_note(f"{plan.peer.host} answers.", answered=True)
        for note in event.notes:
            self._say(note)
        self.study_charts.begin(plan)
        if plan.peer.is_this_computer and Metric.LATENCY in plan.metrics:
            self.setup.adv.echo_port.setValue(plan.peer.echo_port)  # the port in use
        self.progress.setRange(0, plan.total_runs)
        self.progress.setValue(0)
        self._eta = ""

    def _refused(self, event: PeerRefused) -> None:
        self.setup.peer_row.show_problem(event.sentence, focus=True)
        self._say(event.sentence, error=True)

    def stop(self) -> None:
        if self.worker is not None:
            self._stop_asked_at = time.monotonic()
            self.worker.stop()
            self._say("Stopping…")
        self.monitor.stop()

    def stop_and_wait(self, timeout_ms: int = 3000) -> bool:
        """Stop and wait for the worker (closing the window); True when it ended."""
        worker, monitor = self.worker, self.monitor.stop_and_wait(timeout_ms)
        if worker is not None:
            worker.stop()
        return (worker is None or bool(worker.wait(timeout_ms))) and monitor

    def _set_running(self, running: bool) -> None:
        self.setup.setEnabled(not running)
        self._set_buttons()
        self.running_changed.emit(running)

    def _set_buttons(self) -> None:
        """Start stays enabled while nothing runs: pressed with a problem in the form, it says
        which field to fix and goes there. A database nothing can be saved to disables it,
        saying why."""
        busy = self.worker is not None or self.monitor.running
        blocked = self.context.unwritable
        self.start_button.setEnabled(not busy and not blocked)
        self.start_button.setToolTip(
            f"Start is off: {blocked}" if blocked else "Start the study (Ctrl+R)."
        )
        self.stop_button.setEnabled(self.worker is not None)
        self.monitor.set_blocked(blocked or ("A study is running." if self.worker else ""))

    def database_checked(self) -> None:
        """The start-up check is done: Start follows what it found."""
        self._set_buttons()

    # -- events from the worker (GUI thread, queued) ---------------------------------------
    def _say(self, text: str, error: bool = False) -> None:
        stamp = time.strftime("%H:%M:%S")
        self.log.appendPlainText(f"{stamp}  {'Error: ' if error else ''}{text}")
        self.status_message.emit(text)

    def _session_started(self, event: SessionStarted) -> None:
        resumed = f", {event.already_done} already done" if event.already_done else ""
        runs = counted(event.total_runs, "run")
        self._say(f"Session {event.session_id[:8]} started: {runs}{resumed}.")
        self.progress.setValue(event.already_done)
        plan = self._running_plan
        if plan is not None and plan.total_runs:  # the plan's estimate, until runs are timed
            left = event.total_runs - event.already_done
            self._eta = eta_text(plan.estimated_seconds() * left / plan.total_runs)

    def _run_started(self, event: RunStarted) -> None:
        plan = self._running_plan
        assert plan is not None
        self.command.setText(" ".join(event.argv))
        self.command.setCursorPosition(0)
        title = self.study_charts.run_started(plan, event)
        self.log.appendPlainText(f"$ {' '.join(event.argv)}")
        # The status bar names the run the live chart shows, from the moment it starts.
        left = f" · {self._eta} left" if self._eta else ""
        self.status_message.emit(
            f"{title} · point {event.key.value_index + 1}/{len(plan.values)}"
            f" · {self.progress.value()}/{plan.total_runs} runs done{left}"
        )

    def _run_failed(self, event: RunFailed) -> None:
        if event.will_retry:  # a note: the retry usually works, and a failure is said then
            self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {event.retry_note}")
        else:
            self._say(f"{event.sentence} {event.then_words}".strip(), error=True)

    def _point(self, event: PointUpdated) -> None:
        plan = self._running_plan
        assert plan is not None
        self.study_charts.point(plan, event)

    def _progress(self, event: Progress) -> None:
        self.progress.setValue(event.done)
        if event.eta_s is not None:
            self._eta = eta_text(event.eta_s)

    def _session_finished(self, event: SessionFinished) -> None:
        words = status_words(event.status, event.runs_failed)
        if event.status is SessionStatus.STOPPED:  # what Stop kept, as closing says it
            said = f"{words}: {stopped_words(event.runs_done, event.cut_short)}"
        else:
            said = f"{words}. {event.reason}".strip() if event.reason else f"{words}."
        self._say(
            f"Session {event.session_id[:8]} {said}",
            error=event.status is SessionStatus.FAILED or bool(event.runs_failed),
        )
        if self._stop_asked_at is not None:
            self.log.appendPlainText(stop_took_words(self._stop_asked_at, event.engines_ended_at))
        self.session_saved.emit(event.session_id)

    def _failed(self, sentence: str) -> None:
        self._say(sentence, error=True)

    def _worker_done(self) -> None:
        if self._form_before is not None:  # the form the resume found, back again
            before, self._form_before = self._form_before, None
            self.setup.set_plan(before)
        if self.progress.maximum() == 0:  # it never started (the peer did not answer)
            self.idle_progress()
        self.worker = None
        self._stop_asked_at = None
        self._set_running(False)
        self._show_command()  # the last run's command gives way to the plan on screen
