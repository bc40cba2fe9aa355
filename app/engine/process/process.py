"""The only place that starts a child process: engines and servers (start, read lines, cancel
the whole tree, reap) and short commands run to their end (probes, queries, firewall rules)."""

from __future__ import annotations

import atexit
import collections
import contextlib
import io
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any

from app.engine.process.lines import LineSplitter, cut_text
from app.engine.process.tree import ProcessTree, group_lives_on
from app.engine.process.watchdog import GRACE_S as WATCHDOG_GRACE_S
from app.engine.process.watchdog import WATCHDOG_FLAG, start_time
from app.engine.process.winjob import JobObject

#: A memory bound, not a format limit: iperf3 3.21 with -P 128 --bidir prints --json-stream
#: lines of ~100 KB, and more streams print longer ones. A line longer than this is cut.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: stderr is kept for error messages: its last lines, this many characters in all, each cut
STDERR_LIMIT = 256 * 1024
STDERR_LINE_BYTES = 4 * 1024  # at this (an engine's own error line is far shorter)
GRACE_S = 0.4  # after SIGTERM, how long the tree gets to exit before SIGKILL
#: Once the child is reaped and its whole tree has ended, every end of its pipes is closed and
#: its readers have only what is left in the pipes to take: wait() waits for them however long a
#: busy computer takes to run them (an engine that wrote a pipe's worth of stderr just before it
#: exited takes seconds), bounded only against a pipe a process outside the tree still holds.
READERS_BOUND_S = 60.0
#: A descendant that outlives the child (in its group) may hold the pipes open for good: then
#: wait() keeps what the readers took within this time.
OUTLIVED_READERS_S = 1.0
READ_BYTES = 64 * 1024  # what one read of a pipe takes at most (it returns what is there)

_IS_WINDOWS = sys.platform == "win32"
_EOF = object()

_live: set[ManagedProcess] = set()
_live_lock = threading.Lock()


class IdleTimeout(Exception):
    """No line arrived within the allowed time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no output for {seconds:.1f} s")
        self.seconds = seconds


def creation_options() -> dict[str, Any]:
    """Popen keyword arguments that put the child in its own group, so that Stop ends the tree."""
    if _IS_WINDOWS:
        flags = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200) | getattr(
            subprocess, "CREATE_NO_WINDOW", 0x08000000
        )
        return {"creationflags": flags}
    return {"start_new_session": True}


#: Written beside bundled engines (resources/engines/<os>-<arch>/) by the installer build; its
#: presence marks a folder whose lib/ sub-folder holds the engines' own shared libraries.
ENGINE_MANIFEST = "linklab-engines.json"


def child_environment(
    executable: str,
    extra: Mapping[str, str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    frozen: bool | None = None,
) -> dict[str, str]:
    """The environment a child process starts with.

    A frozen (PyInstaller) LinkLab on Linux runs with the bundle's library folder prepended to
    LD_LIBRARY_PATH; an engine from the system must not see it, so the user's own value
    (kept in LD_LIBRARY_PATH_ORIG) is restored. A bundled engine finds its libraries in the
    lib/ folder beside it.
    """
    env = dict(os.environ if environ is None else environ)
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    if frozen and "LD_LIBRARY_PATH_ORIG" in env:
        env["LD_LIBRARY_PATH"] = env.pop("LD_LIBRARY_PATH_ORIG")
    elif frozen:
        env.pop("LD_LIBRARY_PATH", None)
    folder = os.path.dirname(executable)
    libs = os.path.join(folder, "lib")
    if (
        not _IS_WINDOWS
        and folder
        and os.path.isfile(os.path.join(folder, ENGINE_MANIFEST))
        and os.path.isdir(libs)
    ):
        current = env.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = f"{libs}{os.pathsep}{current}" if current else libs
    if not env.get("LD_LIBRARY_PATH", True):
        del env["LD_LIBRARY_PATH"]
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True)
class Finished:
    """A short command's outcome: exit status and its output as bytes."""

    returncode: int
    stdout: bytes
    stderr: bytes


def run_short(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> Finished:
    """A short command (a probe, a query, a firewall rule) run to its end: argv list, no
    shell, no window, no stdin, the same environment rules as the engines, ended when it
    overstays. OSError when it cannot start; subprocess.TimeoutExpired when it overstays."""
    if isinstance(argv, str | bytes) or not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a non-empty list of strings, never a command line")
    done = subprocess.run(
        list(argv),
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=child_environment(argv[0], env) if env is None else dict(env),
        check=False,
        **creation_options(),
    )
    return Finished(done.returncode, done.stdout, done.stderr)


class Watchdog:
    """LinkLab's handle on its engines' watchdog process (app/engine/process/watchdog.py):
    started on first use, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._popen: subprocess.Popen[bytes] | None = None
        self._pipe: IO[bytes] | None = None
        self.failure: str | None = None  # why there is no watchdog (engines still stop on Stop)

    def argv(self) -> list[str]:
        if getattr(sys, "frozen", False):
            return [sys.executable, WATCHDOG_FLAG]
        return [sys.executable, "-m", "app.engine.process.watchdog"]

    def _ensure(self) -> IO[bytes] | None:
        if self._pipe is not None and self._popen is not None and self._popen.poll() is None:
            return self._pipe
        if self.failure is not None:
            return None
        root = Path(__file__).resolve().parents[2]  # the folder that holds the app package
        try:
            self._popen = subprocess.Popen(
                [*self.argv(), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=None if getattr(sys, "frozen", False) else root,
                close_fds=True,
                start_new_session=True,  # no terminal's Ctrl+C or hang-up reaches it
            )
        except OSError as err:
            self.failure = f"the engines' watchdog could not start ({err})"
            return None
        self._pipe = self._popen.stdin
        return self._pipe

    def _send(self, line: str) -> None:
        with self._lock:
            pipe = self._ensure()
            if pipe is None:
                return
            try:
                pipe.write(line.encode("ascii") + b"\n")
                pipe.flush()
            except (OSError, ValueError):
                self._pipe = None  # gone: the next message starts a new one

    def watch(self, pgid: int) -> None:
        """A process group to end if LinkLab dies (its leader's pid)."""
        started = start_time(pgid)
        if started is not None:
            self._send(f"watch {pgid} {started!r}")

    def forget(self, pgid: int) -> None:
        with self._lock:
            if self._pipe is None:
                return
        self._send(f"forget {pgid}")

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen is not None else None

    def close(self) -> None:
        """LinkLab ends normally: the watchdog ends whatever is left, as it would on a crash."""
        with self._lock:
            pipe, popen = self._pipe, self._popen
            self._pipe = None
            if pipe is not None:
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()
            if popen is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    popen.wait(timeout=2 + WATCHDOG_GRACE_S)


#: POSIX: ends every engine's group when LinkLab dies (Windows: each engine's job object).
WATCHDOG = Watchdog()


def _new_job() -> JobObject | None:
    """Windows: a job object (kill on close) to hold the child's tree; elsewhere None, since the
    process group does that work."""
    return JobObject() if _IS_WINDOWS else None


def _buffered(stream: IO[bytes]) -> io.BufferedReader:
    """A child's pipe as Popen opens it (buffered): read1 returns what has arrived, so that
    a line is passed on as soon as its end arrives, whatever ends it."""
    assert isinstance(stream, io.BufferedReader)
    return stream


class ManagedProcess:
    """A child process whose stdout is read line by line and whose whole tree can be cancelled.

    Output is read by a daemon thread into a queue, so that the consumer can wait with a
    timeout on any platform (select() does not work on Windows pipes). stderr is drained by a
    second thread and kept, capped, for error messages.

    On Windows the child is put in a job object right after it starts, so that Stop ends every
    process in it at once and a killed LinkLab takes its engines with it; the psutil tree is
    the fallback for anything that started before (or stayed out of) the job.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
        stderr_limit: int = STDERR_LIMIT,
    ) -> None:
        if isinstance(argv, str | bytes) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a non-empty list of strings, never a command line")
        self.argv: tuple[str, ...] = tuple(argv)
        self._env = dict(env) if env is not None else None
        self._max_line = max_line_bytes
        self._stderr_limit = stderr_limit
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._stderr_lock = threading.Lock()
        self._cancelled = threading.Event()
        self._popen: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._job: JobObject | None = None
        self._ended_at: float | None = None  # time.monotonic() when first seen ended

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        env = child_environment(self.argv[0], self._env)
        job = _new_job()
        try:
            self._popen = subprocess.Popen(
                list(self.argv),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                close_fds=True,
                **creation_options(),
            )
        except BaseException:
            if job is not None:
                job.close()
            raise
        if job is not None:
            # Popen keeps the process handle from CreateProcess: no pid that could be reused.
            handle = getattr(self._popen, "_handle", None)
            job.assign(self._popen.pid, handle if isinstance(handle, int) else None)
            self._job = job
        else:
            WATCHDOG.watch(self._popen.pid)  # its own group (start_new_session): pgid == pid
        with _live_lock:
            _live.add(self)
        out = threading.Thread(target=self._read_stdout, name=f"out-{self.pid}", daemon=True)
        err = threading.Thread(target=self._read_stderr, name=f"err-{self.pid}", daemon=True)
        self._threads = [out, err]
        out.start()
        err.start()

    @property
    def pid(self) -> int:
        return self._popen.pid if self._popen is not None else -1

    @property
    def job_failure(self) -> str | None:
        """Why the child is not in a Windows job object (Stop then uses its psutil tree)."""
        return self._job.failure if self._job is not None else None

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def returncode(self) -> int | None:
        if self._popen is None:
            return None
        code = self._popen.poll()
        if code is not None:
            self._seen_ended()
        return code

    @property
    def ended_at(self) -> float | None:
        """When (time.monotonic()) LinkLab first saw the process ended, reaped by wait() or
        cancel(); None before it starts and while it runs."""
        return self._ended_at

    def _seen_ended(self) -> None:
        if self._ended_at is None:
            self._ended_at = time.monotonic()

    def _read_stdout(self) -> None:
        assert self._popen is not None and self._popen.stdout is not None
        stream = _buffered(self._popen.stdout)
        lines = LineSplitter(self._max_line)  # an over-long line is cut, the rest skipped
        try:
            while chunk := stream.read1(READ_BYTES):
                for line, _length in lines.feed(chunk):
                    self._lines.put(line.decode("utf-8", "replace"))
            for line, _length in lines.close():
                self._lines.put(line.decode("utf-8", "replace"))
        except (OSError, ValueError):
            pass  # pipe closed under us by cancel(): the EOF below ends the consumer
        finally:
            stream.close()
            self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        assert self._popen is not None and self._popen.stderr is not None
        stream = _buffered(self._popen.stderr)
        lines = LineSplitter(min(STDERR_LINE_BYTES, self._stderr_limit))
        try:
            while chunk := stream.read1(READ_BYTES):
                for line, length in lines.feed(chunk):
                    self._keep_stderr(cut_text(line, length))
            for line, length in lines.close():
                self._keep_stderr(cut_text(line, length))
        except (OSError, ValueError):
            pass
        finally:
            stream.close()

    def _keep_stderr(self, text: str) -> None:
        with self._stderr_lock:  # the newest lines stay; the oldest go once the cap is reached
            self._stderr.append(text)
            self._stderr_size += len(text) + 1  # its end too: empty lines are no free memory
            while self._stderr_size > self._stderr_limit and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft()) + 1

    def lines(self, idle_timeout: float | None = None) -> Iterator[str]:
        """Yield stdout lines as they arrive; raise IdleTimeout when none comes in time."""
        while True:
            try:
                item = self._lines.get(timeout=idle_timeout)
            except queue.Empty:
                if self.cancelled:
                    return
                raise IdleTimeout(idle_timeout or 0.0) from None
            if item is _EOF:
                return
            assert isinstance(item, str)
            yield item

    def stderr_lines(self) -> list[str]:
        """stderr so far (its last lines within the cap); complete once wait() has returned."""
        with self._stderr_lock:
            return list(self._stderr)

    def wait(self, timeout: float | None = None) -> int:
        """Reap the process and let the readers take what is left in its pipes (so that
        stderr_lines() is complete); cancel it if it overstays."""
        assert self._popen is not None
        try:
            code = self._popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cancel()
            code = self._popen.wait()
        self._seen_ended()
        if self._job is not None:
            self._job.close()  # kill on close: ends whatever the engine left running
        ended = self._job is not None if _IS_WINDOWS else not group_lives_on(self._popen.pid)
        for thread in self._threads:
            thread.join(timeout=READERS_BOUND_S if ended else OUTLIVED_READERS_S)
        self._release()
        return code

    def _release(self) -> None:
        """Reaped or ended: no longer LinkLab's to end."""
        with _live_lock:
            known = self in _live
            _live.discard(self)
        if known and self._job is None and self._popen is not None:
            WATCHDOG.forget(self._popen.pid)

    def cancel(self) -> None:
        """End the whole process tree; safe from any thread, returns within about a second."""
        self._cancelled.set()
        popen = self._popen
        if popen is not None and popen.poll() is None:
            tree = ProcessTree(popen.pid)
            if self._job is not None:
                self._job.terminate()
            tree.terminate()
            try:
                popen.wait(timeout=GRACE_S)
            except subprocess.TimeoutExpired:
                pass
            tree.kill()
            try:
                popen.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        if popen is not None and popen.poll() is not None:
            self._seen_ended()
        if self._job is not None:
            self._job.close()
        self._lines.put(_EOF)
        self._release()


def live_pids() -> list[int]:
    with _live_lock:
        return [p.pid for p in _live]


def cancel_all() -> None:
    """End every engine process this program started and has not reaped, then let the
    watchdog go (it has nothing left to guard)."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        proc.cancel()
    WATCHDOG.close()


atexit.register(cancel_all)


def install_exit_handlers() -> None:
    """Turn SIGTERM/SIGHUP into a normal exit so that atexit ends the engines (main thread)."""

    def _exit(signum: int, _frame: FrameType | None) -> None:
        cancel_all()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _exit)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _exit)
