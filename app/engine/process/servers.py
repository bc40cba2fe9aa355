"""Local engine servers as managed children: start, wait until ready, log, stop (each driver
builds its server's argv: EngineDriver.servers)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from app.engine.errors import EngineError
from app.engine.process.process import IdleTimeout, ManagedProcess
from app.engine.process.server_records import forget_server, record_server
from app.engine.process.stall import LOOK_EVERY_S, STALL_S, Look, Progress, StallRule, look
from app.engine.process.tools import Tool

LogCallback = Callable[[str], None]
READY_TIMEOUT_S = 5.0
#: What a server others can reach (linklab serve, the window's Server tab) allows by default:
#: a test of at most an hour, and a server stuck idle restarted after five minutes.
EXPOSED_MAX_DURATION_S = 3600
EXPOSED_IDLE_TIMEOUT_S = 300
#: ... and a server held by a client that makes no progress restarted after this long (an
#: engine whose server serves one client at a time: app.engine.process.stall).
EXPOSED_STALL_TIMEOUT_S = STALL_S
#: A server that crashes (iperf 2.1.8's now and then dies of a segmentation fault) is started
#: again, at most this many times within RESTART_WINDOW_S: more is a server that cannot run.
RESTARTS = 3
RESTART_WINDOW_S = 60.0


class ServerStartFailed(EngineError):
    pass


@dataclass(frozen=True)
class ServerOptions:
    port: int
    bind_address: str | None = None
    idle_timeout_s: int | None = None  # iperf3 --idle-timeout: restart a stuck server
    one_off: bool = False  # iperf3 -1: serve one test, then exit
    max_duration_s: int | None = None  # iperf3 --server-max-duration: the longest test served
    #: iperf3 -i: the interval of the server's own reports, which a client's
    #: --get-server-output receives (the server's default is 1 s, whatever the client asks)
    interval_s: float | None = None
    #: How long a client may hold the server without progress before LinkLab restarts it
    #: (app.engine.process.stall), where the engine's server can be held so; None: never.
    stall_timeout_s: float | None = None


def exposed(port: int, bind: str | None = None, *, one_off: bool = False) -> ServerOptions:
    """A server others can reach, with the default limits (no idle restart for a one-off
    server: it would end it)."""
    idle = None if one_off else EXPOSED_IDLE_TIMEOUT_S
    return ServerOptions(
        port, bind, idle, one_off, EXPOSED_MAX_DURATION_S, stall_timeout_s=EXPOSED_STALL_TIMEOUT_S
    )


@dataclass(frozen=True)
class ServerRestarted:
    """LinkLab restarted a server that a client held without progress: when (the steady
    clock's time.monotonic()) and the sentence its log got."""

    at: float
    sentence: str


class LocalServer:
    """One engine server process owned by LinkLab."""

    def __init__(
        self,
        tool: Tool,
        argv: list[str],
        port: int,
        on_log: LogCallback | None,
        notes: tuple[str, ...] = (),
        label: str = "",
        port_taken: tuple[str, ...] = (),
        stall: StallRule | None = None,
    ):
        self.tool = tool
        self.label = label or tool.name
        self.notes = notes  # what the user should know: limits this engine cannot apply
        #: What the engine says, beyond the system's words, when its port is taken.
        self.port_taken = port_taken
        self.argv = argv
        self.port = port
        self._on_log = on_log
        self._process: ManagedProcess | None = None
        self._reader: threading.Thread | None = None
        self._record: Path | None = None
        self._restarts: list[float] = []  # when the server was started again after a crash
        self._up = False  # it has listened: a later failure is a crash, not a bad start
        self.log: list[str] = []
        #: Watched for a client that holds it without progress (None: not watched).
        self.stall = stall
        #: Each restart of a server held so, in order.
        self.restarts: list[ServerRestarted] = []
        self._lock = threading.Lock()
        self._closed = False  # stop() was called: nothing starts it again by itself
        self._replacing = False  # a held server is being started again: it still counts as running
        self._watcher: threading.Thread | None = None
        self._watch_ended = threading.Event()
        self._progress: Progress | None = None

    @property
    def name(self) -> str:
        """The server as a sentence names it (its driver's server_label)."""
        return self.label

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """Serving, or crashed and about to be started again."""
        process = self._process
        if process is None:
            return self._replacing
        code = process.returncode
        return code is None or (code != 0 and self._up and self._may_restart())

    def _may_restart(self) -> bool:
        recent = [t for t in self._restarts if time.monotonic() - t < RESTART_WINDOW_S]
        return len(recent) < RESTARTS

    def start(self, ready_timeout_s: float = READY_TIMEOUT_S) -> None:
        if self.running:
            return
        self._closed = False
        process = self._spawn()
        deadline = time.monotonic() + ready_timeout_s
        while time.monotonic() < deadline:
            if process.returncode is not None:
                process.wait(timeout=1)
                forget_server(self._record)
                self._record = None
                raise ServerStartFailed(self._start_failure(process))
            if _listening(process.pid, self.port):
                self._up = True
                return
            time.sleep(0.05)
        self.stop()
        raise ServerStartFailed(
            f"The {self.name} did not start listening on port {self.port} within "
            f"{ready_timeout_s:.0f} s: check that the port is free, or choose another one."
        )

    def _spawn(self) -> ManagedProcess:
        process = ManagedProcess(self.argv)
        process.start()
        self._process = process
        self._record = record_server(process.pid, process.argv)
        self._reader = threading.Thread(
            target=self._read, args=(process,), name=f"{self.tool.name}-log", daemon=True
        )
        self._reader.start()
        if self.stall is not None:
            self._watch_ended = threading.Event()
            self._progress = Progress(self.stall.after_s)
            self._watcher = threading.Thread(
                target=self._watch,
                args=(process, self._progress, self._watch_ended),
                name=f"{self.tool.name}-stall",
                daemon=True,
            )
            self._watcher.start()
        return process

    def _start_failure(self, process: ManagedProcess) -> str:
        words = " ".join(process.stderr_lines() + self.log[-3:]).strip()
        lowered = words.lower()
        # iperf3: "unable to start listener for connections: Address already in use"; an
        # engine that says it otherwise tells its server (port_taken).
        taken = ("address already in use", "unable to start listener", *self.port_taken)
        if any(words in lowered for words in taken):
            holder = port_holder(self.port)
            by = f" by {holder}" if holder else ""
            return (
                f"Port {self.port} is already in use{by}, so the {self.name} could not start: "
                f"stop {'it' if holder else 'whatever uses it'}, or choose another port."
            )
        if "permission denied" in lowered:
            return f"The {self.name} may not listen on port {self.port}: choose a port above 1023."
        detail = f" ({words})" if words else ""
        return f"The {self.name} stopped as soon as it started{detail}: check its settings."

    def _read(self, process: ManagedProcess) -> None:
        try:
            for line in process.lines(idle_timeout=None):
                if (progress := self._progress) is not None and self._process is process:
                    progress.printed(time.monotonic())
                text = line.strip()
                if not text or set(text) <= {"-", " "}:
                    continue
                self._say(text)
        except IdleTimeout:
            return
        self._after_exit(process)

    def _say(self, text: str) -> None:
        self.log.append(text)
        if len(self.log) > 2000:
            del self.log[:1000]
        if self._on_log is not None:
            self._on_log(text)

    def _after_exit(self, process: ManagedProcess) -> None:
        """A server that ended on its own with a failure (a crash) is started again, within
        the restart budget; one LinkLab stopped, or that ended well (a one-off), is not."""
        deadline = time.monotonic() + 5
        while process.returncode is None:
            if time.monotonic() > deadline:
                return  # its output closed, yet it runs: not a crash
            time.sleep(0.05)
        code = process.wait(timeout=1)
        if self._process is not process or not self._up or code == 0:
            return
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        if not self._may_restart():
            self._say(
                f"The {self.name} on port {self.port} stopped unexpectedly again ({how}), "
                f"{RESTARTS} times within {RESTART_WINDOW_S:.0f} s: LinkLab left it stopped. "
                f"Read its log above, then start it again."
            )
            return
        self._restarts.append(time.monotonic())
        forget_server(self._record)
        self._record = None
        self._say(
            f"The {self.name} on port {self.port} stopped unexpectedly ({how}): "
            f"LinkLab started it again."
        )
        try:
            self._spawn()
        except OSError as err:
            self._say(f"The {self.name} could not be started again ({err}): start it again.")

    # -- a server held without progress -----------------------------------------------------
    def _watch(self, process: ManagedProcess, progress: Progress, ended: threading.Event) -> None:
        """Look at the server once a second; one held without progress is started again."""
        while not ended.wait(LOOK_EVERY_S):
            if self._process is not process or process.returncode is not None:
                return
            seen = look(process.pid, self.port)
            if seen is None:
                continue
            held = progress.seen(seen, time.monotonic())
            if held is not None:
                self._replace_held(process, seen, held)
                return

    def _replace_held(self, process: ManagedProcess, seen: Look, held: float) -> None:
        """End the held server and start it again on its port; its log says why once it
        listens again. The restart is kept first: a test that waited behind the held client
        fails as the server ends, and its study asks why (restarts)."""
        with self._lock:
            if self._closed or self._process is not process:
                return
            self._replacing = True
            self._process = None
        try:
            who = " and ".join(seen.clients)
            why = f" {self.stall.why}" if self.stall is not None and self.stall.why else ""
            sentence = (
                f"The {self.name} on port {self.port} was held for {held:.0f} s by a client "
                f"({who}) that made no progress, and served no one else meanwhile: LinkLab "
                f"started it again.{why}"
            )
            self.restarts.append(ServerRestarted(time.monotonic(), sentence))
            process.cancel()
            process.wait(timeout=2)
            forget_server(self._record)
            self._record = None
            with self._lock:
                if self._closed:
                    return
                try:
                    new = self._spawn()
                except OSError as err:
                    self._say(f"The {self.name} could not be started again ({err}): start it.")
                    return
            deadline = time.monotonic() + READY_TIMEOUT_S
            while time.monotonic() < deadline and new.returncode is None:
                if _listening(new.pid, self.port):
                    self._say(sentence)
                    return
                time.sleep(0.05)
            self._say(
                f"The {self.name} on port {self.port} was held by a client ({who}) that made no "
                f"progress, and once ended did not listen again: read its log above, then start "
                f"it again."
            )
        finally:
            self._replacing = False

    def stop(self) -> None:
        with self._lock:
            self._closed = True
            process, self._process = self._process, None
        self._up = False
        self._watch_ended.set()
        if process is not None:
            process.cancel()
            process.wait(timeout=2)
        forget_server(self._record)
        self._record = None
        for thread in (self._reader, self._watcher):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=1)


def start_all(servers: list[LocalServer]) -> list[LocalServer]:
    """Start every server in turn, or none: when one fails, those already started are stopped
    before its error goes on."""
    started: list[LocalServer] = []
    try:
        for server in servers:
            server.start()
            started.append(server)
    except BaseException:
        for server in started:
            server.stop()
        raise
    return started


def port_holder(port: int, kind: str = "tcp") -> str | None:
    """The program holding a port, as "iperf3 (pid 1234)": a TCP listener (kind "tcp") or a
    bound UDP socket (kind "udp"); None when unknown (none, or one the system will not name to
    this user)."""
    try:
        connections = psutil.net_connections(kind=kind)
    except psutil.Error:
        return None
    for conn in connections:
        if not conn.laddr or conn.laddr.port != port:
            continue
        if kind == "tcp" and conn.status != psutil.CONN_LISTEN:
            continue
        if conn.pid is None:
            return None
        try:
            return f"{psutil.Process(conn.pid).name()} (pid {conn.pid})"
        except psutil.Error:
            return f"pid {conn.pid}"
    return None


def _listening(pid: int, port: int) -> bool:
    """True once the process (or a child of it) listens on the port."""
    try:
        procs = [psutil.Process(pid)]
        procs += procs[0].children(recursive=True)
        for proc in procs:
            for conn in proc.net_connections(kind="inet"):
                if (
                    conn.laddr
                    and conn.laddr.port == port
                    and (conn.status == psutil.CONN_LISTEN or conn.type == socket.SOCK_DGRAM)
                ):
                    return True
    except psutil.Error:
        return False
    return sys.platform == "win32" and _ownerless_listener(port)


def _ownerless_listener(port: int) -> bool:
    """A socket listening on the port whose owner the system does not name (pid 0: Wine names
    none, so a Windows LinkLab under Wine would never see its own servers listen)."""
    try:
        connections = psutil.net_connections(kind="inet")
    except psutil.Error:
        return False
    return any(
        conn.laddr
        and conn.laddr.port == port
        and not conn.pid
        and (conn.status == psutil.CONN_LISTEN or conn.type == socket.SOCK_DGRAM)
        for conn in connections
    )


def firewall_note(servers: list[LocalServer]) -> str | None:
    """On Windows, what its firewall asks the first time a server listens, and what to say."""
    if sys.platform != "win32" or not servers:
        return None
    programs = ", ".join(dict.fromkeys(Path(server.tool.path).name for server in servers))
    return (
        f"Windows Firewall may ask whether {programs} may accept connections: allow it on the "
        f"networks the other computer is on (Private networks), or its tests will be refused "
        f"or time out. If you said no before, allow {programs} in Windows Security > Firewall & "
        f"network protection > Allow an app through firewall."
    )
