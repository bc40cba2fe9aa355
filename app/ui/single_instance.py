"""One window per user and database: `linklab FILE...` hands its files to the window already
open, which imports them and comes to the front, instead of opening a second window."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow

# The protocol: the client writes one line of UTF-8 JSON,
#   {"open": ["/absolute/path", ...], "token": "..."}
# and the window answers "ok\n" once it has taken the files. Anything else is dropped unanswered.
MAX_MESSAGE = 64 * 1024
REPLY = b"ok\n"
CLIENT_TIMEOUT_MS = 1500
# A window that took the connection is there: its answer comes when its event loop runs, which
# on a busy computer (a study measuring beside other programs) can take seconds. Only a window
# hung this long is given up on (a second window then opens the files).
ANSWER_TIMEOUT_MS = 30_000
# A client that connects and says nothing is let go after this long.
IDLE_MS = 5000


@dataclass(frozen=True)
class Handover:
    """What a second `linklab FILE...` hands to the window already open."""

    paths: tuple[Path, ...]
    # The launcher's XDG_ACTIVATION_TOKEN: on Wayland, the window may come to the front with it.
    token: str = ""


def server_name(db_path: Path, user: str | None = None) -> str:
    """The name the window listens on: one per user and database, so that two LinkLabs on two
    databases (e.g. tests with their own LINKLAB_DB) never hand files to each other."""
    who = user if user is not None else _user()
    where = os.path.normcase(str(db_path.expanduser().resolve()))
    digest = hashlib.sha256(f"{who}\0{where}".encode()).hexdigest()[:16]
    name = f"linklab-{digest}"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if sys.platform.startswith("linux") and runtime and Path(runtime).is_dir():
        # The user's own 0700 folder: no other user can take the name first.
        return str(Path(runtime) / name)
    return name


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment nor the user database
        return str(os.getuid()) if hasattr(os, "getuid") else ""


def encode_handover(handover: Handover) -> bytes:
    message: dict[str, object] = {"open": [str(p) for p in handover.paths]}
    if handover.token:
        message["token"] = handover.token
    return json.dumps(message).encode() + b"\n"


def decode_handover(line: bytes) -> Handover | None:
    """The handover in one line, or None for anything that is not one."""
    try:
        message = json.loads(line.decode())
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(message, dict):
        return None
    names = message.get("open")
    token = message.get("token", "")
    # No files: the second launch only asks the window to come to the front.
    if not isinstance(names, list) or not isinstance(token, str):
        return None
    if not all(isinstance(n, str) and n and "\0" not in n for n in names):
        return None
    paths = tuple(Path(n) for n in names)
    # A relative path would be read against this window's folder, not the sender's.
    if not all(p.is_absolute() for p in paths):
        return None
    return Handover(paths, token)


def send_files(
    name: str,
    paths: Sequence[Path],
    timeout_ms: int = CLIENT_TIMEOUT_MS,
    answer_timeout_ms: int = ANSWER_TIMEOUT_MS,
) -> bool:
    """Hand paths to the window listening on name; True once it answered. False quickly when
    nobody listens. Blocks up to timeout_ms for the connection (for a process that has no
    window yet), then up to answer_timeout_ms for the window's answer."""
    token = os.environ.get("XDG_ACTIVATION_TOKEN", "")
    data = encode_handover(Handover(tuple(p.absolute() for p in paths), token))
    if len(data) > MAX_MESSAGE:
        return False  # too many files for one message: this process opens them itself
    deadline = time.monotonic() + timeout_ms / 1000

    def left_ms() -> int:
        return max(1, int((deadline - time.monotonic()) * 1000))

    socket = QLocalSocket()
    socket.connectToServer(name)
    try:
        if not socket.waitForConnected(left_ms()):
            return False
        deadline = time.monotonic() + answer_timeout_ms / 1000
        _let_window_come_forward()
        socket.write(data)
        while socket.bytesToWrite() > 0 and time.monotonic() < deadline:
            if not socket.waitForBytesWritten(left_ms()):
                return False
        reply = b""
        while b"\n" not in reply and len(reply) < len(REPLY) and time.monotonic() < deadline:
            if not socket.waitForReadyRead(left_ms()):
                break
            reply += bytes(socket.readAll().data())
        return reply == REPLY
    finally:
        socket.abort()


def _let_window_come_forward() -> None:
    """Windows lets only the foreground process (this one, just launched) hand the
    foreground on; without this the window only flashes in the taskbar."""
    if sys.platform == "win32":
        import ctypes

        asfw_any = -1
        ctypes.windll.user32.AllowSetForegroundWindow(asfw_any)


class HandoverServer(QObject):
    """Listens for `linklab FILE...` of the same user and database; reads without waiting."""

    handed_over = Signal(object)  # Handover

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._context: AppContext | None = None

    @property
    def listening(self) -> bool:
        return self._server.isListening()

    def server_name(self) -> str:
        return self._server.serverName()

    def listen(self, name: str) -> bool:
        """Listen on name (closing a former name); False when another window answers there."""
        if self._server.isListening() and self._server.serverName() == name:
            return True
        self._server.close()
        # Asked first: with UserAccessOption, Qt on Unix would take the name from under a
        # living window, and Windows lets two servers share one pipe name.
        if answers(name):
            return False
        # A socket file left by a LinkLab that did not close (Unix): nobody is there any more.
        QLocalServer.removeServer(name)
        return bool(self._server.listen(name))

    def close(self) -> None:
        self._server.close()

    def follow(self, context: AppContext) -> None:
        """Listen under the name of the database context uses, now and after it changes."""
        self._context = context
        context.settings_changed.connect(self._database_changed)
        self._database_changed()

    def _database_changed(self) -> None:
        if self._context is not None:
            self.listen(server_name(self._context.db_path))

    def _accept(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            _Conversation(socket, self.handed_over.emit)


def answers(name: str, timeout_ms: int = 300) -> bool:
    """Whether something listens on name; a stale Unix socket refuses at once."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    try:
        return bool(socket.waitForConnected(timeout_ms))
    finally:
        socket.abort()


class _Conversation(QObject):
    """One client: its line is gathered on readyRead, answered, and the socket let go."""

    def __init__(self, socket: QLocalSocket, deliver: Callable[[Handover], None]) -> None:
        super().__init__(socket)  # goes with the socket
        self._socket = socket
        self._deliver = deliver
        self._buffer = b""
        self._over = False
        socket.readyRead.connect(self._read)
        socket.disconnected.connect(socket.deleteLater)
        QTimer.singleShot(IDLE_MS, self, self._drop)
        if socket.bytesAvailable():
            self._read()

    def _read(self) -> None:
        if self._over:
            return
        self._buffer += bytes(self._socket.readAll().data())
        line, newline, _ = self._buffer.partition(b"\n")
        if not newline:
            if len(self._buffer) > MAX_MESSAGE:
                self._drop()
            return
        handover = decode_handover(line) if len(line) <= MAX_MESSAGE else None
        if handover is None:
            self._drop()
            return
        self._over = True
        self._socket.write(REPLY)
        self._socket.disconnectFromServer()  # once the answer is written
        self._deliver(handover)

    def _drop(self) -> None:
        if self._over:
            return
        self._over = True
        self._socket.abort()
        self._socket.deleteLater()


def bring_to_front(window: QWidget, token: str = "") -> None:
    """Show the window over the others, as far as the desktop allows it."""
    if token and QGuiApplication.platformName().startswith("wayland"):
        # Qt's Wayland plugin hands this to the compositor on the next activation.
        os.environ["XDG_ACTIVATION_TOKEN"] = token
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


def serve_window(server: HandoverServer, window: MainWindow) -> None:
    """The window takes handed-over files while it lives; the name follows its database."""
    server.setParent(window)

    def take(handover: Handover) -> None:
        bring_to_front(window, handover.token)
        window.handed_over_count += 1
        if handover.paths:
            window.open_handed_over(handover.paths)

    server.handed_over.connect(take)
    server.follow(window.context)
