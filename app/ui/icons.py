"""LinkLab's application icon, built from the rendered PNG sizes in resources/icons/."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon

from app.resources import resource_dir

ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def app_icon() -> QIcon:
    """The window and taskbar icon: every PNG size that exists, else the SVG they come from."""
    folder = resource_dir() / "icons"
    icon = QIcon()
    for size in ICON_SIZES:
        path = folder / f"linklab-{size}.png"
        if path.is_file():
            icon.addFile(str(path), QSize(size, size))
    if icon.isNull():
        icon = QIcon(str(folder / "linklab.svg"))
    return icon
