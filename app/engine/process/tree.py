"""A child process and its descendants, signalled as one: the POSIX process group it leads, or
(Windows) its psutil tree; and whether any of it still runs once the child has been reaped."""

from __future__ import annotations

import os
import signal
import sys

import psutil

_IS_WINDOWS = sys.platform == "win32"


class ProcessTree:
    """A child and its descendants: the POSIX process group it leads, or (Windows) its psutil
    tree, captured before the first signal so that orphans are still reached."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._group: int | None = None
        self._procs: list[psutil.Process] = []
        if not _IS_WINDOWS:
            try:
                pgid = os.getpgid(pid)
            except ProcessLookupError:
                return
            # Signal the group only when the child leads it (start_new_session): never ours.
            if pgid == pid and pgid != os.getpgid(0):
                self._group = pgid
                return
        try:
            parent = psutil.Process(pid)
            self._procs = [*parent.children(recursive=True), parent]
        except psutil.NoSuchProcess:
            self._procs = []

    def terminate(self) -> None:
        if self._group is not None:
            _signal_group(self._group, signal.SIGTERM)
            return
        for proc in self._procs:
            try:
                proc.terminate()
            except psutil.NoSuchProcess:
                pass

    def kill(self) -> None:
        if self._group is not None:
            _signal_group(self._group, signal.SIGKILL)
            return
        for proc in self._procs:
            try:
                if proc.is_running():
                    proc.kill()
            except psutil.NoSuchProcess:
                pass


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def group_lives_on(pgid: int) -> bool:
    """POSIX: whether any process is left in the group the (reaped) child led; a descendant
    there may still hold the child's pipes open."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
