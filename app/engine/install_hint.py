"""How a user installs an engine or tool on the system LinkLab runs on, as words that fit a
sentence: Debian/Ubuntu commands on Linux, Homebrew on macOS, the bundled engines and
Settings › Engines on Windows."""

from __future__ import annotations

import sys

#: Debian's package that carries each program (netserver comes with netperf).
PACKAGES = {"netserver": "netperf", "iperf2": "iperf"}
#: Homebrew's formula names where they differ from the program's.
FORMULAE = {"netserver": "netperf", "iperf2": "iperf"}
#: What LinkLab's Windows installer bundles (iperf: iperf 2.2.1, built from its pinned source).
BUNDLED_ON_WINDOWS = frozenset({"iperf3", "iperf"})


SETTINGS = "LinkLab's Settings › Engines"


def install_hint(program: str, platform: str | None = None) -> str:
    """What to do about a missing program, as the end of a sentence: 'install it (Debian/Ubuntu:
    sudo apt-get install iperf3), or set its path in LinkLab's Settings › Engines', or what
    fits the platform."""
    platform = platform or sys.platform
    if platform == "win32":
        if program in BUNDLED_ON_WINDOWS:
            return (
                f"LinkLab's Windows installer brings {program} with it: install LinkLab again to "
                f"restore it, or choose another {program}.exe in {SETTINGS}"
            )
        return f"download a Windows build of {program} and choose its .exe in {SETTINGS}"
    if platform == "darwin":
        how = f"Homebrew: brew install {FORMULAE.get(program, program)}"
    else:
        how = f"Debian/Ubuntu: sudo apt-get install {PACKAGES.get(program, program)}"
    return f"install it ({how}), or set its path in {SETTINGS}"
