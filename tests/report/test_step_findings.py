"""The exercise's step view and the lab report say what the comparison says: a TCP+UDP step's
findings carry the comparison's own sentences (one generator), every point of the sweep in
them, UDP's losses at small sizes and its wins at large ones alike."""

from __future__ import annotations

from pathlib import Path

from app.analysis.compare import Mode, compare, series_data
from app.analysis.points import point_summaries
from app.domain.exercise import Exercise, Step
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.report.html_parts import e
from app.report.lab_report import LabReport, StepReport, lab_report_html, step_findings
from app.store.db import Database
from app.store.sessions import SessionStore
from tests.analysis.findings_text import covered_points, statement_verdicts

SIZES = (128, 384, 640, 896, 1152, 1408)
# Mbit/s per run: TCP steady near 47.5; UDP below it up to 640 B, level at 896 B, above after.
TCP = [47.4, 47.6, 47.5]
UDP = {
    128: [37.5, 37.6, 37.4],
    384: [44.9, 45.0, 45.1],
    640: [46.3, 46.5, 46.4],
    896: [47.3, 47.7, 47.5],
    1152: [48.2, 48.3, 48.4],
    1408: [48.5, 48.6, 48.7],
}


def test_a_steps_findings_are_the_comparisons_and_name_every_point(tmp_path: Path) -> None:
    plan = Plan(
        peer=Peer("lab-peer"),
        protocols=(Protocol.TCP, Protocol.UDP),
        values=SIZES,
        repetitions=3,
        duration_s=10,
        name="tcp-udp",
    )
    with Database(tmp_path / "db.sqlite3") as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for protocol in (Protocol.TCP, Protocol.UDP):
            for index, size in enumerate(SIZES):
                values = TCP if protocol is Protocol.TCP else UDP[size]
                for rep, mbit in enumerate(values, start=1):
                    store.add_run(
                        sid,
                        RunKey(protocol, IpVersion.V4, index, rep),
                        size,
                        metrics=RunMetrics(throughput_bps=mbit * 1e6),
                        started_at=utc_now(),
                        elapsed_s=10.0,
                        engine="iperf3",
                    )
        store.finish(sid, SessionStatus.COMPLETED)
        session = store.get(sid)
        runs = store.runs(sid)
    comparison = compare(series_data(session, runs, "throughput_bps"), mode=Mode.WITHIN)
    step = StepReport(
        1,
        Step("TCP against UDP", "Measure both.", plan),
        session,
        point_summaries(plan, runs),
        comparison,
        [],
    )
    said = step_findings(step)
    start = said.index(comparison.findings[0])
    assert said[start : start + len(comparison.findings)] == comparison.findings
    values = [float(s) for s in SIZES]
    assert covered_points(said, values, "B") == values, said
    verdicts = statement_verdicts(
        said, "TCP · IPv4", "UDP · IPv4", "B", higher_is_better=True, values=values
    )
    (pair,) = comparison.pairs
    table = {
        p.value: "same" if not p.significant else ("higher" if (p.difference or 0) > 0 else "lower")
        for p in pair.points
    }
    assert verdicts == table, said
    assert table[128.0] == "lower" and table[1408.0] == "higher", table
    assert "At 1152 and 1408 B, UDP · IPv4 had between" in " ".join(said)
    # The lab report prints the same sentences.
    exercise = Exercise("tcp-udp", "TCP against UDP", "Compare them.", (step.step,))
    html = lab_report_html(LabReport(exercise, "Ada", "", [step], [], []), {})
    for sentence in comparison.findings:
        assert f"<li>{e(sentence)}</li>" in html
