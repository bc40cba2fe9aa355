"""A record of every server LinkLab starts, so that a later LinkLab stops those a killed one
left listening.

One small JSON file per server in the data folder's servers/ sub-folder: the server's pid,
start time and command line, and the pid and start time of the LinkLab that owns it. It is
written when the server starts and removed when LinkLab stops it. At start-up LinkLab looks
at the records left behind: a record whose owner still runs (another LinkLab) is left alone;
otherwise the server is ended only when the same pid still has the same start time, is an
engine's server program (the registry names them:
app.engine.drivers.registry.server_programs) and has the same command line — never a process
that is not verifiably LinkLab's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

from app.domain.paths import data_folder

_SAME_START_S = 0.05  # psutil's start times are exact to the clock tick
STOP_GRACE_S = 1.0


#: The folder of the records, beside the database in use: chosen by the entry point (from
#: LINKLAB_DB) before any server starts; the platform's user-data folder until then.
_records: Path | None = None


def keep_records_in(data: Path | None) -> Path | None:
    """Keep the records of servers in data's servers/ sub-folder (the entry point's data
    folder; None: the platform's); returns the data folder chosen before."""
    global _records
    before = _records.parent if _records is not None else None
    _records = data / "servers" if data is not None else None
    return before


def records_folder() -> Path:
    return _records if _records is not None else data_folder(None) / "servers"


@dataclass(frozen=True)
class ServerRecord:
    pid: int
    started: float
    argv: tuple[str, ...]
    owner_pid: int
    owner_started: float


def _start_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def _same(started: float | None, recorded: float) -> bool:
    return started is not None and abs(started - recorded) < _SAME_START_S


def record_server(pid: int, argv: tuple[str, ...], folder: Path | None = None) -> Path | None:
    """Write the record of a server just started; None when it cannot be written (a
    read-only data folder: the watchdog still ends the server with LinkLab)."""
    started = _start_time(pid)
    owner = os.getpid()
    owner_started = _start_time(owner)
    if started is None or owner_started is None:
        return None
    record = ServerRecord(pid, started, tuple(argv), owner, owner_started)
    folder = folder or records_folder()
    path = folder / f"{owner}-{pid}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(record)), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        return None
    return path


def forget_server(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def read_record(path: Path) -> ServerRecord | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ServerRecord(
            int(data["pid"]),
            float(data["started"]),
            tuple(str(a) for a in data["argv"]),
            int(data["owner_pid"]),
            float(data["owner_started"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def program_of(process_name: str) -> str:
    """The program a process runs, as the registry names it ("iperf3" for Windows' iperf3.exe)."""
    return process_name.removesuffix(".exe")


def is_ours(record: ServerRecord, servers: Mapping[str, str]) -> tuple[psutil.Process, str] | None:
    """The recorded server and its label, when that very process still runs and is one of
    the servers' programs; None otherwise."""
    try:
        proc = psutil.Process(record.pid)
        if not _same(proc.create_time(), record.started):
            return None
        label = servers.get(program_of(proc.name()))
        if label is None:
            return None
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        with contextlib.suppress(psutil.AccessDenied):
            if tuple(proc.cmdline()) != record.argv:
                return None
        return proc, label
    except psutil.Error:
        return None


def _end(proc: psutil.Process) -> None:
    """SIGTERM to the server's group (it leads one), then SIGKILL if it lingers."""
    leads_group = sys.platform != "win32" and os.getpgid(proc.pid) == proc.pid
    try:
        if leads_group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
        proc.wait(timeout=STOP_GRACE_S)
    except psutil.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, psutil.Error):
            if leads_group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
    except (ProcessLookupError, psutil.Error):
        pass


def stop_left_behind(servers: Mapping[str, str], folder: Path | None = None) -> list[str]:
    """End the servers a LinkLab that is gone left running; remove their records. servers:
    each engine's server program by name, with the server's label for the sentence
    (app.engine.drivers.registry.server_programs). Returns a sentence for each server ended. Records
    of a LinkLab that still runs are left alone."""
    folder = folder or records_folder()
    try:
        paths = sorted(folder.glob("*.json"))
    except OSError:
        return []
    stopped: list[str] = []
    for path in paths:
        record = read_record(path)
        if record is None:
            forget_server(path)
            continue
        if _same(_start_time(record.owner_pid), record.owner_started):
            continue  # its LinkLab still runs: its servers are its own business
        found = is_ours(record, servers)
        if found is not None:
            proc, label = found
            _end(proc)
            stopped.append(
                f"Stopped the {label} (pid {record.pid}) that a LinkLab which ended "
                f"had left running."
            )
        forget_server(path)
    return stopped
