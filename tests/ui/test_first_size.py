"""The window's first start fits the screen's usable area: on a 1280x720 screen (1280x800
with a taskbar) its title bar and status bar are on screen, not only once maximised."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSize

from app.ui.main_window import DEFAULT_SIZE, first_size
from tests.conftest import under_wine

#: Run in a process of its own: the screen's size is the platform's, fixed at start.
SHOW_WINDOW = """
import json, sys
from pathlib import Path
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from app.ui.context import AppContext
from app.ui.main_window import MainWindow

app = QApplication([])
folder = Path(sys.argv[1])
settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
window = MainWindow(AppContext(settings, db_path=folder / "linklab.sqlite3"), preset_dir=folder)
window.show()
app.processEvents()
frame, screen = window.frameGeometry(), window.screen().availableGeometry()
print(json.dumps({"frame": [frame.width(), frame.height()],
                  "screen": [screen.width(), screen.height()]}))
window.shutdown()
"""


def test_the_first_size_is_the_default_where_it_fits_and_smaller_where_not() -> None:
    assert first_size(QSize(1920, 1080)) == DEFAULT_SIZE
    small = first_size(QSize(1280, 720))
    assert small.width() <= 1280 and small.height() <= 720 - 30  # room for a title bar


@pytest.mark.skipif(
    under_wine(),
    reason="a second window process under Wine ends at start (0xC0000409); real Windows runs it",
)
def test_the_first_start_fits_a_1280x720_screen(tmp_path: Path) -> None:
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps(
            {
                "windowFrameMargins": True,
                "screens": [
                    {
                        "name": "small",
                        "x": 0,
                        "y": 0,
                        "width": 1280,
                        "height": 720,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ],
            }
        )
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    done = subprocess.run(
        [sys.executable, "-c", SHOW_WINDOW, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    sizes = json.loads(done.stdout.strip().splitlines()[-1])
    assert sizes["screen"] == [1280, 720], "the platform did not take the screen's size"
    width, height = sizes["frame"]
    assert width <= 1280 and height <= 720, sizes
