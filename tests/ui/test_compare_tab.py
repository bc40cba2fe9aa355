"""The Compare tab on stored sessions with known differences, used as a person does: sessions
picked in the Sessions tab, the baseline chosen, pairs read, the banner seen, the CSV saved."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Engine, Peer, Plan, RunKey, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.compare.tab import CompareTab
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.journey import save_as
from tests.ui.user import User, wait_for

OPEN = {128: [20.0, 20.5, 19.5, 20.2, 19.8], 1408: [45.2, 45.7, 46.2, 45.4, 45.5]}
WPA2 = {128: [20.1, 19.8, 20.4, 19.9, 20.3], 1408: [42.1, 43.0, 42.6, 42.2, 42.9]}


def _add(
    store: SessionStore,
    name: str,
    security: Security,
    runs: dict[int, list[float]],
    protocols: tuple[Protocol, ...] = (Protocol.TCP,),
    duration_s: int = 60,
) -> str:
    """A stored netperf session; its UDP series (if any) carries half the TCP throughput."""
    plan = Plan(
        peer=Peer("lab-peer"),
        engine=Engine.NETPERF,
        protocols=protocols,
        values=(128, 1408),
        repetitions=5,
        duration_s=duration_s,
        conditions=Conditions(security=security),
        name=name,
    )
    sid = store.create_session(plan)
    for protocol in protocols:
        scale = 1.0 if protocol is Protocol.TCP else 0.5
        for index, value in enumerate((128, 1408)):
            for rep, mbit in enumerate(runs[value], start=1):
                store.add_run(
                    sid,
                    RunKey(protocol, IpVersion.V4, index, rep),
                    value,
                    metrics=RunMetrics(throughput_bps=mbit * scale * 1e6, cpu_local_pct=10.0 + rep),
                    started_at=utc_now(),
                    elapsed_s=float(duration_s),
                    engine="netperf",
                )
    store.finish(sid, SessionStatus.COMPLETED)
    return sid


def _sessions(path: Path) -> list[str]:
    with Database(path) as db:
        store = SessionStore(db)
        return [
            _add(store, Security.OPEN.value, Security.OPEN, OPEN),
            _add(store, Security.WPA2.value, Security.WPA2, WPA2),
        ]


def _select(user: User, *names: str) -> None:
    """Select the sessions by name in the Sessions tab and press Compare."""
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) >= len(names), 5, "the sessions")
    rows = user.table_rows("Sessions")
    picks = [next(i for i, row in enumerate(rows) if name in row) for name in names]
    user.click_row("Sessions", picks[0])
    for row in picks[1:]:
        user.click_row("Sessions", row, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")


def _pairs(user: User) -> list[str]:
    return [row[0] for row in user.table_rows("Pairs compared")]


def test_compare_pairs_like_with_like_and_warns(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    both = (Protocol.TCP, Protocol.UDP)
    with Database(window.context.db_path) as db:
        store = SessionStore(db)
        _add(store, "open", Security.OPEN, OPEN, both)
        _add(store, "wpa2", Security.WPA2, WPA2, both)
        _add(store, "wpa2 short", Security.WPA2, WPA2, both, duration_s=10)
    _select(user, "open", "wpa2")
    wait_for(lambda: len(_pairs(user)) == 2, 10, "the pairs")
    # The session measured first is the baseline; each series against its own kind.
    assert _pairs(user) == [
        "TCP · IPv4 · WPA2  ↔  TCP · IPv4 · Open",
        "UDP · IPv4 · WPA2  ↔  UDP · IPv4 · Open",
    ]
    assert not user.can_see("Comparison warnings")  # alike but for security: no banner
    assert user.text("Baseline session") == "open"
    rows = user.table_rows("Differences")
    assert len(rows) == 4  # two pairs, two sizes each
    headers = user.headers("Differences")
    col = {h: i for i, h in enumerate(headers)}
    tcp_1408 = next(r for r in rows if r[0].startswith("TCP") and r[col["Value"]] == "1408")
    assert tcp_1408[col["Against"]] == "TCP · IPv4 · Open"
    assert tcp_1408[col["Difference"]] == "−3.04 Mbit/s"
    assert tcp_1408[col["Significant (α = 0.05)"]] == "yes"
    assert all(not r[col["Against"]].startswith("TCP") for r in rows if r[0].startswith("UDP"))
    # The interval beside the verdict is the one it rests on: at 1408 B Holm's first step of
    # two (97.5 %), wholly below zero; at 128 B the second step (95 %), across zero.
    ci = col["CI of the difference at its Holm step's level"]
    assert tcp_1408[ci].startswith("−") and " … −" in tcp_1408[ci]
    assert tcp_1408[ci].endswith("(97.5 %)")
    tcp_128 = next(r for r in rows if r[0].startswith("TCP") and r[col["Value"]] == "128")
    assert tcp_128[col["Significant (α = 0.05)"]] == "no"
    assert tcp_128[ci].startswith("−") and " … +" in tcp_128[ci] and tcp_128[ci].endswith("(95 %)")
    # The findings name both points of each pair, each once.
    user.tab("Findings")
    findings = user.text("Findings")
    for pair in ("TCP", "UDP"):
        other, base = f"{pair} · IPv4 · WPA2", f"{pair} · IPv4 · Open"
        assert f"At 128 B there is no significant difference between {other} and {base}" in (
            findings
        )
        assert f"At 1408 B, {other} had " in findings
    assert findings.count("At 128 B") == 2 and findings.count("At 1408 B") == 2
    user.tab("Differences")

    # WPA2 as the baseline flips the sign.
    user.choose("Baseline session", "wpa2")
    rows = user.table_rows("Differences")
    tcp_1408 = next(r for r in rows if r[0].startswith("TCP") and r[col["Value"]] == "1408")
    assert tcp_1408[col["Difference"]] == "+3.04 Mbit/s"

    # The series within one session: UDP against TCP, a choice of its own.
    user.check("Compare the series within one session")
    rows = user.table_rows("Differences")
    assert {(r[0], r[1]) for r in rows} == {("UDP · IPv4", "TCP · IPv4")}
    user.check("Compare the series within one session", False)
    assert not user.can_see("Session")  # the list is the baseline's again, and says so

    # Ticked, then another metric read: still the series within, under the label "Session".
    user.check("Compare the series within one session")
    assert user.can_see("Session")
    metrics = user.options("Metric")
    user.choose("Metric", metrics[1])
    wait_for(lambda: not window.compare_tab.reading, 10, "the sessions read again")
    assert user.find("Compare the series within one session").isChecked()  # type: ignore[attr-defined]
    assert user.can_see("Session")
    user.choose("Metric", metrics[0])
    wait_for(lambda: not window.compare_tab.reading, 10, "the sessions read again")
    user.check("Compare the series within one session", False)
    assert not user.can_see("Session") and user.text("Baseline session") == "wpa2"

    # A session that ran shorter runs: the banner says so before any number.
    _select(user, "open", "wpa2 short")
    wait_for(lambda: user.can_see("Comparison warnings"), 10, "the warning banner")
    banner = user.text("Comparison warnings")
    assert "run duration (10 s against 60 s)" in banner

    # The CSV: a spreadsheet's UTF-8 with BOM, the JSON keys as columns.
    out = tmp_path / "table.csv"
    with user.answering(save_as(out)):
        user.click("Table CSV…")
    wait_for(out.exists, 5, "the CSV")
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert len(table) == 4 and {r["value"] for r in table} == {"128", "1408"}
    assert {r["series"].split(" · ")[0] for r in table} == {"TCP", "UDP"}
    assert all(r["protocol"] == r["baseline_protocol"] for r in table)


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


def test_differences_are_signed_and_percentages_in_points() -> None:
    from app.ui.compare.cells import difference_cell

    assert difference_cell("throughput_bps", 707e3) == "+707 kbit/s"
    assert difference_cell("throughput_bps", -3.04e6) == "−3.04 Mbit/s"
    assert difference_cell("loss_pct", 2.5) == "+2.5 pp"
    assert difference_cell("loss_pct", -0.25) == "−0.25 pp"
    assert difference_cell("loss_pct", 0.0) == "0 pp"
    assert difference_cell("loss_pct", None) == "—"


@settings(max_examples=200, deadline=None)
@given(
    metric=st.sampled_from(["throughput_bps", "loss_pct", "jitter_ms"]),
    ends=st.lists(
        st.floats(-2e10, 2e10, allow_nan=False, allow_subnormal=False), min_size=2, max_size=2
    ),
)
def test_an_interval_cell_says_its_ends_as_the_difference_cells_say_them(
    metric: str, ends: list[float]
) -> None:
    """The interval of a difference shows its unit once where both ends share it: each end,
    given back that unit, reads as the difference cell of that end says it."""
    from app.analysis.pairs import ComparedPoint
    from app.ui.compare.cells import difference_cell, interval_text

    low, high = sorted(ends)
    point = ComparedPoint(1408.0, None, None, (low + high) / 2, None, low, high, 0.5, 0.5,
                          False, 0.95)  # type: ignore[arg-type]  # fmt: skip
    text = interval_text(metric, point)
    shown, level = text.rsplit(" (", 1)
    assert level == "95 %)"
    first, second = shown.split(" … ")
    assert second == difference_cell(metric, high)
    unit = second.rpartition(" ")[2]
    said = first if " " in first else f"{first} {unit}"
    assert said == difference_cell(metric, low), (text, difference_cell(metric, low))
    assert (" " in first) == (difference_cell(metric, low).rpartition(" ")[2] != unit)


def test_a_tiny_significant_difference_shows_its_percentage_with_the_differences_sign(
    window: MainWindow, user: User
) -> None:
    """As found: 2 kbit/s less on 20 Mbit/s, significant, read "-0.0" (a hyphen) in the %
    column beside "−2.00 kbit/s", and "(0.0 %)" in the finding."""
    base = {128: [20.0, 20.0001, 19.9999, 20.0, 20.0], 1408: OPEN[1408]}
    less = {128: [19.998, 19.9981, 19.9979, 19.998, 19.998], 1408: OPEN[1408]}
    with Database(window.context.db_path) as db:
        store = SessionStore(db)
        _add(store, "base", Security.OPEN, base)
        _add(store, "less", Security.WPA2, less)
    _select(user, "base", "less")
    wait_for(lambda: len(user.table_rows("Differences")) == 2, 10, "the differences")
    headers = user.headers("Differences")
    row = dict(zip(headers, user.table_rows("Differences")[0], strict=True))
    assert row["Difference"] == "−2.00 kbit/s" and row["%"] == "−0.01", row
    assert row["Significant (α = 0.05)"].startswith("yes"), row
    user.tab("Findings")
    said = user.text("Findings")
    assert "had 2.00 kbit/s (0.01 %) less throughput" in said, said


def test_a_single_series_session_says_once_that_it_has_nothing_to_compare(
    window: MainWindow, user: User
) -> None:
    """As found: its Findings said both "has no partner that differs from it in one way
    only… so it is not compared." and "This session has one series: nothing to compare it
    with."."""
    with Database(window.context.db_path) as db:
        _add(SessionStore(db), "alone", Security.OPEN, OPEN)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 5, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: "alone" in user.text("Session details"), 10, "its view")
    user.tab("Findings")
    said = user.text("Session findings")
    assert said.count("nothing to compare it with") == 1, said
    assert "has no partner" not in said and "not compared" not in said, said
