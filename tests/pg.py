"""A real PostgreSQL for the tests: Debian's server programs (initdb, pg_ctl) run on a cluster
in a temporary folder, listening on the loopback on a private port, as an unprivileged user
(PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody`). No system
service, no mock. A password is set, so the tests connect with credentials in the URL as a
department's server would want."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

USER = "linklab"
PASSWORD = "class-secret-1"
_RUN_AS = "nobody"


def bin_dir() -> Path | None:
    """Where Debian keeps the server's programs (they are not on PATH)."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").is_file():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Postgres:
    """One cluster: start(), stop(), a fresh database per test (new_database)."""

    def __init__(self) -> None:
        found = bin_dir()
        if found is None:
            pytest.skip(
                "PostgreSQL's server programs are missing (Debian: apt-get install postgresql; "
                "make test installs them)"
            )
        self.bin = found
        self.root = Path(tempfile.mkdtemp(prefix="linklab-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_root = os.geteuid() == 0
        self._counter = 0
        if self._as_root:
            import pwd  # POSIX only: the module imports on Windows too (a benchmark names it)

            entry = pwd.getpwnam(_RUN_AS)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        secret = self.root / "pw"
        secret.write_text(PASSWORD + "\n", encoding="utf-8")
        if self._as_root:
            os.chown(secret, entry.pw_uid, -1)
        self._run(
            "initdb", "-D", str(self.data), "-U", USER, f"--pwfile={secret}",
            "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        secret.unlink()
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.root}'\nfsync = off\n"
                "synchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
            )
        self.start()

    def _argv(self, program: str, *args: str) -> list[str]:
        argv = [str(self.bin / program), *args]
        if self._as_root:
            return ["runuser", "-u", _RUN_AS, "--", *argv]
        return argv

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            self._argv(program, *args), capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stdout}\n{done.stderr}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60",
                  "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A database of its own for one test; its URL."""
        import psycopg

        self._counter += 1
        name = f"class_{os.getpid()}_{self._counter}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def postgres() -> Iterator[Postgres]:
    server = Postgres()
    try:
        yield server
    finally:
        server.close()


def wait_until(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)
