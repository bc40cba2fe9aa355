"""How a user installs an engine or tool on the system LinkLab runs on, as words that fit a
sentence: Debian/Ubuntu commands on Linux, Homebrew on macOS, the bundled engines and
Settings › Engines on Windows."""

from __future__ import annotations

import sys

#: Debian's package that carries each program (netserver comes with netperf).
PACKAGES = {"netserver": "netperf", "iperf2": "iperf"}
#: Homebrew's formula names where they differ from the program's.
FORMULAE = {"netserver": "netperf", "iperf2": "iperf"}
#: What LinkLab's Windows installer bundles.
BUNDLED_ON_WINDOWS = frozenset({"iperf3"})


def install_hint(program: str, platform: str | None = None) -> str:
    """'install it (Debian/Ubuntu: sudo apt-get install iperf3)', or what fits the platform;
    the caller goes on with its own 'or set its path …'."""
    platform = platform or sys.platform
    if platform == "win32":
        if program in BUNDLED_ON_WINDOWS:
            return (
                f"LinkLab's Windows installer brings {program} with it: install LinkLab again to "
                f"restore it"
            )
        return (
            f"download a Windows build of {program} and choose its .exe in LinkLab's "
            f"Settings › Engines"
        )
    if platform == "darwin":
        return f"install it (Homebrew: brew install {FORMULAE.get(program, program)})"
    return f"install it (Debian/Ubuntu: sudo apt-get install {PACKAGES.get(program, program)})"
