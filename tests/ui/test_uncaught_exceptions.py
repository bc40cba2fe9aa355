"""A window test that meets an uncaught exception anywhere (a slot, a timer, a thread) fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT_DIR

#: Each test raises where the window's code can: the suite's own settings must fail all five.
INNER_TESTS = """
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QThread, QTimer, Signal
from PySide6.QtWidgets import QPushButton


class Emitter(QObject):
    fired = Signal()


def raises() -> None:
    raise AssertionError("uncaught-in-the-window")


def test_slot_called_by_a_signal(qtbot):
    emitter = Emitter()
    emitter.fired.connect(raises)
    emitter.fired.emit()


def test_slot_called_by_a_timer(qtbot):
    QTimer.singleShot(0, raises)
    qtbot.wait(50)


def test_slot_called_by_a_click(qtbot):
    button = QPushButton("Start")
    qtbot.addWidget(button)
    button.clicked.connect(raises)
    button.click()


class Worker(QThread):
    def run(self) -> None:
        raises()


def test_qthread(qtbot):
    worker = Worker()
    worker.start()
    worker.wait()


def test_python_thread(qtbot):
    thread = threading.Thread(target=raises)
    thread.start()
    thread.join()


def test_nothing_raised(qtbot):
    QTimer.singleShot(0, lambda: None)
    qtbot.wait(50)
"""


def test_the_suite_fails_a_test_that_meets_an_uncaught_exception(tmp_path: Path) -> None:
    """Run under the project's own pytest settings: every raising test fails, the quiet one
    passes (so the failures are the exceptions', not the harness's)."""
    (tmp_path / "test_inner.py").write_text(INNER_TESTS, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT_DIR)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT_DIR / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_inner.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=100,
        check=False,
    )
    out = done.stdout + done.stderr
    assert "5 failed, 1 passed" in out, out
    for name in (
        "slot_called_by_a_signal",
        "slot_called_by_a_timer",
        "slot_called_by_a_click",
        "qthread",
        "python_thread",
    ):
        assert f"FAILED test_inner.py::test_{name}" in out, out
    assert out.count("uncaught-in-the-window") >= 5, out
