"""A client that holds a server, as CVE-2023-7250's report describes: it connects, sends five
bytes (less than the 37 of an iperf3 client's first message) and waits without leaving; and a
server's console read as it prints."""

from __future__ import annotations

import queue
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from app.engine.process.stall import client_words


@contextmanager
def holding(port: int, host: str = "127.0.0.1") -> Iterator[socket.socket]:
    """A connection to the server that sends five bytes and then nothing, until the block
    ends (the server may close it sooner: the client itself never leaves)."""
    sock = socket.create_connection((host, port), timeout=5)
    try:
        sock.sendall(b"hello")
        yield sock
    finally:
        sock.close()


def held_by(sock: socket.socket) -> str:
    """The holding client as the server's log names it ("127.0.0.1 port 51234")."""
    host, port = sock.getsockname()[:2]
    return client_words(host, port)


def closed_by_server(sock: socket.socket, timeout_s: float = 5) -> bool:
    """Whether the server has closed the connection (end of file, or reset), whatever it
    sent before (an iperf3 server ended by a signal sends its state first)."""
    sock.settimeout(timeout_s)
    try:
        while sock.recv(64):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


class Console:
    """A process's standard output, line by line as it prints it (a thread reads it)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait(self, text: str, timeout_s: float) -> str:
        """The first line (from those already read on) holding text; AssertionError when none
        arrives within timeout_s or the output ends first."""
        for line in self.lines:
            if text in line:
                return line
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"the output ended without {text!r}: {self.lines}")
            self.lines.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} within {timeout_s:.0f} s: {self.lines}")

    def read_all(self, timeout_s: float = 10) -> list[str]:
        """Every line, once the process has ended (its output closed)."""
        self._thread.join(timeout_s)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return self.lines
            if line is not None:
                self.lines.append(line)
