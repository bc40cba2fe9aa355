"""Other programs keeping this computer's CPU busy: processes that are no descendants of the
test's (a shell starts each and exits at once), at the lowest priority so that what they
take is only what nobody else wants. Ended by their PIDs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import psutil

#: Spins at nice 19 for at most a minute of wall time.
SPIN = (
    "import os, time\n"
    "os.nice(19)\n"
    "end = time.monotonic() + 60\n"
    "while time.monotonic() < end: pass\n"
)


def start_detached(code: str) -> psutil.Process:
    """code in a Python of its own that is not this process's child (nor grandchild)."""
    shell = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -c "$0" >/dev/null 2>&1 & echo $!', code],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    return psutil.Process(int(shell.stdout.strip()))


@contextmanager
def other_programs_busy(count: int) -> Iterator[list[psutil.Process]]:
    """count spinning processes of no relation to this one, while the block runs."""
    spinning = [start_detached(SPIN) for _ in range(count)]
    try:
        yield spinning
    finally:
        for process in spinning:
            try:
                process.kill()
                process.wait(10)
            except psutil.NoSuchProcess:
                pass
