"""Starting the window: a display check first, so a headless machine gets one sentence."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def display_problem() -> str | None:
    """Why no window can open here, or None."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM")
    ):
        return (
            "LinkLab found no display, so its window cannot open here: run it from a "
            "desktop session, or use the command line instead (linklab run --peer HOST; "
            "see linklab --help)."
        )
    return None


def _already_open(open_files: Sequence[Path]) -> int:
    if not open_files:
        print("linklab: LinkLab is already open: its window was brought to the front.")
    return 0


def run_app(argv: list[str] | None = None, open_files: Sequence[Path] = ()) -> int:
    """Open the window; open_files (exchange files) are imported once it shows."""
    problem = display_problem()
    if problem:
        print(f"linklab: {problem}", file=sys.stderr)
        return 1
    from PySide6.QtWidgets import QApplication

    from app.ui.context import AppContext
    from app.ui.qt_fonts import point_offscreen_at_fonts
    from app.ui.single_instance import HandoverServer, send_files, serve_window, server_name

    point_offscreen_at_fonts()
    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("LinkLab")
    app.setOrganizationName("LinkLab")
    context = AppContext()
    # One window per user and database: a second launch brings the open one to the front and
    # hands it the files it was asked to open, instead of a second window with its own servers.
    name = server_name(context.db_path)
    if send_files(name, open_files):
        return _already_open(open_files)
    server = HandoverServer()
    if not server.listen(name) and send_files(name, open_files):
        return _already_open(open_files)  # another LinkLab started at the same moment
    from app.analysis.stats import preload
    from app.engine.process.process import cancel_all
    from app.ui.common.worker import Worker, once
    from app.ui.icons import app_icon
    from app.ui.main_window import MainWindow

    QApplication.setWindowIcon(app_icon())
    # Lets Linux desktops match the window to the installed linklab.desktop entry.
    QApplication.setDesktopFileName("linklab")
    window = MainWindow(context, open_files=open_files)
    serve_window(server, window)
    window.show()
    # What comparing needs (SciPy's special functions, about 26 MB) loads in the background
    # once the window shows another tab than Measure: not during a study, which needs no
    # SciPy, and not on the GUI thread at the first comparison.
    tabs = window.tabs

    def preload_once(_index: int = 0) -> None:
        tabs.currentChanged.disconnect(preload_once)
        Worker(once(preload), "preload-stats").start()

    tabs.currentChanged.connect(preload_once)
    if tabs.currentWidget() is not window.measure:  # opened on a file: Sessions already
        preload_once()
    try:
        return int(app.exec())
    finally:
        server.close()
        window.shutdown()
        cancel_all()
        # Destroy the widgets while Python is still whole: left to interpreter shutdown,
        # PySide6 may free objects in an order that crashes on the way out.
        window.deleteLater()
        app.processEvents()
        del window
        gc.collect()
