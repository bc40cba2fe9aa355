"""The class collector as a server: waitress (an established WSGI server) serving
app.study.lab.collector_app on the lab network, started by `linklab class-server` or the Class
tab's Collect live switch and stopped cleanly from any thread; the class token and the
instructor token kept in files of their own; the collector's address written into the exercise
that students open."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import stat
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from waitress import wasyncore

from app.domain.collector import Collector as CollectorAddress
from app.domain.collector import check_token
from app.domain.errors import BadOption, LinkLabError
from app.engine.lan import netinfo
from app.store.class_store import ClassStore
from app.study.lab.collector_app import CollectorApp
from app.study.lab.collector_gate import Limits
from app.study.lab.exercises import read_exercise, write_exercise
from app.study.lab.guarded_server import Bounds, guarded_server

__all__ = [
    "DEFAULT_PORT",
    "INSTRUCTOR_TOKEN_FILE",
    "Collector",
    "instructor_token_file",
    "parse_listen",
    "read_token_file",
    "station_url",
    "token_file_warning",
    "write_into_exercise",
]

DEFAULT_PORT = 8765
#: Listening on every address is the point: the stations are other computers of the lab.
EVERY_ADDRESS = "0.0.0.0"  # noqa: S104
#: Waitress's workers: enough for a lab's stations pushing at once (each push is a short
#: transaction), few enough that their buffers keep the collector's memory small.
THREADS = 8
CONNECTIONS = 256
#: The instructor token's file, beside the class token's unless named: it registers the class's
#: servers and reads the whole class, so it is never written into an exercise.
INSTRUCTOR_TOKEN_FILE = "instructor.token"  # noqa: S105 (a file's name)


class CollectorStartFailed(LinkLabError):
    pass


def parse_listen(text: str) -> tuple[str, int]:
    """ADDR:PORT ([v6]:PORT, or a bare port on every address) as (host, port)."""
    text = text.strip()
    host, _, port_text = text.rpartition(":")
    if not _ and text.isdigit():
        host, port_text = EVERY_ADDRESS, text
    host = host.strip("[]") or EVERY_ADDRESS
    try:
        port = int(port_text)
        ipaddress.ip_address(host)
    except ValueError:
        raise BadOption(
            f"{text!r} is not an address to listen on: give ADDRESS:PORT, such as "
            f"0.0.0.0:{DEFAULT_PORT} (every address) or 192.168.1.10:{DEFAULT_PORT}."
        ) from None
    if not 0 <= port <= 65535:
        raise BadOption(f"Port {port} is outside 1-65535: choose another --listen port.")
    return host, port


def read_token_file(path: Path, create: bool = True, what: str = "class token") -> tuple[str, bool]:
    """The token in the file (its first line), and whether it was just created: a missing
    file gets a new random token, readable by its owner only."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if not create:
            raise BadOption(f"There is no {what} file {path}: name the {what}'s file.") from None
        token = secrets.token_urlsafe(24)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(token + "\n")
        except OSError as err:
            raise BadOption(
                f"Cannot write the {what} file {path} ({err.strerror or err}): choose another "
                f"place for it."
            ) from None
        return token, True
    except (OSError, UnicodeDecodeError) as err:
        raise BadOption(f"Cannot read the {what} file {path} ({err}): check it.") from None
    first = text.strip().splitlines()[0] if text.strip() else ""
    return check_token(first, f"The {what} in {path}"), False


def token_file_warning(path: Path) -> str | None:
    """A sentence when other users of this computer can read a token's file (POSIX modes;
    Windows keeps a user's files to the user by their folder's access list)."""
    if os.name != "posix":
        return None
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
        return (
            f"Other users of this computer can read {path}, and with it the token: make it "
            f"yours alone (chmod 600 {path})."
        )
    return None


def instructor_token_file(class_token_file: Path) -> Path:
    """Where the instructor token is kept when no file is named: beside the class token."""
    return class_token_file.with_name(INSTRUCTOR_TOKEN_FILE)


def station_url(host: str, port: int) -> str:
    """The address students' LinkLab use: the listening address, or (when it listens on every
    address) this computer's first address another computer can reach."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if ip is not None and ip.is_unspecified:
        found = [a for a in netinfo.local_addresses() if a.version == ip.version]
        found.sort(key=lambda a: a.scope != "global" and a.scope != "private")
        host = found[0].address if found else ("127.0.0.1" if ip.version == 4 else "::1")
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def write_into_exercise(path: Path, url: str, token: str) -> None:
    """Write the collector's address and the class token into an exercise file, so that the
    students' LinkLab pushes their runs here as they measure."""
    exercise = read_exercise(path)
    write_exercise(path, replace(exercise, collector=CollectorAddress(url, token)))


class Collector:
    """A collector listening on host:port until stop()."""

    def __init__(
        self,
        store: ClassStore,
        token: str,
        host: str = EVERY_ADDRESS,
        port: int = DEFAULT_PORT,
        *,
        instructor_token: str,
        limits: Limits | None = None,
        bounds: Bounds | None = None,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.app = CollectorApp(store, token, instructor_token, limits, on_log)
        self.bounds = bounds or Bounds()
        self.token = token
        self.instructor_token = instructor_token
        self.host = host
        self.port = port
        self._server: object | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        return station_url(self.host, self.port)

    def start(self) -> None:
        limits = self.app.limits
        try:
            server = guarded_server(
                self.app,
                host=self.host,
                port=self.port,
                threads=THREADS,
                connection_limit=CONNECTIONS,
                bounds=self.bounds,
                on_log=self.app.log,
                # Up to here the app reads the length and answers 413 with a sentence; beyond
                # it waitress cuts the connection. Bodies are buffered on disk past 512 KB.
                max_request_body_size=limits.max_body * 4 + 2**20,
                ident="LinkLab",
                expose_tracebacks=False,
            )
        except OSError as err:
            raise CollectorStartFailed(_start_sentence(self.host, self.port, err)) from None
        self.port = int(server.effective_port)
        self._server = server
        self._thread = threading.Thread(target=self._serve, name="collector", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        server = self._server
        assert server is not None
        socket_map = server._map  # type: ignore[attr-defined]
        try:
            while not self._stop.is_set():
                wasyncore.loop(timeout=0.5, map=socket_map, count=1)
        finally:
            # Closed in this thread, which owns the sockets' loop.
            wasyncore.close_all(socket_map)
            server.task_dispatcher.shutdown(timeout=5)  # type: ignore[attr-defined]

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        server = self._server
        if server is not None:
            with contextlib.suppress(OSError, AttributeError):
                server.pull_trigger()  # type: ignore[attr-defined]
        if self._thread is not None:
            self._thread.join(timeout=10)


def _start_sentence(host: str, port: int, err: OSError) -> str:
    if err.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
        return (
            f"Port {port} is in use on this computer (another collector, or another program): "
            f"choose another port with --listen {host}:PORT."
        )
    if err.errno in (99, 49, 10049):  # EADDRNOTAVAIL
        return (
            f"This computer has no address {host}: listen on one of its own addresses, or on "
            f"0.0.0.0 for all of them."
        )
    if err.errno in (13, 10013):  # EACCES: a privileged port, or Windows keeps the port
        return (
            f"This computer does not let the collector use port {port} (a port below 1024 "
            f"needs administrator rights; Windows also keeps some ports for itself or for a "
            f"program just ended): choose another port with --listen {host}:PORT."
        )
    return f"The collector cannot listen on {host}:{port} ({err.strerror or err})."
