"""The frozen build that tests/installers/test_dist.py needs, started as soon as the tests are
collected, at the lowest CPU priority, so that it runs while other tests wait on engines and
links; the dist tests wait for it when they come. One build per test session."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
DIST_TESTS = "tests/installers/test_dist.py"


class _Build:
    def __init__(self, folder: Path, popen: subprocess.Popen[bytes], log: IO[bytes]) -> None:
        self.folder = folder
        self.popen = popen
        self.log = log


_build: _Build | None = None


def can_build() -> bool:
    return sys.platform.startswith("linux") and shutil.which("dpkg-deb") is not None


def start_if_needed(nodeids: Iterable[str]) -> None:
    """Start the build when a dist test is among the tests to run."""
    global _build
    if _build is not None or not can_build():
        return
    if not any(nodeid.startswith(DIST_TESTS) for nodeid in nodeids):
        return
    folder = Path(tempfile.mkdtemp(prefix="linklab-dist-test-"))
    log = (folder / "build.log").open("wb")
    argv = [sys.executable, str(ROOT / "installers" / "build.py")]
    argv += ["--out", str(folder / "dist"), "--work", str(folder / "work")]
    nice = shutil.which("nice")
    if nice is not None:
        argv = [nice, "-n", "19", *argv]
    # A session of its own: PyInstaller's helpers end with it if the tests are cut short.
    popen = subprocess.Popen(
        argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    _build = _Build(folder, popen, log)


def wait(timeout_s: float) -> Path:
    """The build's output folder once it has finished (started now if it was not)."""
    if _build is None:
        start_if_needed([DIST_TESTS])
    assert _build is not None, "the Linux packages cannot be built here"
    deadline = time.monotonic() + timeout_s
    while _build.popen.poll() is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"the build took longer than {timeout_s:.0f} s")
        time.sleep(0.5)
    _build.log.flush()
    text = (_build.folder / "build.log").read_text(errors="replace")
    assert _build.popen.returncode == 0, text[-6000:]
    return _build.folder / "dist"


def finish() -> None:
    """End the build if it still runs (a session cut short) and remove its folder."""
    global _build
    if _build is None:
        return
    if _build.popen.poll() is None:
        os.killpg(_build.popen.pid, signal.SIGTERM)  # the group this build leads
        try:
            _build.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(_build.popen.pid, signal.SIGKILL)
            _build.popen.wait()
    _build.log.close()
    shutil.rmtree(_build.folder, ignore_errors=True)
    _build = None
