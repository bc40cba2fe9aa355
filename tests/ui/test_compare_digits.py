"""Two sessions a few hundred bit/s apart, one of runs all alike (an SD of exactly 0), read as a
person reads them: each session's results table to enough digits, the Compare tab's two means
apart by the difference beside them, and why each row's interval has a level of its own,
there for the reading (the column title's tooltip and the findings)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QTableWidget, QToolTip

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Peer, Plan, RunKey
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.ui.test_compare_tab import _select
from tests.ui.user import User, wait_for

#: Mbit/s per run at 128 B and 1408 B: "alike" has an SD of exactly 0 at both.
RUNS = {
    "alike": {128: [27.739033] * 3, 1408: [41.2] * 3},
    "spread": {128: [27.7391, 27.7397, 27.7403], 1408: [43.0, 43.4, 43.8]},
}


def _store(window: MainWindow) -> None:
    with Database(window.context.db_path) as db:
        store = SessionStore(db)
        for name, runs in RUNS.items():
            plan = Plan(peer=Peer("lab-peer"), values=(128, 1408), repetitions=3, name=name)
            sid = store.create_session(plan)
            for index, value in enumerate((128, 1408)):
                for rep, mbit in enumerate(runs[value], start=1):
                    store.add_run(
                        sid,
                        RunKey(Protocol.TCP, IpVersion.V4, index, rep),
                        value,
                        metrics=RunMetrics(throughput_bps=mbit * 1e6),
                        started_at=utc_now(),
                        elapsed_s=10.0,
                        engine="iperf3",
                    )
            store.finish(sid, SessionStatus.COMPLETED)


def _differences(window: MainWindow, user: User) -> list[dict[str, str]]:
    """The Differences table, by its titles, with "alike" the baseline."""
    _store(window)
    _select(user, "alike", "spread")
    wait_for(lambda: len(user.table_rows("Differences")) == 2, 10, "the differences")
    headers = user.headers("Differences")
    return [dict(zip(headers, r, strict=True)) for r in user.table_rows("Differences")]


def test_runs_all_alike_show_four_digits_in_the_results(window: MainWindow, user: User) -> None:
    _store(window)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    rows = user.table_rows("Sessions")
    user.click_row("Sessions", next(i for i, row in enumerate(rows) if "alike" in row))
    wait_for(lambda: len(user.table_rows("Session results")) == 2, 10, "its results")
    headers = user.headers("Session results")
    first = dict(zip(headers, user.table_rows("Session results")[0], strict=True))
    # An SD of exactly 0: four digits of the mean, the zero to its places (not "27.7 | 0.0").
    assert (first["Mean"], first["Std dev"]) == ("27.74 Mbit/s", "0.00"), first


def test_the_compared_means_are_apart_by_the_difference(window: MainWindow, user: User) -> None:
    at_128 = next(r for r in _differences(window, user) if r["Value"] == "128")
    assert at_128["Difference"] == "+667 bit/s", at_128
    # The two means apart by what the Difference says, not "27.7 Mbit/s" twice.
    assert (at_128["Baseline mean"], at_128["Mean"]) == ("27.7390 Mbit/s", "27.7397 Mbit/s")


def test_why_each_interval_has_its_own_level_is_said(window: MainWindow, user: User) -> None:
    """97.5 % on one row and 95 % on the other: why, where the levels are read (the column
    title's tooltip) and in the findings."""
    rows = _differences(window, user)
    title = "CI of the difference at its Holm step's level"
    assert {r[title].rpartition(" (")[2] for r in rows} == {"95 %)", "97.5 %)"}, rows
    table = user.find("Differences", QTableWidget)
    column = user.headers("Differences").index(title)
    # Pointed at, the column's title shows it.
    table.scrollTo(table.model().index(0, column))
    header = table.horizontalHeader()
    at = QPoint(header.sectionViewportPosition(column) + 4, header.height() // 2)
    QApplication.sendEvent(
        header.viewport(), QHelpEvent(QEvent.Type.ToolTip, at, header.viewport().mapToGlobal(at))
    )
    wait_for(QToolTip.isVisible, 5, "the title's tooltip")
    tip = QToolTip.text()
    assert "Why the level differs from row to row" in tip
    assert "k-th smallest p of the m tested at α / (m − k + 1)" in tip
    assert "1 − α / (m − k + 1)" in tip and "97.5 %, then 95 %" in tip
    user.tab("Findings")
    findings = user.text("Findings")
    assert "the k-th smallest p of the m is tested at α / (m − k + 1)" in findings
    assert "so its interval is at 1 − α / (m − k + 1): 97.5 % for the smallest p" in findings
