"""A monitor: one flow (TCP or UDP; upload, download or both at once) measured over time until
the user stops it, as engine runs chained back to back, every interval stored as it arrives.

A server serves tests of bounded length (LinkLab's own, and `linklab serve`, at most an hour),
so a monitor runs the engine for up to `run_s` seconds at a time and starts the next run as one
ends (a second or so between them; with working latency, the idle probes' two seconds too). It
is stored as a session like any other: its plan sweeps nothing (Variable.NONE, the one value
0) and its runs are the chained runs, numbered as repetitions, each run's samples written
about once a second while it runs (app.study.sample_writer), so a crash loses at most the
last second. The plan's repetitions count the runs begun so far.
"""

from __future__ import annotations

import time

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Conditions, Engine, Metric, Peer, Plan, RunKey, Variable
from app.domain.records import SessionStatus
from app.domain.units import counted
from app.store.db import StoreError
from app.store.monitors import count_monitor_runs
from app.study.describe import duration_text
from app.study.events import SessionFinished, SessionStarted
from app.study.plan_checks import validate_plan
from app.study.runner import Outcome, StudyRunner

#: Seconds per chained run: long enough that the gaps between runs cost under 1 % of the
#: time, short enough that a UDP upload's loss (reported by the receiving end when a run
#: ends) comes in every few minutes.
DEFAULT_RUN_S = 300
#: The longest run: a server others can reach serves tests of at most an hour.
MAX_RUN_S = 3600
#: After a run that failed (the peer gone for a moment), the next one is tried after this.
RETRY_AFTER_S = 5.0


def monitor_plan(
    peer: Peer,
    *,
    protocol: Protocol = Protocol.TCP,
    ip_version: IpVersion = IpVersion.V4,
    direction: Direction = Direction.UP,
    run_s: int = DEFAULT_RUN_S,
    bitrate_bps: int = 0,
    latency: bool = False,
    interval_s: float = 1.0,
    name: str = "",
    conditions: Conditions | None = None,
) -> Plan:
    """The plan of a monitor of one flow."""
    metrics = (Metric.THROUGHPUT, Metric.LATENCY) if latency else (Metric.THROUGHPUT,)
    return Plan(
        peer=peer,
        engine=Engine.IPERF3,
        protocols=(protocol,),
        ip_versions=(ip_version,),
        direction=direction,
        variable=Variable.NONE,
        values=(0,),
        repetitions=1,
        duration_s=run_s,
        metrics=metrics,
        bitrate_bps=bitrate_bps if protocol is Protocol.UDP else 0,
        interval_s=interval_s,
        name=name,
        conditions=conditions or Conditions(),
    )


class MonitorRunner(StudyRunner):
    """Runs of a monitor's one flow, back to back, each stored as a run is, until stop() (or
    until the plan's allowed failures in a row). Stop ends the monitor: its status is then
    completed, the run in progress kept unfinished with every interval it measured."""

    def run(self) -> Outcome:
        validate_plan(self.plan)
        engine_version = self._driver.version()
        session_id = self.session_id = self.store.create_session(self.plan, self._environment)
        series = self.plan.series[0]
        self._emit(SessionStarted(session_id, self.plan, 0, 0))
        t0 = time.monotonic()
        begun = done = failed = in_a_row = 0
        status, why = SessionStatus.COMPLETED, ""
        try:
            while not self._stop.is_set():
                begun += 1
                count_monitor_runs(self.store.db, session_id, begun)
                key = RunKey(series.protocol, series.ip_version, 0, begun)
                record = self._run_with_retries(session_id, engine_version, key)
                if record is None:  # stopped mid-run: what it measured is kept, unfinished
                    break
                done += 1
                if record.ok:
                    in_a_row = 0
                    continue
                failed += 1
                in_a_row += 1
                if in_a_row >= self.plan.max_consecutive_failures:
                    status = SessionStatus.FAILED
                    why = (
                        f"{in_a_row} runs in a row failed, so the monitor stopped. The last "
                        f"error: {record.error}"
                    )
                    break
                self._stop.wait(RETRY_AFTER_S)
        except StoreError as err:
            self._emit(SessionFinished(session_id, SessionStatus.FAILED, err.sentence))
            try:
                self.store.finish(session_id, SessionStatus.FAILED, err.sentence)
            except StoreError:
                pass  # the database itself is what failed; the session shows as interrupted
            raise
        reason = monitored_text(time.monotonic() - t0, begun, self.plan.duration_s, failed)
        if self._reason:
            reason = f"{reason} {self._reason}"
        reason = " ".join([why, reason, *self._latency_notes]).strip()
        self.store.finish(session_id, status, reason)
        self._emit(SessionFinished(session_id, status, reason, done, failed))
        return Outcome(session_id, status, reason, done, failed)


def monitored_text(elapsed_s: float, runs: int, run_s: int, failed: int = 0) -> str:
    """'Monitored for about 2 h 05 min, in 26 runs of up to 300 s chained back to back (1
    failed).'"""
    text = (
        f"Monitored for {duration_text(elapsed_s)}, in {counted(runs, 'run')} of up to "
        f"{run_s} s chained back to back"
    )
    return f"{text} ({failed} failed)." if failed else f"{text}."
