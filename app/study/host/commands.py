"""The short query tools the environment snapshot asks (nmcli, iw, wpa_cli, iwctl, netsh): run
from an argv list with a time limit, their output decoded as the system writes it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence

from app.engine.process.process import child_environment, run_short

COMMAND_TIMEOUT_S = 3.0

#: Runs one query tool from an argv list; returns its output, or None when it is missing or
#: fails without a word on stdout.
CommandRunner = Callable[[Sequence[str]], str | None]


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found is None and sys.platform.startswith("linux"):
        # iw and wpa_cli live in /usr/sbin, which is not on an ordinary user's PATH on Debian.
        found = shutil.which(name, path=os.pathsep.join(("/usr/sbin", "/sbin")))
    return found


def _query_env() -> dict[str, str] | None:
    """English words (nmcli's "yes") but the user's character set, so that SSIDs stay UTF-8."""
    if sys.platform == "win32":
        return None  # netsh speaks the Windows display language whatever the environment says
    env = child_environment("")
    everything = env.pop("LC_ALL", None)
    if everything:
        env["LC_CTYPE"] = everything
    env.pop("LANGUAGE", None)
    env["LC_MESSAGES"] = "C"
    return env


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if sys.platform == "win32":
            return data.decode("oem", "replace")  # netsh writes the console's OEM code page
        return data.decode("utf-8", "replace")


def run_command(argv: Sequence[str]) -> str | None:
    """Run a short query tool (argv list, 3 s limit, no window); its stdout, or None when it
    is missing, overstays, or fails without printing anything on stdout. A tool that fails
    but explains itself there (netsh refusing without location access, or finding the WLAN
    service stopped, exits non-zero) gives its explanation."""
    if isinstance(argv, str | bytes) or not argv:
        return None
    path = _which(argv[0])
    if path is None:
        return None
    try:
        done = run_short([path, *argv[1:]], timeout=COMMAND_TIMEOUT_S, env=_query_env())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0 and not done.stdout.strip():
        return None
    return _decode(done.stdout)
