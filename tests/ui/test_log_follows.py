"""The Measure tab's log follows new lines like a terminal: at its last line it keeps showing
the newest, through a resize of the window; scrolled up with the wheel it stays where the user
reads; scrolled back down it follows again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QPlainTextEdit

from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def newest_line_shown(log: QPlainTextEdit) -> bool:
    """Whether the log's last line is what the bottom of its viewport shows."""
    bottom = log.cursorForPosition(QPoint(4, log.viewport().height() - 4))
    return bottom.blockNumber() == log.blockCount() - 1


def next_line(log: QPlainTextEdit) -> None:
    """Wait until the study writes another line."""
    count = log.blockCount()
    wait_for(lambda: log.blockCount() > count or not log.isEnabled(), 30, "a new log line")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_the_log_follows_at_its_bottom_and_stays_put_scrolled_up(
    window: MainWindow, user: User
) -> None:
    plan_sweep(user, "128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408", runs=2)
    log = user.find("Log", QPlainTextEdit)
    user.click("Start")
    # Enough lines that the log scrolls.
    wait_for(lambda: log.verticalScrollBar().maximum() > 2, 60, "a log longer than its view")
    next_line(log)
    assert newest_line_shown(log)

    user.wheel("Log", 2)  # up, to read an earlier line
    assert not newest_line_shown(log)
    first_shown = log.cursorForPosition(QPoint(4, 4)).block().text()
    next_line(log)
    assert not newest_line_shown(log)  # it stayed where the user reads
    assert log.cursorForPosition(QPoint(4, 4)).block().text() == first_shown

    user.wheel("Log", -50)  # back to the bottom
    assert newest_line_shown(log)
    next_line(log)
    assert newest_line_shown(log)

    window.resize(1100, 700)  # the user makes the window smaller
    next_line(log)
    assert newest_line_shown(log)
    window.resize(1280, 800)
    next_line(log)
    assert newest_line_shown(log)
    assert window.measure.running, "the study ended before every check: give it more runs"
    user.click("Stop")
    wait_for(lambda: not window.measure.running, 15, "the study to stop")
