"""A program, run by the window's kill -9 test: the real window (offscreen, its own settings
and database in the folder given) starts a 60 s study against This computer through the
user-level driver, prints READY once the first interval is charted, and waits to be killed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for


def main(folder: Path, iperf3_port: int) -> int:
    app = QApplication([])
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    context = AppContext(settings, db_path=folder / "linklab.sqlite3")
    context.set_default_port("iperf3", iperf3_port)
    window = MainWindow(context, preset_dir=folder / "presets")
    window.resize(1280, 800)
    window.show()
    user = User(window)
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "60")
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 1, 30, "the first interval")  # type: ignore[attr-defined]
    print("READY", flush=True)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2])))
