"""Reads off the GUI thread: a read that ends after its view was closed is dropped quietly."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from app.ui.common.background import Background, wait_all


def test_a_read_ending_after_its_view_closed_is_dropped(qtbot: QtBot) -> None:
    view = QObject()
    reader = Background(view)
    release = threading.Event()
    started = threading.Event()
    delivered: list[object] = []

    def work() -> str:
        started.set()
        release.wait(10)
        return "rows"

    reader.run(work, delivered.append, delivered.append)
    assert started.wait(10)
    shiboken6.delete(view)  # the view closes while the read runs: its reader and relay go too
    release.set()
    wait_all()
    qtbot.wait(50)  # any queued delivery would arrive here
    # pytest-qt fails the test on an exception raised in the pool thread ("Signal source has
    # been deleted"); nothing reaches the closed view.
    assert delivered == []


def test_the_latest_read_is_delivered(qtbot: QtBot) -> None:
    reader = Background()
    got: list[object] = []
    reader.run(lambda: 1, got.append, got.append)
    reader.run(lambda: 2, got.append, got.append)
    qtbot.waitUntil(lambda: not reader.busy, timeout=10_000)
    assert got == [2]
