"""Measure › Monitor against this computer's real iperf3: Start monitor charts the flow and
fills its figures as it runs; Stop monitor keeps every interval, and the monitor is listed in
Sessions; a peer that goes away is said in a sentence and the monitor goes on when it is back."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QTabBar, QWidget

from app.domain.net import Flow, Protocol
from app.domain.plan import Engine, Medium, Security
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.conftest import linklab
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3


def figures(user: User) -> dict[str, list[str]]:
    """The figures beside the chart, by column: {'Upload (sent)': [now, mean, min, max]}."""
    rows, names = user.table_rows("Monitor figures"), user.headers("Monitor figures")
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


def stored_plot_tabs(user: User) -> list[str]:
    """The tabs of the stored monitor's plots on view in Sessions, as they read."""
    chart = user.find("Stored monitor chart")
    (bar,) = [bar for bar in chart.findChildren(QTabBar) if user.shown(bar)]
    return [bar.tabText(i) for i in range(bar.count()) if bar.isTabVisible(i)]


def charted(user: User) -> int:
    """Points the monitor's chart draws of its throughput now."""
    chart = user.find("Monitor chart")
    chart.redraw()  # type: ignore[attr-defined]
    return sum(chart.drawn("throughput").values())  # type: ignore[attr-defined]


def width(chart: QWidget) -> float:
    """Seconds across the chart's time axis."""
    low, high = chart.viewRange()[0]  # type: ignore[attr-defined]
    return float(high - low)


def test_monitor_charts_until_stop_and_is_kept_as_a_session(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    assert user.can_see("Results")
    user.tab("Monitor")
    assert not user.can_see("Results")  # the sweep's table gives the chart its height
    panel = user.find("Monitor")
    assert user.find("Show the last", root=panel).text() == "5 minutes"
    user.click("Start monitor")
    chart = user.find("Monitor chart")
    wait_for(lambda: sum(chart.drawn("throughput").values()) >= 3, 20, "three points charted")  # type: ignore[attr-defined]
    # The live figures are the sender's (the receiver's come as each run ends): said so.
    wait_for(lambda: "Upload (sent)" in figures(user), 5, "the figures")
    now, mean, low, high = figures(user)["Upload (sent)"]
    assert all(text.endswith("bit/s") for text in (now, mean, low, high)), figures(user)
    assert "Monitoring this computer" in user.text("Monitor status")
    port = window.context.loopback.port(Engine.IPERF3)  # LinkLab's own server's, in use
    assert f"-p {port} -t 300 -i 1" in user.text("Command")  # the monitor's run, as it runs
    # The rolling window: the last minute, then the whole history from the start.
    span = user.find("Monitor throughput chart")
    user.type("Show the last", "1", enter=True)
    assert user.text("Show the last") == "1 minute"
    wait_for(lambda: width(span) == pytest.approx(60, rel=0.05), 5, "a one-minute window")
    user.check("Whole history")
    assert not user.find("Show the last").isEnabled()
    wait_for(lambda: width(span) < 30, 5, "the whole history of a few seconds")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    assert "Monitor saved as session" in user.text("Monitor status")
    assert user.find("Start").isEnabled()  # the Measure tab's Start is free again
    assert "-t 300" not in user.text("Command")  # the study's command again
    user.tab("Sessions")
    name = "Monitor · TCP · IPv4 · upload"
    wait_for(
        lambda: any(name in " ".join(row) for row in user.table_rows("Sessions")),
        10,
        "the monitor in Sessions",
    )
    (row,) = user.table_rows("Sessions")
    assert row[-1] == "Monitor"  # its kind, beside the sweeps
    # Stop is a monitor's end: the run it cut short counts as a run, the session as completed.
    runs_and_status = dict(zip(user.headers("Sessions"), row, strict=True))
    assert runs_and_status["Runs"] == "1/1", row
    assert runs_and_status["Status"] == "completed", row
    user.click_row("Sessions", 0)
    wait_for(lambda: "monitor: 1 run of up to 300 s" in user.text("Session details"), 10, "it")
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        assert session.plan.is_monitor
        (run,) = store.runs(session.id, partial=True)
        samples = store.samples(run.id)
    assert len(samples) >= 3  # stopped mid-run: every interval it measured is kept
    assert run.status == "ok" and "Stopped by the user." in session.status_reason
    # Exported like any session: one CSV row per interval.
    out = tmp_path / "monitor.csv"
    exported = linklab(
        "export", session.short_id, "--format", "samples", "--out", str(out),
        "--db", str(window.context.db_path),
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    rows = out.read_text(encoding="utf-8-sig").splitlines()
    assert len(rows) == 1 + len(samples)
    assert rows[1].split(",")[6] == "none"  # the plan's variable: a monitor sweeps nothing
    # The run stopped mid-way is a run of the export: its throughput, its intervals' mean.
    out = tmp_path / "monitor-runs.csv"
    exported = linklab(
        "export", session.short_id, "--format", "csv", "--out", str(out),
        "--db", str(window.context.db_path),
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    (exported_run,) = list(csv.DictReader(out.read_text(encoding="utf-8-sig").splitlines()))
    assert exported_run["status"] == "ok" and exported_run["repetition"] == "1"
    # Its intervals' mean over time (the last, cut by Stop, is shorter): iperf3's own sum.
    rates = [s.goodput_bps(Protocol.TCP) or 0.0 for s in samples]
    measured = np.average(rates, weights=[s.end_s - s.start_s for s in samples])
    assert float(exported_run["throughput_bps"]) == pytest.approx(measured, rel=1e-3)
    assert int(exported_run["retransmits"]) == sum(s.retransmits or 0 for s in samples)


def test_a_peer_that_goes_away_is_said_and_the_monitor_goes_on_when_it_is_back(
    window: MainWindow, user: User
) -> None:
    user.tab("Monitor")
    user.click("Start monitor")
    chart = user.find("Monitor chart")

    def points() -> int:
        return charted(user)

    wait_for(lambda: points() >= 2, 20, "two points charted")
    loopback = window.context.loopback
    assert loopback is not None
    (server,) = loopback.servers  # LinkLab's own iperf3 server on the loopback
    server.stop()  # the peer goes away mid-run
    wait_for(lambda: "stopped answering" in user.text("Monitor status"), 15, "the sentence")
    assert "keeps everything it measured" in user.text("Monitor status")
    assert window.measure.running  # the monitor keeps trying
    wait_for(lambda: "tries again in 2 s" in user.text("Monitor status"), 15, "a longer wait")
    before = points()
    server.start()  # the peer is back, on the same port
    wait_for(lambda: "answers again" in user.text("Monitor status"), 25, "the peer back")
    wait_for(lambda: points() >= before + 2, 10, "points after the gap")
    status = user.text("Monitor status")  # the return stays said beside the elapsed time
    assert "Monitoring this computer" in status and "answers again" in status, status
    assert chart.breaks("throughput") == 1  # type: ignore[attr-defined]  # drawn as a gap
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        runs = store.runs(session.id, partial=True)
        measured = [len(store.samples(run.id)) for run in runs]
    # The run the peer cut short kept its intervals, and the run after the gap has its own.
    assert measured[0] >= 2 and measured[-1] >= 2, measured
    assert any(run.status == "failed" for run in runs), [run.status for run in runs]


def test_with_working_latency_the_points_are_placed_after_the_idle_probes(
    window: MainWindow, user: User
) -> None:
    user.tab("Monitor")
    user.check("Monitor working latency")
    user.click("Start monitor")
    chart = user.find("Monitor chart")

    def times() -> list[float]:
        chart.redraw()  # type: ignore[attr-defined]
        return chart.times("throughput", "upload (sent)")  # type: ignore[attr-defined, no-any-return]

    wait_for(lambda: len(times()) >= 2, 20, "two points charted")
    wait_for(lambda: "latency" in chart.drawn("latency"), 5, "the latency curve")  # type: ignore[attr-defined]
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    # Two seconds of idle probes come before the engine's first second: its first interval
    # ends three seconds or so after the start, not one. The points are then as far apart as
    # the engine's intervals, each as long as the engine stated it (a second on a quiet
    # computer; on a busy one the engine's timer fires late now and then).
    first, second = times()[:2]
    with Database(window.context.db_path, readonly=True) as db:
        store = SessionStore(db)
        (session,) = store.list_sessions()
        run = store.runs(session.id, partial=True)[0]
        ends = [s.end_s for s in store.samples(run.id) if s.flow is Flow.UP]
    assert first >= 2.8 and abs(ends[1] - ends[0] - 1.0) < 0.5, (times(), ends)
    assert second - first == pytest.approx(ends[1] - ends[0], abs=0.01), (times(), ends)


def test_a_monitor_is_kept_with_the_conditions_the_form_states(
    window: MainWindow, user: User
) -> None:
    """As found: a monitor was stored "Conditions: not stated" beside a form that said open
    Ethernet, so its warnings could not tell what the link was."""
    user.choose("Security", "open (no security)")
    user.choose("Medium", "Ethernet")
    user.tab("Monitor")
    user.click("Start monitor")
    wait_for(lambda: charted(user) >= 2, 20, "two points charted")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 10, "the monitor to stop")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the monitor in Sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: "monitor:" in user.text("Session details"), 10, "the monitor")
    with Database(window.context.db_path, readonly=True) as db:
        (session,) = SessionStore(db).list_sessions()
    assert session.plan.is_monitor
    assert session.conditions.security is Security.OPEN
    assert session.conditions.medium is Medium.ETHERNET
    assert not session.conditions.medium_detected_by  # the user's word, as the form said it
    shown = linklab("sessions", "show", session.id, "--db", str(window.context.db_path))
    assert shown.returncode == 0, shown.stderr
    lines = [x for x in shown.stdout.splitlines() if "conditions" in x.lower()]
    assert lines and "open" in lines[0] and "Ethernet" in lines[0], shown.stdout
