"""A stored monitor as its view, its exports and its report read it: its session, every run
that kept intervals (the one a crash left unfinished too), their intervals and their seconds
of working latency, and its curves over time as the live monitor drew them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.analysis.monitor_trace import MonitorTraces, stored_traces
from app.domain.records import RunRecord, SessionRecord
from app.domain.results import LatencySecond, Sample
from app.store.sessions import SessionStore


@dataclass(frozen=True)
class MonitorRecord:
    session: SessionRecord
    runs: tuple[RunRecord, ...]  # every run, finished or not, in the order they ran
    samples: Mapping[int, Sequence[Sample]]  # by run id
    seconds: Mapping[int, Sequence[LatencySecond]]  # by run id

    @property
    def measured(self) -> tuple[RunRecord, ...]:
        """The runs that kept intervals: those on its time axis."""
        return tuple(run for run in self.runs if self.samples.get(run.id))

    def traces(self) -> MonitorTraces:
        """Its curves over its whole time, placed by each run's start."""
        plan = self.session.plan
        runs = self.measured
        return stored_traces(
            plan.protocols[0],
            plan.interval_s,
            [(run.started_at, self.samples[run.id]) for run in runs],
            [self.seconds.get(run.id, ()) for run in runs],
        )


def read_monitor(store: SessionStore, session: SessionRecord) -> MonitorRecord:
    runs = store.runs(session.id, partial=True)
    return MonitorRecord(
        session,
        tuple(runs),
        {run.id: store.samples(run.id) for run in runs},
        {run.id: store.latency_seconds(run.id) for run in runs},
    )
