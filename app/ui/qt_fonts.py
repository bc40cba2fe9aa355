"""Fonts for Qt's offscreen platform on Windows. Offscreen draws text with its own font
database, which looks only in PySide6's lib/fonts folder (empty in the wheels): Qt then warns
"Cannot find font directory" and draws no text. Windows' own fonts folder serves it."""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path


def point_offscreen_at_fonts(
    environ: MutableMapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """Set QT_QPA_FONTDIR to Windows' fonts folder when Qt will draw offscreen on Windows and
    nothing chose a folder yet; returns the folder set, else None. Call before QApplication."""
    environ = os.environ if environ is None else environ
    platform = platform or sys.platform
    if platform != "win32" or environ.get("QT_QPA_FONTDIR"):
        return None
    if not environ.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        return None  # the windows platform asks Windows itself for fonts
    folder = Path(environ.get("WINDIR") or environ.get("SystemRoot") or r"C:\Windows") / "Fonts"
    if not any(folder.glob("*.tt[fc]")):
        return None
    environ["QT_QPA_FONTDIR"] = str(folder)
    return str(folder)
