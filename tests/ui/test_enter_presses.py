"""Enter presses the push button the keyboard has reached, as Space does: Start reached with Tab
starts the study, Check peer checks, Start monitor starts the monitor (the keypad's Enter
too)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

pytestmark = pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3


def tab_to(user: User, name: str, start: str) -> None:
    """Click into the field `start`, then press Tab until the button `name` has the focus."""
    button = user.find(name)
    user.type(start, user.text(start))
    for _ in range(80):
        if QApplication.focusWidget() is button:
            return
        user.key(Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached {name!r}")


def test_enter_on_a_focused_button_presses_it(window: MainWindow, user: User) -> None:
    plan_sweep(user, "1408", runs=1, seconds=1)
    tab_to(user, "Start", "Session name")
    user.key(Qt.Key.Key_Return)
    assert window.measure.running, user.text("Status")
    wait_for(lambda: not window.measure.running, 60, "the study to end")
    assert "completed" in user.text("Status")

    user.tab("Monitor")
    monitor = user.find("Start monitor")
    user.click("Whole history")  # the keyboard in the Monitor page
    for _ in range(80):
        if QApplication.focusWidget() is monitor:
            break
        user.key(Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is monitor
    user.key(Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)  # the keypad's Enter
    wait_for(lambda: window.measure.monitor.running, 5, "the monitor to start")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 15, "the monitor to stop")

    user.tab("Current run")
    user.type("Peer", "127.0.0.1")
    tab_to(user, "Check peer", "Peer")
    user.key(Qt.Key.Key_Return)
    wait_for(lambda: "127.0.0.1" in user.text("Peer check"), 10, "the check")
