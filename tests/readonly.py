"""A folder that really refuses writes, to root too: a read-only bind mount of a folder of the
test's own (root ignores file modes, so a chmod would prove nothing). The mount is the test's
and goes when it ends; where mounting cannot be done (not Linux, not root), tests skip and
say why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MOUNT = shutil.which("mount")
UMOUNT = shutil.which("umount")


def unavailable() -> str:
    """Why a read-only bind mount cannot be made here ("" when it can)."""
    if not sys.platform.startswith("linux"):
        return "a read-only bind mount is Linux's"
    if os.geteuid() != 0:
        return "a read-only bind mount needs root (file modes do not stop root)"
    if MOUNT is None or UMOUNT is None:
        return "mount and umount are not installed"
    return ""


@contextmanager
def read_only(source: Path, where: Path) -> Iterator[Path]:
    """source's files seen, read-only, at where (made here) while the block runs."""
    assert MOUNT is not None and UMOUNT is not None
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run([MOUNT, "--bind", str(source), str(where)], check=True, capture_output=True)
    try:
        subprocess.run(
            [MOUNT, "-o", "remount,bind,ro", str(where)], check=True, capture_output=True
        )
        probe = where / ".written"
        try:
            probe.write_text("x")
        except OSError:
            pass
        else:
            raise AssertionError(f"{where} took a write: it is not read-only")
        yield where
    finally:
        subprocess.run([UMOUNT, "--lazy", str(where)], check=False, capture_output=True)
