"""The frozen build that tests/installers/test_dist.py needs, started as soon as the tests are
collected, at the lowest CPU priority, so that it runs while other tests wait on engines and
links; the dist tests wait for it when they come. One build per test session: with
pytest-xdist the controller starts it and the worker that gets the dist tests waits for the
return code the controller writes beside it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
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
#: The folder of the controller's build, in a pytest-xdist worker (None elsewhere).
_shared: Path | None = None
_folder: Path | None = None
RETURN_CODE = "returncode"


def folder() -> Path:
    """The build's folder, made on first use (the controller hands it to every worker)."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="linklab-dist-test-"))
    return _folder


def use_shared(path: Path) -> None:
    """In a worker: wait for the controller's build in path instead of building."""
    global _shared
    _shared = path


def _record_return_code(popen: subprocess.Popen[bytes], where: Path) -> None:
    code = popen.wait()
    (where / f"{RETURN_CODE}.part").write_text(str(code))
    (where / f"{RETURN_CODE}.part").replace(where / RETURN_CODE)


def can_build() -> bool:
    return sys.platform.startswith("linux") and shutil.which("dpkg-deb") is not None


def start_if_needed(nodeids: Iterable[str]) -> None:
    """Start the build when a dist test is among the tests to run."""
    global _build
    if _build is not None or _shared is not None or not can_build():
        return
    if not any(nodeid.startswith(DIST_TESTS) for nodeid in nodeids):
        return
    where = folder()
    log = (where / "build.log").open("wb")
    argv = [sys.executable, str(ROOT / "installers" / "build.py")]
    argv += ["--out", str(where / "dist"), "--work", str(where / "work")]
    # The packages are read, not shipped: gzip's fastest level (the release's are 6 and 9).
    argv += ["--compression-level", "1"]
    nice = shutil.which("nice")
    if nice is not None:
        argv = [nice, "-n", "19", *argv]
    # A session of its own: PyInstaller's helpers end with it if the tests are cut short.
    popen = subprocess.Popen(
        argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    _build = _Build(where, popen, log)
    # For workers that wait on the file (the controller's own loop is busy handing out tests).
    threading.Thread(target=_record_return_code, args=(popen, where), daemon=True).start()


def wait(timeout_s: float) -> Path:
    """The build's output folder once it has finished (started now if it was not)."""
    if _shared is not None:
        return _wait_shared(_shared, timeout_s)
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


def _wait_shared(where: Path, timeout_s: float) -> Path:
    deadline = time.monotonic() + timeout_s
    while not (where / RETURN_CODE).exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"the build took longer than {timeout_s:.0f} s")
        time.sleep(0.5)
    code = (where / RETURN_CODE).read_text().strip()
    text = (where / "build.log").read_text(errors="replace")
    assert code == "0", text[-6000:]
    return where / "dist"


def finish() -> None:
    """End the build if it still runs (a session cut short) and remove its folder."""
    global _build, _folder
    if _build is None:
        if _folder is not None and _shared is None:
            shutil.rmtree(_folder, ignore_errors=True)
            _folder = None
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
    _build = _folder = None
