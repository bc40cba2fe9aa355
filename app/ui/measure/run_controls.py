"""The Measure tab's run controls: the command line of the current (or first) run with Copy,
Start, Stop and the progress bar, with their keys (Ctrl+R or F5 starts, Esc stops)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class RunControls(QVBoxLayout):
    """The rows under the set-up form; `owner` takes the keys (they work anywhere in it)."""

    def __init__(self, owner: QWidget, start: Callable[[], None], stop: Callable[[], None]):
        super().__init__()
        command_row = QHBoxLayout()
        self.command = QLineEdit()
        self.command.setReadOnly(True)
        self.command.setObjectName("command_line")
        self.command.setAccessibleName("Command")
        self.command.setToolTip("The exact command LinkLab runs for the current (or first) run.")
        copy = QPushButton("Copy")
        copy.setToolTip("Copy the command line.")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.command.text()))
        command_row.addWidget(QLabel("Command"))
        command_row.addWidget(self.command, 1)
        command_row.addWidget(copy)
        buttons = QHBoxLayout()
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("start")
        self.start_button.setToolTip("Start the study (Ctrl+R).")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip(
            "Stop now (Esc): every finished run is saved, and the run in progress is kept "
            "unfinished with the intervals it measured so far (Resume measures it again)."
        )
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setAccessibleName("Progress")
        self.progress.setFormat("%v / %m runs")
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.progress, 1)
        self.addLayout(command_row)
        self.addLayout(buttons)
        self.start_button.clicked.connect(lambda: start())
        self.stop_button.clicked.connect(lambda: stop())
        QShortcut(QKeySequence("Ctrl+R"), owner, lambda: start())
        QShortcut(QKeySequence("F5"), owner, lambda: start())
        QShortcut(QKeySequence(Qt.Key.Key_Escape), owner, lambda: stop())
