"""The Measure tab with real engines on the loopback: a sweep from the form to the browser,
Stop and close mid-run, invalid input, an unreachable peer, and no display at all."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.store.db import Database
from app.store.records import SessionStatus
from app.store.sessions import SessionStore
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import ROOT_DIR, engine_children, free_port


@pytest.fixture
def window(qtbot, context: AppContext, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    # Ports of the test's own: another LinkLab on this machine may hold the defaults.
    context.set_default_port("iperf3", free_port())
    context.set_default_port("netperf", free_port())
    win = MainWindow(context, preset_dir=tmp_path / "presets")
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    yield win
    win.shutdown()
    assert not engine_children(), "an engine outlived the window"


def fill(win: MainWindow, values: str = "128, 1408", runs: int = 2, seconds: int = 1) -> None:
    setup = win.measure.setup
    setup.custom_values.setText(values)
    setup.repetitions.setValue(runs)
    setup.duration.setValue(seconds)


def test_sweep_from_the_form_to_the_browser(
    qtbot,
    window: MainWindow,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fill(window)
    measure = window.measure
    assert measure.start_button.isEnabled()
    assert "-l 128" in measure.command.text()
    # Every interval the live chart receives, with what the window showed at that moment.
    seen: list[tuple[bool, int]] = []
    add_sample = measure.live_chart.add_sample

    def spy(sample: object) -> None:
        seen.append((measure.running, measure.progress.value()))
        add_sample(sample)  # type: ignore[arg-type]

    monkeypatch.setattr(measure.live_chart, "add_sample", spy)
    qtbot.mouseClick(measure.start_button, Qt.MouseButton.LeftButton)
    assert measure.running
    qtbot.waitUntil(lambda: not measure.running, timeout=60000)
    # The live curve gained points while the sweep was going, run after run.
    assert len(seen) >= 4 and all(running for running, _ in seen)
    assert [done for _, done in seen][:2] == [0, 1]  # during the 1st run, then the 2nd
    assert measure.table.rowCount() == 2
    assert measure.sweep_chart.point_count() == 2
    assert "completed" in window.status_label.text()
    assert measure.progress.value() == 4
    live_values = {measure.table.cell_text(r, 1): measure.table.cell_text(r, 3) for r in range(2)}
    # The session is in the browser and reopens with the same numbers.
    window.tabs.setCurrentWidget(window.sessions)
    sessions = window.sessions
    qtbot.waitUntil(lambda: sessions.model.rowCount() == 1, timeout=5000)
    sessions.table.selectRow(0)
    view_table = sessions.view.table
    qtbot.waitUntil(lambda: view_table.rowCount() == 2, timeout=5000)
    reopened = {view_table.cell_text(r, 1): view_table.cell_text(r, 3) for r in range(2)}
    assert reopened == live_values
    with Database(window.context.db_path, readonly=True) as db:
        (session,) = SessionStore(db).list_sessions()
    assert session.status is SessionStatus.COMPLETED and session.runs_done == 4


def test_stop_mid_run_within_a_second(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    fill(window, values="1408", runs=3, seconds=30)
    measure = window.measure
    measure.start()
    qtbot.waitUntil(lambda: measure.live_chart.point_count >= 1, timeout=15000)
    asked = time.monotonic()
    qtbot.keyClick(measure, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not measure.running, timeout=3000)
    assert time.monotonic() - asked < 1.0
    assert not engine_children(clients_only=True)
    with Database(window.context.db_path, readonly=True) as db:
        (session,) = SessionStore(db).list_sessions()
    assert session.status is SessionStatus.STOPPED


def test_close_mid_run_asks_then_stops_cleanly(
    qtbot,
    window: MainWindow,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fill(window, values="128", runs=5, seconds=2)
    measure = window.measure
    measure.start()
    qtbot.waitUntil(lambda: measure.progress.value() >= 1, timeout=20000)  # one run saved
    asked: list[str] = []

    def answer(*args: object, **_kw: object) -> QMessageBox.StandardButton:
        asked.append(str(args[1]))
        return QMessageBox.StandardButton.No if len(asked) == 1 else QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    assert not window.close()  # "No": the window stays and the study goes on
    assert measure.running
    stopped_at: list[float] = []
    stop_servers = window.servers.stop_all

    def note_and_stop() -> None:
        stopped_at.append(time.monotonic())  # the study is over when the servers go
        stop_servers()

    monkeypatch.setattr(window.servers, "stop_all", note_and_stop)
    t0 = time.monotonic()
    assert window.close()
    # The study stops in milliseconds here (Stop's own 1 s promise is tested above); the
    # bound only catches a hang, since a shared machine may pause the test for a moment.
    assert stopped_at[0] - t0 < 2.5
    assert time.monotonic() - t0 < 4.0  # and the local servers with it
    assert len(asked) == 2 and "Stop the study" in asked[0]
    assert not engine_children()
    with Database(window.context.db_path, readonly=True) as db:
        (session,) = SessionStore(db).list_sessions()
    assert session.status is SessionStatus.STOPPED and session.runs_done >= 1


def test_invalid_input_shows_the_reason_and_starts_nothing(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    setup = window.measure.setup
    setup.protocol.setCurrentIndex(1)  # UDP
    setup.custom_values.setText("8, 1408")
    assert "between 16 and 65507" in setup.problems_label.text()
    assert not window.measure.start_button.isEnabled()
    assert "between 16 and 65507" in setup.custom_values.toolTip()
    window.measure.start()
    assert not window.measure.running
    setup.custom_values.setText("128, 1408")
    assert window.measure.start_button.isEnabled()
    assert setup.problems_label.text() == ""
    assert "between 16 and 65507" not in setup.custom_values.toolTip()
    setup.tags.setText("no-equals-sign")
    assert "KEY=VALUE" in setup.problems_label.text()
    assert not window.measure.start_button.isEnabled()


def test_unreachable_peer_gives_the_sentence(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    setup = window.measure.setup
    setup.peer_row.host_combo.setEditText("127.0.0.1")
    setup.peer_row.port.setValue(free_port())
    fill(window, values="1408", runs=1, seconds=1)
    window.measure.start()
    qtbot.waitUntil(lambda: not window.measure.running, timeout=20000)
    log = window.measure.log.toPlainText()
    assert "refused the connection" in log and "start an iperf3 server there" in log
    assert "Traceback" not in log
    # Check peer says the same in one line, without blocking the window.
    qtbot.mouseClick(setup.peer_row.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "no iperf3" in setup.peer_row.check_result.text(), timeout=10000)


def test_check_peer_on_this_computer(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.servers.start_iperf3(free_port())
    assert window.servers.iperf3 is not None
    row = window.measure.setup.peer_row
    row.host_combo.setEditText("127.0.0.1")
    row.port.setValue(window.servers.iperf3.port)
    qtbot.mouseClick(row.check_button, Qt.MouseButton.LeftButton)
    try:
        qtbot.waitUntil(lambda: "iperf3 answers" in row.check_result.text(), timeout=10000)
    except Exception:
        raise AssertionError(
            f"label: {row.check_result.text()!r}, host "
            f"{row.host_combo.currentText()!r}, port {row.port.value()}, "
            f"button {row.check_button.isEnabled()}"
        ) from None
    assert "round trip" in row.check_result.text()


def test_no_display_is_one_sentence() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = subprocess.run(
        [sys.executable, "-m", "app"],
        cwd=ROOT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("linklab: LinkLab found no display")
    assert "linklab run --peer HOST" in done.stderr
    assert "Traceback" not in done.stderr
