"""A session's report (HTML, and the PDF printed from it) has a table for every metric the
session measured: CPU on both computers too, as its CSV and the window's CPU tab have."""

from __future__ import annotations

from pathlib import Path

from app.analysis.points import point_summaries
from app.domain.metrics import POINT_METRICS
from app.domain.net import Protocol
from app.domain.plan import Peer, Plan
from app.domain.records import RunMetrics, utc_now
from app.report.html_report import report_html
from app.report.report_data import collect, sessions_comparison
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor


def test_a_sessions_report_has_a_table_for_each_metric_it_measured(tmp_path: Path) -> None:
    path = tmp_path / "linklab.sqlite3"
    plan = Plan(peer=Peer("lab-peer"), protocols=(Protocol.TCP,), values=(128, 1408), repetitions=2)
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for key in plan.run_keys():
            figures = RunMetrics(
                throughput_bps=9e6 + key.repetition,
                rtt_mean_ms=1.0 + key.repetition,
                retransmits=key.repetition,
                cpu_local_pct=10.0 + key.repetition,
                cpu_remote_pct=20.0 + key.repetition,
            )
            value = plan.values[key.value_index]
            store.add_run(
                sid,
                key,
                value,
                metrics=figures,
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
        runs = store.runs(sid)
    measured = {
        m.name
        for m in POINT_METRICS
        for p in point_summaries(plan, runs)
        if (s := p.metrics.get(m.name)) is not None and s.n
    }
    assert {"cpu_local_pct", "cpu_remote_pct", "rtt_ms"} <= measured
    door = FrontDoor(path)
    page = report_html(collect(sessions_comparison(door, [sid]), door), b"", {})
    for metric in POINT_METRICS:
        if metric.name in measured:
            assert metric.shown.report is not None, f"{metric.name} has no table in reports"
            assert f"<h4>{metric.shown.report[1]}</h4>" in page, metric.name
    assert "CPU on this computer" in page and "CPU on the peer" in page
