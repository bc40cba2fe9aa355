"""Exchange files through the window: Import… and Export for another computer… on the
Sessions tab, and files handed to the window at start, over real SQLite files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

import app.study.files.exchange as exchange_module
from app.domain.errors import BadOption
from app.store.db import Database, StoreError
from app.store.sessions import SessionStore
from app.study.files.exchange import EXCHANGE_SUFFIX, export_sessions, read_exchange, write_exchange
from app.study.stored_sessions import SessionName
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from app.ui.sessions.exchange import (
    FileImported,
    describe_import,
    session_label,
    suggested_name,
)
from app.ui.sessions.tab import SessionsTab
from tests.conftest import free_port
from tests.ui.test_sessions_tab import make_session, refreshed, settled

WAIT_MS = 30_000


@pytest.fixture
def tab(qtbot: QtBot, context: AppContext) -> SessionsTab:
    widget = SessionsTab(context)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    return widget


def stored_ids(path: Path) -> set[str]:
    """The sessions in the database; none while the window has not written it yet (a wait
    on this then times out, saying what it waited for, if it never does)."""
    try:
        with Database(path, readonly=True) as db:
            return {s.id for s in SessionStore(db).list_sessions()}
    except StoreError:
        return set()


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def run_import(qtbot: QtBot, tab: SessionsTab, *paths: Path) -> None:
    with qtbot.waitSignal(tab.exchange.job_finished, timeout=WAIT_MS):
        assert tab.import_files(list(paths))
    assert not tab.exchange.busy
    settled(tab)  # the list, read again in the background, shows the imported sessions


def refusal(path: Path) -> str:
    with pytest.raises(BadOption) as caught:
        read_exchange(path)
    return caught.value.sentence


def test_import_adds_the_sessions_and_selects_them(
    qtbot: QtBot, tab: SessionsTab, context: AppContext, exchange_file: tuple[Path, list[str]]
) -> None:
    path, ids = exchange_file
    refreshed(tab)
    tab.search.setText("nothing matches this")  # the imported sessions must still show
    run_import(qtbot, tab, path)
    assert stored_ids(context.db_path) == set(ids)
    assert set(tab.selected_ids()) == set(ids)
    assert tab.search.text() == ""
    assert tab.status.text() == (  # in the file's order
        f"Imported 2 sessions from {path.name}: “Open, IPv4”, “WPA2, IPv4”."
    )
    assert "D55E00" not in tab.status.styleSheet()

    # Again: nothing duplicated, both named as already here.
    before = dump(context.db_path)
    run_import(qtbot, tab, path)
    assert dump(context.db_path) == before
    assert tab.status.text().startswith(f"Nothing new in {path.name}: 2 sessions already here")
    assert set(tab.selected_ids()) == set(ids)


def test_import_one_new_one_present_opens_nothing_twice(
    qtbot: QtBot, tab: SessionsTab, context: AppContext, tmp_path: Path
) -> None:
    mine = make_session(context.db_path, "Mine", when="2025-03-01T09:00:00+00:00")
    theirs = make_session(tmp_path / "other.sqlite3", "Theirs", when="2025-03-02T09:00:00+00:00")
    both = tmp_path / "both.json"  # any ending imports
    with Database(context.db_path, readonly=True) as db:
        data = export_sessions(SessionStore(db), [mine])
    with Database(tmp_path / "other.sqlite3", readonly=True) as db:
        data["sessions"] += export_sessions(SessionStore(db), [theirs])["sessions"]
    write_exchange(both, data)
    refreshed(tab)
    run_import(qtbot, tab, both)
    assert stored_ids(context.db_path) == {mine, theirs}
    assert tab.status.text() == (
        "Imported 1 session from both.json: “Theirs”; skipped 1 already here: “Mine”."
    )
    assert set(tab.selected_ids()) == {mine, theirs}


def test_single_import_opens_the_session(
    qtbot: QtBot, tab: SessionsTab, context: AppContext, tmp_path: Path
) -> None:
    other = tmp_path / "other.sqlite3"
    sid = make_session(other, "", when="2025-03-01T10:00:00+00:00")
    path = tmp_path / "one.linklab"
    with Database(other, readonly=True) as db:
        write_exchange(path, export_sessions(SessionStore(db), [sid]))
    run_import(qtbot, tab, path)
    assert tab.selected_ids() == [sid]
    assert tab.shown.view.session_id == sid  # shown below the list, as when clicked
    assert tab.status.text() == f"Imported 1 session from one.linklab: {sid[:8]}."


def _damaged(path: Path, tmp_path: Path) -> Path:
    cut = tmp_path / f"cut{EXCHANGE_SUFFIX}"
    cut.write_bytes(path.read_bytes()[:-200])
    return cut


def _hostile(path: Path, tmp_path: Path) -> Path:
    """The first session is fine; the second has a run its plan never asked for."""
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    doc["sessions"][1]["runs"][0]["protocol"] = "icmp"
    bad = tmp_path / f"hostile{EXCHANGE_SUFFIX}"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    return bad


def _not_linklab(_path: Path, tmp_path: Path) -> Path:
    other = tmp_path / "notes.linklab"
    other.write_text('{"hello": "world"}', encoding="utf-8")
    return other


@pytest.mark.parametrize("spoil", [_damaged, _hostile, _not_linklab])
def test_refused_file_shows_the_sentence_and_changes_nothing(
    qtbot: QtBot,
    tab: SessionsTab,
    context: AppContext,
    tmp_path: Path,
    exchange_file: tuple[Path, list[str]],
    spoil: Any,
) -> None:
    mine = make_session(context.db_path, "Mine", when="2025-03-01T09:00:00+00:00")
    refreshed(tab)
    tab.select_session(mine)
    before = dump(context.db_path)
    bad = spoil(exchange_file[0], tmp_path)
    run_import(qtbot, tab, bad)
    assert dump(context.db_path) == before
    assert tab.status.text() == refusal(bad)
    assert "D55E00" in tab.status.styleSheet()
    assert tab.selected_ids() == [mine]  # the selection is left as it was


def test_a_file_past_the_hand_in_cap_imports_as_it_streams(
    qtbot: QtBot,
    tab: SessionsTab,
    context: AppContext,
    monkeypatch: pytest.MonkeyPatch,
    exchange_file: tuple[Path, list[str]],
) -> None:
    path, ids = exchange_file
    monkeypatch.setattr(exchange_module, "MAX_FILE_BYTES", path.stat().st_size - 1)
    run_import(qtbot, tab, path)
    assert tab.status.text().startswith(f"Imported 2 sessions from {path.name}")
    assert stored_ids(context.db_path) == set(ids)
    assert [p.name for p in context.db_path.parent.iterdir() if ".import-" in p.name] == []


def test_several_files_each_all_or_nothing(
    qtbot: QtBot,
    tab: SessionsTab,
    context: AppContext,
    tmp_path: Path,
    exchange_file: tuple[Path, list[str]],
) -> None:
    good, ids = exchange_file
    bad = _damaged(good, tmp_path)
    run_import(qtbot, tab, bad, good)
    assert stored_ids(context.db_path) == set(ids)
    lines = tab.status.text().splitlines()
    assert lines[0] == refusal(bad)
    assert lines[1].startswith(f"Imported 2 sessions from {good.name}")
    assert "D55E00" in tab.status.styleSheet()


def test_export_through_the_dialog_suggests_a_linklab_name(
    qtbot: QtBot,
    tab: SessionsTab,
    context: AppContext,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = [
        make_session(context.db_path, "Lab 1: Wi-Fi/WPA2?", when="2025-03-01T09:00:00+00:00"),
        make_session(context.db_path, "Lab 1: open", when="2025-03-01T10:00:00+00:00"),
    ]
    refreshed(tab)
    tab.select_sessions(ids)
    assert tab.buttons["export_button"].isEnabled()
    offered: list[str] = []

    def choose(dialog: QFileDialog) -> int:
        offered.extend(dialog.selectedFiles())
        dialog.selectFile(str(tmp_path / "for-the-instructor"))  # typed without an ending
        return 1

    monkeypatch.setattr(QFileDialog, "exec", choose)
    with qtbot.waitSignal(tab.exchange.job_finished, timeout=WAIT_MS):
        tab.buttons["export_button"].click()
    # Named after the first in the list (newest first), in the list's order.
    assert [Path(p).name for p in offered] == [f"Lab 1- open and 1 more{EXCHANGE_SUFFIX}"]
    written = tmp_path / f"for-the-instructor{EXCHANGE_SUFFIX}"
    assert [s.record.id for s in read_exchange(written).sessions] == ids[::-1]
    assert tab.status.text().startswith(f"Exported 2 sessions to {written}:")


def test_export_then_import_elsewhere_round_trips(
    qtbot: QtBot, tab: SessionsTab, context: AppContext, tmp_path: Path
) -> None:
    sid = make_session(context.db_path, "Round trip", when="2025-03-01T09:00:00+00:00")
    path = tmp_path / f"Round trip{EXCHANGE_SUFFIX}"
    with qtbot.waitSignal(tab.exchange.job_finished, timeout=WAIT_MS):
        assert tab.export_to([sid], path)
    elsewhere = AppContext(context.settings, db_path=tmp_path / "elsewhere.sqlite3")
    other_tab = SessionsTab(elsewhere)
    qtbot.addWidget(other_tab)
    run_import(qtbot, other_tab, path)
    with Database(context.db_path, readonly=True) as db:
        runs_here = [(r.key, r.metrics) for r in SessionStore(db).runs(sid)]
    with Database(elsewhere.db_path, readonly=True) as db:
        runs_there = [(r.key, r.metrics) for r in SessionStore(db).runs(sid)]
    assert runs_there == runs_here


def test_export_to_an_unwritable_place_says_so(
    qtbot: QtBot, tab: SessionsTab, context: AppContext, tmp_path: Path
) -> None:
    sid = make_session(context.db_path, "Mine", when="2025-03-01T09:00:00+00:00")
    target = tmp_path / "no such folder" / "x.linklab"
    with qtbot.waitSignal(tab.exchange.job_finished, timeout=WAIT_MS):
        tab.export_to([sid], target)
    assert tab.status.text().startswith(f"Cannot write {target}")
    assert "D55E00" in tab.status.styleSheet()
    assert not target.parent.exists()


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["WPA2 run"], "WPA2 run"),
        (['  a/b\\c:d*e?f"g<h>i|j\n  '], "a-b-c-d-e-f-g-h-i-j"),
        (["..."], "LinkLab sessions"),
        ([""], "LinkLab sessions"),
        (["CON"], "LinkLab sessions CON"),
        (["Größe 1408 B", "x", "y"], "Größe 1408 B and 2 more"),
        (["x" * 300], "x" * 80),
    ],
)
def test_suggested_names_are_safe_everywhere(names: list[str], expected: str) -> None:
    assert suggested_name(names) == expected + EXCHANGE_SUFFIX


def test_many_names_are_cut_short() -> None:
    many = tuple(SessionName(f"{n:032x}", f"S{n}") for n in range(8))
    text = describe_import(FileImported(Path("x.linklab"), imported=many))
    assert text.endswith("“S4” and 3 more.")
    long = SessionName("0" * 32, "<b>one\ntwo</b> " + "x" * 100)
    assert session_label(long) == "“<b>one two</b> " + "x" * 45 + "…”"


def test_names_from_a_file_are_shown_as_plain_text(tab: SessionsTab) -> None:
    assert tab.status.textFormat() == Qt.TextFormat.PlainText


def test_window_imports_files_it_was_opened_with(
    qtbot: QtBot, context: AppContext, tmp_path: Path, exchange_file: tuple[Path, list[str]]
) -> None:
    path, ids = exchange_file
    # Ports of the test's own: another LinkLab on this machine may hold the defaults.
    context.set_default_port("iperf3", free_port())
    context.set_default_port("netperf", free_port())
    win = MainWindow(context, preset_dir=tmp_path / "presets", open_files=[path])
    qtbot.addWidget(win)
    try:
        with qtbot.waitSignal(win.sessions.exchange.job_finished, timeout=WAIT_MS):
            win.show()  # the import starts once the event loop runs
        assert win.tabs.currentWidget() is win.sessions
        settled(win.sessions)
        assert stored_ids(context.db_path) == set(ids)
        assert set(win.sessions.selected_ids()) == set(ids)
        assert win.sessions.status.text().startswith(f"Imported 2 sessions from {path.name}")
    finally:
        win.shutdown()
