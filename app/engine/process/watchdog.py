"""The watchdog that ends LinkLab's engines when LinkLab dies, however it dies (POSIX).

Every engine and server runs in a process group of its own. One small watchdog process per
LinkLab holds the list of those groups; LinkLab tells it, over a pipe whose write end only
LinkLab holds, each group it starts ("watch PGID START") and each one it has reaped
("forget PGID"). When LinkLab dies — a crash, kill -9, a closed terminal — the kernel closes
that pipe, the watchdog reads end-of-file and ends every group still on its list (SIGTERM,
then SIGKILL), then exits. It also looks at its parent twice a second, for a write end leaked
into another process. PR_SET_PDEATHSIG is not used: Linux sends it when the *thread* that
started the child ends, and LinkLab starts engines from worker threads that end while it
lives on; the pipe reports the death of the process itself, on Linux and macOS alike.

A group is signalled only when it is still LinkLab's: while any member lives, its id cannot
be given to another process, and a leader that is there must have the start time LinkLab
recorded. Windows needs none of this: a job object ends the tree when LinkLab's handle closes.
LinkLab's side (starting this process, telling it the groups) is Watchdog in process.py, the
one module that starts processes.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from typing import IO

import psutil

#: How a frozen LinkLab starts its own watchdog (app/__main__.py reads it first).
WATCHDOG_FLAG = "--linklab-watchdog"
GRACE_S = 0.5  # after SIGTERM, how long the groups get before SIGKILL


def start_time(pid: int) -> float | None:
    """A process's start time as psutil gives it (None when it is gone)."""
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


# -- the watchdog process ----------------------------------------------------------------------
def _still_ours(pgid: int, started: float) -> bool:
    """The group exists, and its leader (when there) is the process LinkLab started."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    now = start_time(pgid)
    return now is None or abs(now - started) < 0.05


def end_groups(groups: dict[int, float]) -> None:
    """SIGTERM to every group still LinkLab's, then SIGKILL to those still there."""
    ours = [pgid for pgid, started in groups.items() if _still_ours(pgid, started)]
    for pgid in ours:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while ours and time.monotonic() < deadline:
        time.sleep(0.02)
        ours = [pgid for pgid in ours if _group_alive(pgid)]
    for pgid in ours:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def serve(parent: int, stream: IO[bytes], groups: dict[int, float]) -> None:
    """Keep `groups` up to date from LinkLab's messages until LinkLab is gone: the pipe's
    end-of-file, or a parent that is no longer the one that started us. Messages still in the
    pipe are read first either way."""
    buffer = b""
    fd = stream.fileno()
    while True:
        parent_gone = os.getppid() != parent
        ready, _, _ = select.select([fd], [], [], 0 if parent_gone else 0.5)
        if not ready:
            if parent_gone:
                return
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            words = line.decode("ascii", "replace").split()
            try:
                if len(words) == 3 and words[0] == "watch":
                    groups[int(words[1])] = float(words[2])
                elif len(words) == 2 and words[0] == "forget":
                    groups.pop(int(words[1]), None)
            except ValueError:
                continue


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    args = [a for a in args if a != WATCHDOG_FLAG]
    parent = int(args[0]) if args else os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups: dict[int, float] = {}
    # Even when LinkLab is already gone, its last messages are still in the pipe: read them.
    try:
        serve(parent, sys.stdin.buffer, groups)
    except OSError:
        pass
    end_groups(groups)
    return 0


if __name__ == "__main__":
    sys.exit(main())
