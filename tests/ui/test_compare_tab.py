"""The Compare tab on sessions with known differences."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from PySide6.QtCore import Qt

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Peer, Plan, RunKey, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.compare.tab import CompareTab
from app.ui.context import AppContext
from tests.ui.user import wait_for

OPEN = {128: [20.0, 20.5, 19.5], 1408: [45.2, 45.7, 46.2, 45.4, 45.5]}
WPA2 = {128: [20.1, 19.8, 20.4], 1408: [42.1, 43.0, 42.6, 42.2, 42.9]}


def _sessions(path: Path) -> list[str]:
    ids = []
    with Database(path) as db:
        store = SessionStore(db)
        for security, runs in ((Security.OPEN, OPEN), (Security.WPA2, WPA2)):
            plan = Plan(
                peer=Peer("lab-peer"),
                values=(128, 1408),
                repetitions=5,
                conditions=Conditions(security=security),
                name=security.value,
            )
            sid = store.create_session(plan)
            for index, value in enumerate((128, 1408)):
                for rep, mbit in enumerate(runs[value], start=1):
                    store.add_run(
                        sid,
                        RunKey(Protocol.TCP, IpVersion.V4, index, rep),
                        value,
                        metrics=RunMetrics(throughput_bps=mbit * 1e6),
                        started_at=utc_now(),
                        elapsed_s=60.0,
                        engine="netperf",
                    )
            store.finish(sid, SessionStatus.COMPLETED)
            ids.append(sid)
    return ids


def test_compare_tab(qtbot, context: AppContext, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ids = _sessions(context.db_path)
    tab = CompareTab(context)
    qtbot.addWidget(tab)
    tab.resize(1280, 800)
    tab.show()
    tab.load_sessions(ids)
    wait_for(lambda: not tab.reading, 10, "the sessions")
    assert [tab.curves.item(i).text() for i in range(tab.curves.count())] == ["Open", "WPA2"]
    assert tab.chart.series_names == ["Open", "WPA2"]
    assert tab.differences.rowCount() == 2
    cells = {
        tab.differences.item(r, 1).text(): [tab.differences.item(r, c).text() for c in range(9)]
        for r in range(2)
    }
    assert cells["1408"][8] == "yes" and cells["128"][8] == "no"
    assert cells["1408"][4] == "−3.04 Mbit/s"
    assert "The largest difference is at 1408 B" in tab.findings.toPlainText()
    assert tab.std_table.columnCount() == 3 and tab.std_table.rowCount() == 2
    y_range = tab.chart.getPlotItem().viewRange()[1]
    # Hiding a curve leaves the axes where they were.
    tab.curves.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert tab.chart.series_names == ["WPA2"]
    assert tab.chart.getPlotItem().viewRange()[1] == y_range
    tab.curves.item(0).setCheckState(Qt.CheckState.Checked)
    # WPA2 as the baseline flips the sign.
    tab.baseline.setCurrentIndex(1)
    assert tab.differences.item(1, 4).text() == "3.04 Mbit/s"
    # CI error bars instead of SD: the bars get wider (t > 1 for 5 runs... and n≥3).
    tab.spread.setCurrentIndex(1)
    assert "95 % CI" in tab.chart.getPlotItem().titleLabel.text
    chart = tmp_path / "chart.png"
    tab.export_to("png", chart, png_size=(1600, 900))
    from PySide6.QtGui import QImage

    assert QImage(str(chart)).size().toTuple() == (1600, 900)
    out = tmp_path / "table.csv"
    tab.export_to("csv", out)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 2 and rows[0]["significant_at_0.05"] in ("yes", "no")


def test_share_chart_for_concurrent_sessions(qtbot, context: AppContext) -> None:  # type: ignore[no-untyped-def]
    from app.ui.sessions.view import SessionView

    with Database(context.db_path) as db:
        store = SessionStore(db)
        plan = Plan(
            peer=Peer("lab-peer"),
            protocols=(Protocol.TCP, Protocol.UDP),
            values=(60,),
            repetitions=2,
            concurrent=True,
            name="lab 2",
        )
        sid = store.create_session(plan)
        for protocol, mbit in ((Protocol.TCP, [30.0, 32.0]), (Protocol.UDP, [10.0, 10.0])):
            for rep, value in enumerate(mbit, start=1):
                store.add_run(
                    sid,
                    RunKey(protocol, IpVersion.V4, 0, rep),
                    60,
                    metrics=RunMetrics(throughput_bps=value * 1e6),
                    started_at=utc_now(),
                    elapsed_s=60.0,
                    engine="iperf3",
                )
        store.finish(sid, SessionStatus.COMPLETED)
        session, runs = store.get(sid), store.runs(sid)
    view = SessionView()
    qtbot.addWidget(view)
    view.show_session(session, runs)
    share_tab = view.tabs.indexOf(view.share_chart)
    assert view.tabs.isTabVisible(share_tab)
    assert view.share_chart.bars == 2
    texts = sorted(
        item.toPlainText() for item in view.share_chart._items if hasattr(item, "toPlainText")
    )
    assert texts == ["24.4 %", "75.6 %"]  # 31 of 41 Mbit/s, and 10 of 41


def test_compare_view_shows_the_share_of_concurrent_sessions(qtbot, context: AppContext) -> None:  # type: ignore[no-untyped-def]
    ids = _sessions(context.db_path)
    with Database(context.db_path) as db:
        store = SessionStore(db)
        plan = Plan(
            peer=Peer("lab-peer"),
            protocols=(Protocol.TCP, Protocol.UDP),
            values=(60,),
            repetitions=1,
            concurrent=True,
            name="lab 2",
        )
        sid = store.create_session(plan)
        for protocol, mbit in ((Protocol.TCP, 30.0), (Protocol.UDP, 10.0)):
            store.add_run(
                sid,
                RunKey(protocol, IpVersion.V4, 0, 1),
                60,
                metrics=RunMetrics(throughput_bps=mbit * 1e6),
                started_at=utc_now(),
                elapsed_s=60.0,
                engine="iperf3",
            )
        store.finish(sid, SessionStatus.COMPLETED)
    tab = CompareTab(context)
    qtbot.addWidget(tab)
    tab.load_sessions(ids)
    wait_for(lambda: not tab.reading, 10, "the sessions")
    share_tab = tab.tables.indexOf(tab.share_chart)
    assert not tab.tables.isTabVisible(share_tab)  # no series ran at the same time
    tab.load_sessions([sid, ids[0]])
    wait_for(lambda: not tab.reading, 10, "the sessions")
    assert tab.tables.isTabVisible(share_tab) and tab.share_chart.bars == 2
