"""The Windows job object: its kernel32 calls (checked on any platform through a recording
stand-in), the structure layout winnt.h gives, ManagedProcess's use of it, and on Windows itself
that a job ends the whole tree, even when LinkLab is killed."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time

import psutil
import pytest

from app.engine.process import process
from app.engine.process.process import ManagedProcess
from app.engine.process.winjob import (
    IO_COUNTERS,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_BASIC_LIMIT_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObject,
)
from tests.conftest import ROOT_DIR

PY = sys.executable
WINDOWS = sys.platform == "win32"
JOB = 0x1A4
OPENED = 0x2B8
ACCESS_DENIED = 5


class FakeKernel32:
    """Records each kernel32 call and answers as Windows would; `refuse` names functions that
    fail, with ERROR_ACCESS_DENIED as their last error.

    A stand-in is right here and nowhere else: these are unit tests of one small wrapper whose
    only job is to make the right Windows calls, and Windows cannot run on the machines that
    run most of the tests. Everything else in the suite runs real processes.
    """

    def __init__(self, *refuse: str) -> None:
        self.refuse = set(refuse)
        self.calls: list[tuple[object, ...]] = []
        self.limit_flags: int | None = None
        self.error = 0

    def _answer(self, name: str, ok: object, *args: object) -> object:
        self.calls.append((name, *args))
        if name in self.refuse:
            self.error = ACCESS_DENIED
            return None if name in ("CreateJobObjectW", "OpenProcess") else 0
        return ok

    def last_error(self) -> int:
        return self.error

    def CreateJobObjectW(self, attributes: None, name: None) -> object:
        return self._answer("CreateJobObjectW", JOB, attributes, name)

    def SetInformationJobObject(
        self,
        job: int,
        info_class: int,
        info: ctypes._Pointer[JOBOBJECT_EXTENDED_LIMIT_INFORMATION],
        length: int,
    ) -> object:
        # What Windows would read from the structure, at the moment it would read it.
        self.limit_flags = info.contents.BasicLimitInformation.LimitFlags
        return self._answer("SetInformationJobObject", 1, job, info_class, length)

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> object:
        return self._answer("OpenProcess", OPENED, access, inherit, pid)

    def AssignProcessToJobObject(self, job: int, handle: int) -> object:
        return self._answer("AssignProcessToJobObject", 1, job, handle)

    def TerminateJobObject(self, job: int, exit_code: int) -> object:
        return self._answer("TerminateJobObject", 1, job, exit_code)

    def CloseHandle(self, handle: int) -> object:
        return self._answer("CloseHandle", 1, handle)

    def names(self) -> list[object]:
        return [call[0] for call in self.calls]


def _job(kernel: FakeKernel32) -> JobObject:
    return JobObject(kernel, kernel.last_error)


# -- the structures -----------------------------------------------------------------------------


@pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8, reason="64-bit layout")
def test_structures_have_the_64_bit_windows_layout() -> None:
    """Sizes and offsets as winnt.h gives them for x64 (and ARM64)."""
    assert ctypes.sizeof(IO_COUNTERS) == 48
    assert ctypes.sizeof(JOBOBJECT_BASIC_LIMIT_INFORMATION) == 64
    assert ctypes.sizeof(JOBOBJECT_EXTENDED_LIMIT_INFORMATION) == 144
    basic = JOBOBJECT_BASIC_LIMIT_INFORMATION
    offsets = {
        "PerJobUserTimeLimit": 8,
        "LimitFlags": 16,
        "MinimumWorkingSetSize": 24,
        "ActiveProcessLimit": 40,
        "Affinity": 48,
        "PriorityClass": 56,
        "SchedulingClass": 60,
    }
    assert {name: getattr(basic, name).offset for name in offsets} == offsets
    extended = JOBOBJECT_EXTENDED_LIMIT_INFORMATION
    assert extended.IoInfo.offset == 64
    assert extended.ProcessMemoryLimit.offset == 112
    assert extended.PeakJobMemoryUsed.offset == 136


def test_fields_are_windows_sized_whatever_the_platform() -> None:
    """DWORD is 4 bytes and IO_COUNTERS holds ULONGLONGs, even where a C long is 8 bytes."""
    basic = JOBOBJECT_BASIC_LIMIT_INFORMATION
    assert basic.LimitFlags.size == 4
    assert basic.PerProcessUserTimeLimit.size == 8
    assert basic.Affinity.size == ctypes.sizeof(ctypes.c_void_p)
    assert IO_COUNTERS.OtherTransferCount.size == 8


# -- kernel32 calls -----------------------------------------------------------------------------


def test_job_is_created_with_kill_on_close() -> None:
    kernel = FakeKernel32()
    job = _job(kernel)
    assert job.is_open and job.failure is None
    assert kernel.calls == [
        ("CreateJobObjectW", None, None),
        ("SetInformationJobObject", JOB, 9, ctypes.sizeof(JOBOBJECT_EXTENDED_LIMIT_INFORMATION)),
    ]
    assert kernel.limit_flags == JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE == 0x2000


def test_assign_uses_the_process_handle_it_is_given() -> None:
    kernel = FakeKernel32()
    job = _job(kernel)
    assert job.assign(4242, 0x5C)
    assert kernel.calls[2:] == [("AssignProcessToJobObject", JOB, 0x5C)]


def test_assign_by_pid_opens_and_closes_a_handle() -> None:
    kernel = FakeKernel32()
    job = _job(kernel)
    assert job.assign(4242)
    assert kernel.calls[2:] == [
        ("OpenProcess", 0x0100 | 0x0001, False, 4242),  # PROCESS_SET_QUOTA | PROCESS_TERMINATE
        ("AssignProcessToJobObject", JOB, OPENED),
        ("CloseHandle", OPENED),
    ]


def test_terminate_then_close_exactly_once() -> None:
    kernel = FakeKernel32()
    job = _job(kernel)
    job.assign(4242, 0x5C)
    assert job.terminate()
    job.close()
    job.close()
    assert not job.terminate()  # closed: no call with a handle Windows may have reused
    assert kernel.calls[3:] == [("TerminateJobObject", JOB, 1), ("CloseHandle", JOB)]


def test_refused_assignment_is_reported_not_raised() -> None:
    kernel = FakeKernel32("AssignProcessToJobObject")
    job = _job(kernel)
    assert not job.assign(4242, 0x5C)
    assert job.failure is not None
    assert "AssignProcessToJobObject" in job.failure and "error 5" in job.failure
    assert not job.terminate()  # nothing in the job: the caller's psutil tree does the work
    job.close()
    assert kernel.names()[2:] == ["AssignProcessToJobObject", "CloseHandle"]


def test_refused_open_process_is_reported() -> None:
    kernel = FakeKernel32("OpenProcess")
    job = _job(kernel)
    assert not job.assign(4242)
    assert job.failure is not None and "OpenProcess" in job.failure
    assert "AssignProcessToJobObject" not in kernel.names()


def test_refused_creation_leaves_a_closed_job() -> None:
    kernel = FakeKernel32("CreateJobObjectW")
    job = _job(kernel)
    assert not job.is_open and job.failure is not None
    assert not job.assign(4242, 0x5C) and not job.terminate()
    job.close()
    assert kernel.names() == ["CreateJobObjectW"]


def test_job_without_kill_on_close_is_dropped() -> None:
    kernel = FakeKernel32("SetInformationJobObject")
    job = _job(kernel)
    assert not job.is_open and job.failure is not None
    assert kernel.calls[-1] == ("CloseHandle", JOB)
    job.close()
    assert kernel.names().count("CloseHandle") == 1


def test_refused_terminate_is_reported() -> None:
    kernel = FakeKernel32("TerminateJobObject")
    job = _job(kernel)
    job.assign(4242, 0x5C)
    assert not job.terminate()
    assert job.failure is not None and "TerminateJobObject" in job.failure


@pytest.mark.skipif(WINDOWS, reason="off Windows only")
def test_off_windows_the_real_job_is_a_quiet_failure() -> None:
    job = JobObject()
    assert not job.is_open and job.failure == "Job objects exist only on Windows."
    assert not job.assign(os.getpid())
    assert not job.terminate()
    job.close()


# -- ManagedProcess with a job ------------------------------------------------------------------


def test_only_windows_gives_the_child_a_job(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "_IS_WINDOWS", False)
    assert process._new_job() is None
    monkeypatch.setattr(process, "_IS_WINDOWS", True)
    job = process._new_job()
    assert isinstance(job, JobObject)
    job.close()


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> FakeKernel32:
    """ManagedProcess gets a job on the stand-in kernel32, as it would on Windows; the child
    itself is real, and ended here by its process group."""
    fake = FakeKernel32()
    monkeypatch.setattr(process, "_new_job", lambda: _job(fake))
    return fake


@pytest.mark.skipif(WINDOWS, reason="the stand-in replaces the real job")
def test_child_is_assigned_and_cancel_terminates_then_closes(kernel: FakeKernel32) -> None:
    proc = ManagedProcess([PY, "-c", "import time; print('up', flush=True); time.sleep(30)"])
    proc.start()
    assert ("OpenProcess", 0x0101, False, proc.pid) in kernel.calls  # no _handle off Windows
    assert proc.job_failure is None
    assert next(proc.lines(idle_timeout=10)) == "up"
    proc.cancel()
    proc.wait(2)
    assert kernel.names()[-2:] == ["TerminateJobObject", "CloseHandle"]
    assert kernel.calls.count(("CloseHandle", JOB)) == 1


@pytest.mark.skipif(WINDOWS, reason="the stand-in replaces the real job")
def test_job_is_closed_once_the_child_is_reaped(kernel: FakeKernel32) -> None:
    proc = ManagedProcess([PY, "-c", "print('done')"])
    proc.start()
    assert list(proc.lines(idle_timeout=10)) == ["done"]
    assert proc.wait(5) == 0
    proc.cancel()  # a late Stop: nothing left to end, nothing closed twice
    assert "TerminateJobObject" not in kernel.names()
    assert kernel.calls.count(("CloseHandle", JOB)) == 1


@pytest.mark.skipif(WINDOWS, reason="the stand-in replaces the real job")
def test_refused_job_falls_back_to_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKernel32("AssignProcessToJobObject")
    monkeypatch.setattr(process, "_new_job", lambda: _job(fake))
    proc = ManagedProcess([PY, "-c", "import time; print('up', flush=True); time.sleep(30)"])
    proc.start()
    assert proc.job_failure is not None and "AssignProcessToJobObject" in proc.job_failure
    assert next(proc.lines(idle_timeout=10)) == "up"
    proc.cancel()
    assert proc.wait(2) != 0
    assert "TerminateJobObject" not in fake.names()
    assert fake.calls.count(("CloseHandle", JOB)) == 1


@pytest.mark.skipif(WINDOWS, reason="the stand-in replaces the real job")
def test_job_is_closed_when_the_child_cannot_start(kernel: FakeKernel32) -> None:
    proc = ManagedProcess([os.path.join(os.sep, "no", "such", "engine")])
    with pytest.raises(FileNotFoundError):
        proc.start()
    assert kernel.names() == ["CreateJobObjectW", "SetInformationJobObject", "CloseHandle"]


# -- on Windows itself --------------------------------------------------------------------------

# A child that starts a grandchild a moment after it starts itself (so after the job has been
# assigned: the grandchild is not in any snapshot of the tree taken at start) and prints its pid.
LATE_GRANDCHILD = (
    "import subprocess, sys, time\n"
    "time.sleep(0.5)\n"
    "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(g.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not WINDOWS, reason="Windows job objects")
def test_windows_cancel_ends_a_grandchild_started_late() -> None:
    proc = ManagedProcess([PY, "-c", LATE_GRANDCHILD])
    proc.start()
    assert proc.job_failure is None
    grandchild = int(next(proc.lines(idle_timeout=10)))
    proc.cancel()
    proc.wait(2)
    assert _gone(grandchild)


@pytest.mark.skipif(not WINDOWS, reason="Windows job objects")
def test_windows_killed_linklab_takes_its_engines_with_it() -> None:
    """A parent killed outright (Task Manager's End task) runs no cleanup: the job's
    kill-on-close is all that ends its child and grandchild."""
    parent_code = (
        "import sys\n"
        "from app.engine.process.process import ManagedProcess\n"
        f"proc = ManagedProcess([sys.executable, '-c', {LATE_GRANDCHILD!r}])\n"
        "proc.start()\n"
        "assert proc.job_failure is None, proc.job_failure\n"
        "print(proc.pid, flush=True)\n"
        "print(next(proc.lines(idle_timeout=10)), flush=True)\n"
        "sys.stdin.read()\n"
    )
    with subprocess.Popen(
        [PY, "-c", parent_code],
        cwd=ROOT_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        grandchild = int(parent.stdout.readline())
        assert psutil.pid_exists(grandchild)
        parent.kill()  # TerminateProcess: no atexit, no cancel_all
        parent.wait(5)
    assert _gone(child)
    assert _gone(grandchild)
