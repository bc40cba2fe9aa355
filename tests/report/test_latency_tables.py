"""Working latency in a lab report's step: mean ± SD tables of idle and loaded latency beside
the throughput, only when the step's session measured it."""

from __future__ import annotations

from pathlib import Path

from app.analysis.points import point_summaries
from app.domain.exercise import Step
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Metric, Peer, Plan, RunKey
from app.domain.records import RunMetrics, utc_now
from app.report.lab_report import StepReport, step_tables
from app.store.db import Database
from app.store.sessions import SessionStore


def _step(tmp_path: Path, latency: bool) -> StepReport:
    plan = Plan(
        peer=Peer("lab-peer"),
        values=(1408,),
        repetitions=2,
        duration_s=10,
        metrics=(Metric.THROUGHPUT, Metric.LATENCY) if latency else (Metric.THROUGHPUT,),
    )
    with Database(tmp_path / f"lab-{latency}.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for rep, ms in ((1, 240.0), (2, 250.0)):
            figures = {"latency_ms": ms, "latency_idle_ms": 0.5} if latency else {}
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                1408,
                metrics=RunMetrics(throughput_bps=9e6, **figures),
                started_at=utc_now(),
                elapsed_s=10.0,
                engine="iperf3",
            )
        session, runs = store.get(sid), store.runs(sid)
    step = Step("Bufferbloat", "Measure working latency.", plan)
    return StepReport(1, step, session, point_summaries(plan, runs), None, [])


def test_a_step_with_working_latency_has_its_tables(tmp_path: Path) -> None:
    tables = {title: rows for title, _header, rows in step_tables(_step(tmp_path, True))}
    # The mean to the place of its SD's second digit; alike runs to four digits.
    assert tables["Working latency under load (ms, median per run)"] == [["1408", "245.0 ± 7.1"]]
    assert tables["Idle latency (ms, median per run)"] == [["1408", "0.5000 ± 0.0000"]]
    plain = [title for title, _header, _rows in step_tables(_step(tmp_path, False))]
    assert plain == ["Throughput"]
