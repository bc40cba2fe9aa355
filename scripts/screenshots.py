"""`make screenshots`: the main views with real data, at 1280x800 and 1920x1080, into
docs/screenshots/. Runs a real loopback sweep against LinkLab's own local server. Uses the
display it is given, else a virtual X server (Xvfb), else Qt's offscreen platform."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SIZES = [(1280, 800), (1920, 1080)]
sys.path.insert(0, str(ROOT))


def virtual_display() -> subprocess.Popen[bytes] | None:
    if os.environ.get("DISPLAY") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if shutil.which("Xvfb") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return None
    display = ":97"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    os.environ["DISPLAY"] = display
    return xvfb


def main() -> int:
    xvfb = virtual_display()
    try:
        return shoot()
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(5)


def shoot() -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow

    app = QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="linklab-shots-"))
    context = AppContext(
        QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
        db_path=folder / "linklab.sqlite3",
    )
    window = MainWindow(context, preset_dir=folder / "presets")
    window.show()

    def wait_until(condition, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not condition():
            app.processEvents()
            time.sleep(0.02)
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not get there in time")

    def save(name: str) -> None:
        for _ in range(5):
            app.processEvents()
            time.sleep(0.05)
        path = OUT / name
        window.grab().save(str(path))
        print(f"wrote {path.relative_to(ROOT)}")

    measure = window.measure
    setup = measure.setup
    setup.protocol.setCurrentIndex(2)  # TCP and UDP
    setup.custom_values.setText("128, 384, 640, 896, 1152, 1408")
    setup.repetitions.setValue(2)
    setup.duration.setValue(2)
    setup.bitrate.setText("800M")
    setup.conditions_box.tags.setText("room=B12, os=Debian 12")
    for number, (width, height) in enumerate(SIZES):
        window.resize(width, height)
        # The first sweep over IPv4, the second over IPv6: the Compare view gets two
        # real sessions that differ in one thing.
        setup.ip_version.setCurrentIndex(number)
        window.tabs.setCurrentWidget(measure)
        measure.charts.setCurrentIndex(0)
        measure.start()
        # Live: after a few points, during a run with a few intervals on the live chart.
        wait_until(lambda: measure.progress.value() >= 7 and measure.live_chart.point_count >= 1)
        measure.charts.setCurrentIndex(1)
        save(f"measure-live-{width}x{height}.png")
        measure.charts.setCurrentIndex(0)
        save(f"measure-current-run-{width}x{height}.png")
        wait_until(lambda: not measure.running, timeout=300)
        measure.charts.setCurrentIndex(1)
        save(f"measure-done-{width}x{height}.png")
        window.tabs.setCurrentWidget(window.sessions)
        window.sessions.refresh()
        window.sessions.table.selectRow(0)
        save(f"sessions-{width}x{height}.png")
        window.tabs.setCurrentWidget(window.server_tab)
        save(f"server-{width}x{height}.png")
        window.tabs.setCurrentWidget(window.settings_tab)
        save(f"settings-{width}x{height}.png")
    sessions = window.sessions
    sessions.refresh()
    ids = [session.id for session in sessions.model.sessions]
    window.compare_tab.load_sessions(ids)
    for width, height in SIZES:
        window.resize(width, height)
        window.tabs.setCurrentWidget(window.compare_tab)
        save(f"compare-{width}x{height}.png")
    window.shutdown()
    window.deleteLater()
    app.processEvents()
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
