"""A Windows job object that holds one engine's process tree and ends it, even if LinkLab dies."""

from __future__ import annotations

import ctypes
import functools
import sys
import threading
from collections.abc import Callable
from typing import Protocol, cast

#: SetInformationJobObject's information class for JOBOBJECT_EXTENDED_LIMIT_INFORMATION.
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9
#: Closing the last handle to the job ends every process in it: LinkLab's own death included.
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
PROCESS_TERMINATE = 0x0001
PROCESS_SET_QUOTA = 0x0100
#: The exit code TerminateJobObject gives each process, as subprocess terminate() does on Windows.
TERMINATED_EXIT_CODE = 1

# ctypes rather than pywin32: six kernel32 functions do not justify another dependency in the
# bundle, and psutil has no job objects.
# Fixed-width ctypes types, not ctypes.wintypes: wintypes imports on Linux but sizes DWORD as a
# C long (8 bytes there), so only these give the Windows layout on every platform.
_DWORD = ctypes.c_uint32
_BOOL = ctypes.c_int32
_HANDLE = ctypes.c_void_p
_LARGE_INTEGER = ctypes.c_int64  # a union whose widest member is LONGLONG QuadPart
_SIZE_T = ctypes.c_size_t  # also ULONG_PTR: pointer-sized on Windows as elsewhere


# The Windows SDK's names, so that the layout can be checked against winnt.h line by line.
class IO_COUNTERS(ctypes.Structure):
    _fields_ = [
        ("ReadOperationCount", ctypes.c_uint64),
        ("WriteOperationCount", ctypes.c_uint64),
        ("OtherOperationCount", ctypes.c_uint64),
        ("ReadTransferCount", ctypes.c_uint64),
        ("WriteTransferCount", ctypes.c_uint64),
        ("OtherTransferCount", ctypes.c_uint64),
    ]


class JOBOBJECT_BASIC_LIMIT_INFORMATION(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", _LARGE_INTEGER),
        ("PerJobUserTimeLimit", _LARGE_INTEGER),
        ("LimitFlags", _DWORD),
        ("MinimumWorkingSetSize", _SIZE_T),
        ("MaximumWorkingSetSize", _SIZE_T),
        ("ActiveProcessLimit", _DWORD),
        ("Affinity", _SIZE_T),
        ("PriorityClass", _DWORD),
        ("SchedulingClass", _DWORD),
    ]


class JOBOBJECT_EXTENDED_LIMIT_INFORMATION(ctypes.Structure):
    """144 bytes on 64-bit Windows, 112 on 32-bit (winnt.h)."""

    _fields_ = [
        ("BasicLimitInformation", JOBOBJECT_BASIC_LIMIT_INFORMATION),
        ("IoInfo", IO_COUNTERS),
        ("ProcessMemoryLimit", _SIZE_T),
        ("JobMemoryLimit", _SIZE_T),
        ("PeakProcessMemoryUsed", _SIZE_T),
        ("PeakJobMemoryUsed", _SIZE_T),
    ]


class Kernel32(Protocol):
    """The kernel32 functions a job object uses: the real DLL, or a unit test's stand-in.

    Handles are ints (None for a NULL handle), BOOL results are ints, as ctypes returns them.
    """

    def CreateJobObjectW(self, attributes: None, name: None, /) -> int | None: ...

    def SetInformationJobObject(
        self,
        job: int,
        info_class: int,
        info: ctypes._Pointer[JOBOBJECT_EXTENDED_LIMIT_INFORMATION],
        length: int,
        /,
    ) -> int: ...

    def OpenProcess(self, access: int, inherit: bool, pid: int, /) -> int | None: ...

    def AssignProcessToJobObject(self, job: int, process: int, /) -> int: ...

    def TerminateJobObject(self, job: int, exit_code: int, /) -> int: ...

    def CloseHandle(self, handle: int, /) -> int: ...


@functools.cache
def _windows_kernel32() -> tuple[Kernel32, Callable[[], int]] | None:
    """kernel32 with every function's argument and result types declared; None off Windows."""
    if sys.platform != "win32":
        return None
    dll = ctypes.WinDLL("kernel32", use_last_error=True)
    signatures: dict[str, tuple[list[type[ctypes._CData]], type[ctypes._CData]]] = {
        "CreateJobObjectW": ([ctypes.c_void_p, ctypes.c_wchar_p], _HANDLE),
        "SetInformationJobObject": (
            [_HANDLE, ctypes.c_int, ctypes.POINTER(JOBOBJECT_EXTENDED_LIMIT_INFORMATION), _DWORD],
            _BOOL,
        ),
        "OpenProcess": ([_DWORD, _BOOL, _DWORD], _HANDLE),
        "AssignProcessToJobObject": ([_HANDLE, _HANDLE], _BOOL),
        "TerminateJobObject": ([_HANDLE, ctypes.c_uint], _BOOL),
        "CloseHandle": ([_HANDLE], _BOOL),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(dll, name)
        function.argtypes = argtypes
        function.restype = restype
    return cast(Kernel32, dll), ctypes.get_last_error


class JobObject:
    """A job whose processes all end when it is terminated or its handle is closed.

    Nothing here raises: when Windows refuses a step, `failure` says so in a sentence and the
    caller ends the tree the other way (psutil). Safe to use from several threads.
    """

    def __init__(
        self, kernel32: Kernel32 | None = None, last_error: Callable[[], int] | None = None
    ) -> None:
        self.failure: str | None = None
        self.assigned = False
        self._lock = threading.Lock()
        self._handle: int | None = None
        if kernel32 is None:
            loaded = _windows_kernel32()
            if loaded is None:
                self.failure = "Job objects exist only on Windows."
                return
            kernel32, last_error = loaded
        self._kernel32 = kernel32
        self._last_error = last_error or (lambda: 0)
        self._handle = self._create()

    def _create(self) -> int | None:
        handle = self._kernel32.CreateJobObjectW(None, None)
        if not handle:
            self._fail("CreateJobObjectW")
            return None
        info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION()
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        if not self._kernel32.SetInformationJobObject(
            handle,
            JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS,
            ctypes.pointer(info),
            ctypes.sizeof(info),
        ):
            # A job without kill-on-close would let engines outlive a killed LinkLab: drop it.
            self._fail("SetInformationJobObject")
            self._kernel32.CloseHandle(handle)
            return None
        return handle

    @property
    def is_open(self) -> bool:
        return self._handle is not None

    def assign(self, pid: int, process_handle: int | None = None) -> bool:
        """Put a process (by its handle, else opened by pid) in the job; False if that failed.

        Its children started from now on join the job too. Windows can refuse, for example when
        LinkLab itself runs in a job that allows neither nesting nor breakaway: the caller then
        falls back to the process tree.
        """
        with self._lock:
            if self._handle is None:
                return False
            opened = None
            if process_handle is None:
                opened = self._kernel32.OpenProcess(
                    PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, pid
                )
                if not opened:
                    self._fail("OpenProcess")
                    return False
                process_handle = opened
            ok = self._kernel32.AssignProcessToJobObject(self._handle, process_handle)
            if not ok:
                self._fail("AssignProcessToJobObject")  # before CloseHandle resets the error
            if opened:
                self._kernel32.CloseHandle(opened)
            self.assigned = bool(ok)
            return self.assigned

    def terminate(self) -> bool:
        """End every process in the job at once; False if the job is closed or Windows refused."""
        with self._lock:
            if self._handle is None or not self.assigned:
                return False
            if not self._kernel32.TerminateJobObject(self._handle, TERMINATED_EXIT_CODE):
                self._fail("TerminateJobObject")
                return False
            return True

    def close(self) -> None:
        """Close the handle (once); kill-on-close ends whatever is still in the job."""
        with self._lock:
            handle, self._handle = self._handle, None
            if handle is not None:
                self._kernel32.CloseHandle(handle)

    def _fail(self, function: str) -> None:
        if self.failure is None:
            self.failure = (
                f"Windows refused {function} (error {self._last_error()}), so the engine is "
                "not in a job object; Stop ends it through its process tree instead."
            )
