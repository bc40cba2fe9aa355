"""How a user installs an engine or tool on the system LinkLab runs on, as words that fit a
sentence: Debian/Ubuntu commands on Linux, Homebrew on macOS, the bundled engines and
Settings › Engines on Windows. What each engine program is packaged as, and whether LinkLab's
Windows installer brings it, its driver says (app.engine.process.tools.Program)."""

from __future__ import annotations

import sys

SETTINGS = "LinkLab's Settings › Engines"


def install_hint(
    program: str,
    platform: str | None = None,
    *,
    package: str = "",
    formula: str = "",
    bundled_on_windows: bool = False,
) -> str:
    """What to do about a missing program, as the end of a sentence: 'install it (Debian/Ubuntu:
    sudo apt-get install PACKAGE), or set its path in LinkLab's Settings › Engines', or what
    fits the platform. package, formula: Debian's package and Homebrew's formula that carry
    the program, where they are not named after it."""
    platform = platform or sys.platform
    if platform == "win32":
        if bundled_on_windows:
            return (
                f"LinkLab's Windows installer brings {program} with it: install LinkLab again to "
                f"restore it, or choose another {program}.exe in {SETTINGS}"
            )
        return f"download a Windows build of {program} and choose its .exe in {SETTINGS}"
    if platform == "darwin":
        how = f"Homebrew: brew install {formula or program}"
    else:
        how = f"Debian/Ubuntu: sudo apt-get install {package or program}"
    return f"install it ({how}), or set its path in {SETTINGS}"
