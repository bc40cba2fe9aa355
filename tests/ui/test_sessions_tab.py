"""The Sessions tab over a real store: list, search, view, rename, tags, delete, resume."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QMessageBox, QPushButton, QTableView
from pytestqt.qtbot import QtBot

from app.analysis.points import point_summaries
from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Medium, Peer, Plan, Security
from app.domain.precision import precision
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.domain.tags import TagError, parse_tags
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.stored_sessions import StoredSessions
from app.study.sweep.describe import local_time
from app.ui.context import AppContext
from app.ui.sessions.tab import COLUMNS, NO_SESSIONS, SessionsTab
from app.ui.sessions.tags_dialog import TagsDialog
from tests.ui.user import wait_for

VALUES = (128, 640, 1408)


def make_session(
    path: Path,
    name: str,
    *,
    when: str,
    status: SessionStatus | None = SessionStatus.COMPLETED,
    host: str = "127.0.0.1",
    ip_versions: tuple[IpVersion, ...] = (IpVersion.V4,),
    conditions: Conditions | None = None,
    rtt: bool = False,
    cpu: bool = False,
    repetitions: int = 2,
) -> str:
    """A session stored the way the runner stores one; None leaves it running."""
    plan = Plan(
        peer=Peer(host, host6="::1" if IpVersion.V6 in ip_versions else ""),
        protocols=(Protocol.TCP, Protocol.UDP),
        ip_versions=ip_versions,
        values=VALUES,
        repetitions=repetitions,
        duration_s=1,
        name=name,
        conditions=conditions or Conditions(),
    )
    with Database(path) as db:
        store = SessionStore(db)
        session_id = store.create_session(plan)
        for key in plan.run_keys():
            value = plan.values[key.value_index]
            base = value * 1e5 * (1 + key.value_index) + (
                2e6 if key.protocol is Protocol.UDP else 0
            )
            store.add_run(
                session_id,
                key,
                float(value),
                metrics=RunMetrics(
                    throughput_bps=base + key.repetition * 1e5 + int(key.ip_version) * 1e4,
                    rtt_mean_ms=0.2 + key.repetition / 100 if rtt else None,
                    cpu_local_pct=10.0 + key.repetition if cpu else None,
                ),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
        if status is not None:
            store.finish(session_id, status, "" if status is SessionStatus.COMPLETED else "why")
        with db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET created_at = ?, started_at = ? WHERE id = ?",
                (when, when, session_id),
            )
    return session_id


@pytest.fixture
def tab(qtbot: QtBot, context: AppContext) -> SessionsTab:
    widget = SessionsTab(context)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    return widget


def settled(tab: SessionsTab) -> SessionsTab:
    """The tab once its reads of the database (in the background) have come back."""
    wait_for(lambda: not tab.reading, 10, "the sessions to be read")
    return tab


def refreshed(tab: SessionsTab) -> SessionsTab:
    tab.refresh()
    return settled(tab)


def rows(tab: SessionsTab) -> list[list[str]]:
    settled(tab)
    model = tab.table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def names(tab: SessionsTab) -> list[str]:
    return [row[1] for row in rows(tab)]


def button(tab: SessionsTab, name: str) -> QPushButton:
    found = tab.findChild(QPushButton, name)
    assert found is not None
    return found


def status_text(tab: SessionsTab) -> str:
    label = tab.findChild(QLabel, "sessions_status")
    assert label is not None
    return label.text()


def test_no_database_yet_says_how_to_start(tab: SessionsTab, context: AppContext) -> None:
    refreshed(tab)
    assert tab.shown.view.message == NO_SESSIONS
    assert not context.db_path.exists()  # looking never creates the file


def test_list_newest_first_with_the_right_columns(tab: SessionsTab, context: AppContext) -> None:
    path = context.db_path
    lab = Conditions(Security.WPA2, Medium.N, tags=(("room", "B12"),))
    make_session(path, "oldest", when="2026-01-01T08:00:00.000Z")
    make_session(
        path,
        "newest",
        when="2026-03-01T09:30:00.000Z",
        host="localhost",
        ip_versions=(IpVersion.V4, IpVersion.V6),
        conditions=lab,
    )
    make_session(path, "middle", when="2026-02-01T08:00:00.000Z", status=SessionStatus.STOPPED)
    refreshed(tab)
    table = tab.findChild(QTableView, "sessions_table")
    assert table is tab.table
    header = [table.model().headerData(c, Qt.Orientation.Horizontal) for c in range(9)]
    assert header == list(COLUMNS)
    assert names(tab) == ["newest", "middle", "oldest"]
    assert rows(tab)[0] == [
        local_time("2026-03-01T09:30:00.000Z"),
        "newest",
        "localhost",
        "TCP/UDP",
        "IPv4/IPv6",
        "WPA2 · 802.11n · room=B12",
        "completed",
        "24/24",
        "Sweep",
    ]
    assert rows(tab)[1][6] == "stopped"
    # Sortable: by name, then back to date.
    table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    assert names(tab) == ["middle", "newest", "oldest"]


def test_search_and_status_filter(tab: SessionsTab, context: AppContext) -> None:
    path = context.db_path
    make_session(path, "office wifi", when="2026-01-01T08:00:00.000Z")
    make_session(path, "lab cable", when="2026-01-02T08:00:00.000Z", host="localhost")
    make_session(
        path,
        "home",
        when="2026-01-03T08:00:00.000Z",
        conditions=Conditions(tags=(("room", "attic"),)),
        status=SessionStatus.INTERRUPTED,
    )
    refreshed(tab)
    assert len(rows(tab)) == 3
    search = tab.findChild(QLineEdit, "sessions_search")
    assert search is not None
    for text, expected in (("office", ["office wifi"]), ("localhost", ["lab cable"])):
        search.setText(text)
        refreshed(tab)
        assert names(tab) == expected
    search.setText("attic")  # a tag in the conditions
    refreshed(tab)
    assert names(tab) == ["home"]
    search.setText("")
    tab.status_filter.setCurrentIndex(tab.status_filter.findData("interrupted"))
    assert names(tab) == ["home"]
    search.setText("nothing like this")
    refreshed(tab)
    assert rows(tab) == [] and tab.shown.view.message == "No session matches the search."


def test_selected_session_shows_the_stores_means(tab: SessionsTab, context: AppContext) -> None:
    path = context.db_path
    sid = make_session(
        path,
        "sweep",
        when="2026-01-01T08:00:00.000Z",
        ip_versions=(IpVersion.V4, IpVersion.V6),
        repetitions=3,
    )
    refreshed(tab)
    tab.select_session(sid)
    view = settled(tab).shown.view
    assert view.session_id == sid
    with Database(path, readonly=True) as db:
        store = SessionStore(db)
        session = store.get(sid)
        points = point_summaries(session.plan, store.runs(sid))
    assert view.table.rowCount() == len(points) == 4 * len(VALUES)
    shown = {(view.table.cell_text(r, 0), view.table.cell_text(r, 1)): r for r in range(12)}
    for point in points:
        row = shown[(point.series.label, f"{point.value:g}")]
        assert view.table.cell_text(row, 2) == "3"
        throughput = point.metrics["throughput_bps"]
        precise = precision(throughput.mean, throughput.std, rate=True)
        assert view.table.cell_text(row, 3) == precise.text(throughput.mean)
    chart = view.throughput_chart
    labels = [s.label for s in session.plan.series]
    assert chart.series_names == labels and len(labels) == 4
    assert all(chart.point_count(label) == len(VALUES) for label in labels)
    assert view.tabs.isTabVisible(0)
    assert not view.tabs.isTabVisible(1) and not view.tabs.isTabVisible(2)  # no RTT, no CPU
    assert "sweep" in view.header.text() and "127.0.0.1" in view.header.text()


def test_rtt_and_cpu_tabs_appear_when_measured(tab: SessionsTab, context: AppContext) -> None:
    sid = make_session(context.db_path, "all", when="2026-01-01T08:00:00.000Z", rtt=True, cpu=True)
    refreshed(tab)
    tab.select_session(sid)
    settled(tab)
    assert all(tab.shown.view.tabs.isTabVisible(i) for i in range(3))
    assert tab.shown.view.rtt_chart.point_count() == 2 * len(VALUES)
    assert tab.shown.view.cpu_chart.point_count() == 2 * len(VALUES)


def test_rename_and_tags_persist(
    tab: SessionsTab, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = context.db_path
    sid = make_session(path, "before", when="2026-01-01T08:00:00.000Z")
    refreshed(tab)
    tab.select_session(sid)
    monkeypatch.setattr(
        "app.ui.sessions.session_menu.QInputDialog.getText", lambda *_a, **_k: ("after", True)
    )
    button(tab, "rename_button").click()

    def fill(dialog: TagsDialog) -> int:
        dialog.tags_edit.setPlainText("room=B12\n\nap = lab-2\n")
        dialog.notes_edit.setPlainText("door open")
        dialog.accept()
        return dialog.result()

    monkeypatch.setattr(TagsDialog, "exec", fill)
    button(tab, "tags_button").click()
    with Database(path, readonly=True) as db:
        session = SessionStore(db).get(sid)
    assert session.name == "after"
    assert session.conditions.tag_dict == {"room": "B12", "ap": "lab-2"}
    assert session.conditions.notes == "door open"
    assert names(tab) == ["after"] and tab.selected_ids() == [sid]
    assert "room=B12" in rows(tab)[0][5]


def test_tags_are_labels_or_key_value_and_a_bad_one_is_named() -> None:
    assert parse_tags("a=1\n b = 2 \n\nopen") == {"a": "1", "b": "2", "open": ""}
    with pytest.raises(TagError, match="'=lab'"):
        parse_tags("a=1\n=lab")


def test_delete_asks_and_removes_only_on_yes(
    tab: SessionsTab, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = context.db_path
    keep = make_session(path, "keep me", when="2026-01-01T08:00:00.000Z")
    doomed = make_session(path, "doomed", when="2026-01-02T08:00:00.000Z")
    refreshed(tab)
    tab.select_session(doomed)
    asked: list[str] = []
    answer = QMessageBox.StandardButton.No

    def question(_parent: Any, _title: str, text: str, *_args: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return answer

    monkeypatch.setattr("app.ui.sessions.session_menu.QMessageBox.question", question)
    button(tab, "delete_button").click()
    assert "doomed" in asked[0] and "12 runs" in asked[0]
    assert "Undo delete brings the sessions back" in asked[0]
    assert names(tab) == ["doomed", "keep me"]
    answer = QMessageBox.StandardButton.Yes
    button(tab, "delete_button").click()
    assert names(tab) == ["keep me"]
    with Database(path, readonly=True) as db:
        assert [s.id for s in SessionStore(db).list_sessions()] == [keep]
        # Kept, hidden, until the time to undo it has passed.
        assert db.query("SELECT count(*) AS n FROM runs")[0]["n"] == 24


def test_resume_only_for_unfinished_sessions(
    qtbot: QtBot, tab: SessionsTab, context: AppContext
) -> None:
    path = context.db_path
    ids = {
        status: make_session(path, status.value, when=f"2026-01-0{n}T08:00:00.000Z", status=status)
        for n, status in enumerate(SessionStatus, start=1)
        if status is not SessionStatus.RUNNING
    }
    ids[SessionStatus.RUNNING] = make_session(
        path, "running", when="2026-01-09T08:00:00.000Z", status=None
    )
    refreshed(tab)
    resume = button(tab, "resume_button")
    assert not resume.isEnabled()  # nothing selected
    expected = {
        SessionStatus.COMPLETED: False,
        SessionStatus.RUNNING: False,
        SessionStatus.STOPPED: True,
        SessionStatus.INTERRUPTED: True,
        SessionStatus.FAILED: True,
    }
    for status, enabled in expected.items():
        tab.select_session(ids[status])
        assert resume.isEnabled() is enabled, status
    tab.select_session(ids[SessionStatus.INTERRUPTED])
    with qtbot.waitSignal(tab.resume_requested, timeout=1000) as blocker:
        resume.click()
    assert blocker.args == [ids[SessionStatus.INTERRUPTED]]


def test_compare_needs_two_sessions_or_two_series(
    qtbot: QtBot, tab: SessionsTab, context: AppContext
) -> None:
    first = make_session(context.db_path, "a", when="2026-01-01T08:00:00.000Z")
    second = make_session(context.db_path, "b", when="2026-01-02T08:00:00.000Z")
    refreshed(tab)
    compare = button(tab, "compare_button")
    tab.table.clearSelection()
    assert not compare.isEnabled()
    tab.select_session(first)  # TCP and UDP: its series against each other
    assert compare.isEnabled()
    with qtbot.waitSignal(tab.compare_requested, timeout=1000) as blocker:
        compare.click()
    assert blocker.args == [[first]]
    tab.table.selectAll()
    assert compare.isEnabled()
    with qtbot.waitSignal(tab.compare_requested, timeout=1000) as blocker:
        compare.click()
    assert sorted(blocker.args[0]) == sorted([first, second])


def test_damaged_database_is_reported_and_left_alone(tab: SessionsTab, context: AppContext) -> None:
    path = context.db_path
    garbage = b"this is not a database\x00" * 100
    path.write_bytes(garbage)
    refreshed(tab)
    assert "damaged" in status_text(tab) and str(path) in status_text(tab)
    assert tab.model.rowCount() == 0
    assert "cannot be shown" in tab.shown.view.message
    tab.rename_session("0000", "anything")  # a write attempt is refused the same way
    assert "damaged" in status_text(tab)
    assert path.read_bytes() == garbage
    assert not [p for p in path.parent.iterdir() if p.name.startswith(f"{path.name}-")]


def test_the_database_is_read_off_the_gui_thread(
    tab: SessionsTab, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = make_session(context.db_path, "one", when="2026-01-01T08:00:00.000Z")
    readers: list[threading.Thread] = []
    for name in ("listing", "runs"):
        real = getattr(StoredSessions, name)

        def spy(self: StoredSessions, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            readers.append(threading.current_thread())
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(StoredSessions, name, spy)
    refreshed(tab)
    tab.select_session(sid)
    settled(tab)
    assert tab.shown.view.session_id == sid
    assert len(readers) >= 2 and threading.main_thread() not in readers
