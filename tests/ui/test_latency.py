"""Working latency in the window, used as a person uses it: tick Working latency, run a short
study against this computer, watch the probes' round trips beside the throughput, read the
latency columns and the method in the log, the results and the stored session's view."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Metric, Peer, Plan, RunKey, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.common.latency_chart import LatencyChart
from app.ui.main_window import MainWindow
from app.ui.sessions.reading import COMPARED
from tests.conftest import linklab
from tests.sentences import check_session
from tests.ui.journey import save_as
from tests.ui.shown_sentences import shown_warnings
from tests.ui.test_measure import plan_sweep, sessions
from tests.ui.user import User, wait_for


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_study_with_working_latency_against_this_computer(window: MainWindow, user: User) -> None:
    user.check("Working latency")
    plan_sweep(user, "1408", runs=2, seconds=2)
    assert "4 runs" not in user.text("Estimated time")  # 2 runs: the idle probes counted
    user.tab("Advanced")
    assert user.find("Latency responder port").isEnabled()
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: user.can_see("Latency chart"), 10, "the latency chart")
    chart = user.find("Latency chart", LatencyChart)
    wait_for(lambda: chart.median("idle") is not None, 30, "the idle probes on the chart")
    wait_for(lambda: chart.median("loaded") is not None, 30, "the loaded probes on the chart")
    assert user.can_see("Current run chart")  # throughput beside it
    wait_for(lambda: not window.measure.running, 60, "the study")
    assert "completed" in user.text("Status")
    assert "Latency measured with LinkLab's UDP echo on 127.0.0.1 port" in user.text("Log")
    headers = user.headers("Results")
    assert {"Idle latency ms", "Loaded latency ms", "Loaded p90 ms"} <= set(headers)
    (row,) = user.table_rows("Results")
    loaded = float(row[headers.index("Loaded latency ms")])
    assert loaded > 0
    user.tab("Latency")  # the sweep's latency by point
    # The stored session shows the same columns and says how latency was measured.
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.table_rows("Session results"), 5, "the session's table")
    (stored,) = user.table_rows("Session results")
    assert stored[1:] == row[1:]  # the live table names the series more briefly
    # The header gives the status, not how latency was measured: the details say that.
    assert user.text("Session details").count("completed") == 1
    assert "Latency measured" not in user.text("Session details")
    user.tab("Details")
    assert "Working latency by udp-echo" in user.text("Session conditions and environment")
    user.tab("Latency")
    # 2-s runs leave the loaded probes a second: no warning that they were few.
    if user.can_see("Session warnings"):
        assert "first report" not in user.text("Session warnings")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_one_second_runs_say_their_loaded_latency_rests_on_few_probes(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.check("Working latency")
    plan_sweep(user, "1408", runs=2, seconds=1)
    user.type("Session name", "one second")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the study")
    assert "completed" in user.text("Status")
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session warnings"), 5, "the session's warnings")
    (said,) = [w for w in shown_warnings(user.text("Session warnings")) if "first report" in w]
    assert said == (
        "Working latency under load is probed from the engine's first report, 1 s into each "
        "run, to its end: 1-s runs leave its probes less than 1 s, so the loaded latency rests "
        "on few probes (its p90 near its median). Measure for 2 s or more (the Seconds per run "
        "field, or --duration)."
    )
    # What it says of the probes is what they were: a handful per run, where a second of
    # load gives a hundred (one each 10 ms).
    (session,) = sessions(window)
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        runs = [r for r in store.runs(session.id) if r.ok]
        answered = [sum(s.answered for s in store.latency_seconds(r.id)) for r in runs]
    # A run may get none at all (its engine ended right after its first report): the
    # warning stands on those that got one.
    assert len(runs) == 2 and any(r.metrics.latency_p90_ms is not None for r in runs)
    assert max(answered) < 20, answered
    # Every sentence the view shows, read against the tables the command line gives.
    db = str(window.context.db_path)
    data = json.loads(linklab("sessions", "show", "one second", "--json", "--db", db).stdout)
    table = linklab("export", "one second", "--format", "csv", "--out", "-", "--db", db).stdout
    warnings = shown_warnings(user.text("Session warnings"))
    assert warnings == data["warnings"]
    check_session(data, table, findings=data["findings"], warnings=warnings)
    # The report says it too, before its numbers.
    page = tmp_path / "one-second.html"
    with user.answering(save_as(page)):
        user.click("Export HTML…")
    wait_for(page.exists, 60, page.name)
    written = page.read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", " ", written))
    assert " ".join(said.split()) in " ".join(text.split())
    # A 1-s run is one interval: no chart over time of two dots, a sentence saying why.
    assert "Throughput over time: not drawn, as each run gave a single interval" in text
    assert 'class="timeline"' not in written
    # Its findings are the view's: its own (the loaded latency against the idle), then its
    # series against each other.
    user.tab("Findings")
    own, compared = user.text("Session findings").split(COMPARED)
    assert "a probe waited" in own
    shown = [part.strip() for part in (own + compared).split("\n\n") if part.strip()]
    section = written.split("<h2>Findings</h2>")[1].split("<h2>")[0]
    listed = [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", section)]
    assert listed == shown
    assert "<h3>Its series against each other</h3>" in section


def test_the_responder_port_is_greyed_out_without_working_latency(
    window: MainWindow, user: User
) -> None:
    user.check("Working latency", False)
    user.tab("Advanced")
    port = user.find("Latency responder port")
    assert not port.isEnabled() and "Working latency" in port.toolTip()


def _latency_session(path: Path, security: Security, loaded: list[float]) -> str:
    """A stored session of four runs at 1408 B with these loaded latencies (ms)."""
    plan = Plan(
        peer=Peer("lab-peer"),
        values=(1408,),
        repetitions=len(loaded),
        duration_s=10,
        metrics=(Metric.THROUGHPUT, Metric.LATENCY),
        conditions=Conditions(security=security),
        name=security.value,
    )
    with Database(path) as db:
        store = SessionStore(db)
        sid = store.create_session(plan)
        for rep, ms in enumerate(loaded, start=1):
            store.add_run(
                sid,
                RunKey(Protocol.TCP, IpVersion.V4, 0, rep),
                1408,
                metrics=RunMetrics(
                    throughput_bps=9e6,
                    latency_ms=ms,
                    latency_idle_ms=0.4,
                    latency_method="udp-echo",
                ),
                started_at=utc_now(),
                elapsed_s=10.0,
                engine="iperf3",
            )
        store.finish(sid, SessionStatus.COMPLETED)
    return sid


def test_the_compare_tab_compares_working_latency(window: MainWindow, user: User) -> None:
    _latency_session(window.context.db_path, Security.OPEN, [30.2, 31.0, 29.5, 30.8])
    _latency_session(window.context.db_path, Security.WPA2, [242.0, 240.5, 243.1, 241.7])
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 5, "the sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the pair")
    user.choose("Metric", "working latency (ms)")
    headers = user.headers("Differences")
    col = {h: i for i, h in enumerate(headers)}
    wait_for(lambda: "ms" in user.table_rows("Differences")[0][col["Difference"]], 5, "latency")
    (row,) = user.table_rows("Differences")
    assert row[col["Difference"]] == "+211 ms"
    assert row[col["Significant (α = 0.05)"]] == "yes"
    user.tab("Findings")
    assert "under upload load" in user.text("Findings")
    assert "WPA2 added 211 ms" in user.text("Findings")
