"""A command's peak memory, as the OS counts it: the command runs as the only child of a small
wrapper, which reads the child's maximum resident set with POSIX getrusage (RUSAGE_CHILDREN:
kB on Linux) and prints it beside the exit code, the output and the wall time."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

from tests.conftest import ROOT_DIR

UNAVAILABLE = "a child's peak memory is read with POSIX getrusage (RUSAGE_CHILDREN)"

_WRAPPER = (
    "import json, resource, subprocess, sys, time\n"
    "start = time.monotonic()\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "seconds = time.monotonic() - start\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(json.dumps([done.returncode, done.stdout, done.stderr, peak, seconds]))\n"
)


@dataclass(frozen=True)
class Measured:
    code: int
    out: str
    err: str
    peak_mb: float
    seconds: float


def measured(*argv: str, timeout: float = 600) -> Measured:
    """argv run as the wrapper's child (from the checkout's folder)."""
    wrapper = [sys.executable, "-c", _WRAPPER, *argv]
    done = subprocess.run(wrapper, cwd=ROOT_DIR, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    code, out, err, peak_kb, seconds = json.loads(done.stdout)
    return Measured(code, out, err, peak_kb / 1024, seconds)


def linklab_measured(*args: str, timeout: float = 600) -> Measured:
    """`python -m app ARGS`, measured."""
    return measured(sys.executable, "-m", "app", *args, timeout=timeout)
