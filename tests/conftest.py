"""Shared fixtures: real engines, servers started by the test itself, leak checks."""

from __future__ import annotations

import faulthandler
import gc
import io
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import psutil
import pytest
from hypothesis import HealthCheck, settings

from app.cli import main
from app.cli.environment import Environment
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineMissing
from app.engine.process.server_records import records_folder
from app.engine.process.servers import LocalServer, ServerOptions
from app.engine.process.tools import Tool
from tests.heavy_first import heavy_first
from tests.private_network import enter_private_network

ROOT_DIR = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
ENGINE_NAMES = {"iperf3", "netperf", "netserver"}
DIST_BUILD_KEY = "linklab_dist_build"


def _own_user_folders() -> None:
    """Every test process (each pytest-xdist worker, and the commands it starts) keeps
    LinkLab's data folder (database, server records) and settings in a folder of its own, never
    the user's nor another worker's (Linux; platformdirs and Qt read these variables)."""
    if not sys.platform.startswith("linux"):
        return
    import atexit
    import shutil
    import tempfile

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    home = Path(tempfile.mkdtemp(prefix=f"linklab-tests-{worker}-{os.getpid()}-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        (home / name.lower()).mkdir()
        os.environ[name] = str(home / name.lower())


_own_user_folders()
enter_private_network()

# Hypothesis's own timing checks (an example's deadline, "input generation is slow") measure
# the computer, not LinkLab: beside a busy suite they fail properties that hold. The properties
# are checked in full; only the clock is not.
settings.register_profile("linklab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("linklab")


#: Ports the tests choose: a block of its own for each pytest-xdist worker, below Linux's
#: ephemeral range (32768-60999; Windows' starts at 49152), so that no other worker's choice and
#: no outgoing connection (whose source port the system picks from that range) can take it
#: between free_port() and the server's bind. One process alone takes the sixth block.
PORT_BLOCK = 2000
PORTS_FROM = 20000


def _port_block() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 5
    start = PORTS_FROM + PORT_BLOCK * (index % 6)
    return range(start, start + PORT_BLOCK)


_next_port = [-1]


def free_port() -> int:
    """A TCP and UDP port free on both loopbacks right now, from this process's block; each
    call gives the next one (two servers asked for in a row never share one)."""
    block = _port_block()
    if _next_port[0] < 0:
        _next_port[0] = random.randrange(len(block))
    for _ in range(len(block)):
        _next_port[0] = (_next_port[0] + 1) % len(block)
        port = block[_next_port[0]]
        try:
            for family, kind, host in (
                (socket.AF_INET, socket.SOCK_STREAM, "127.0.0.1"),
                (socket.AF_INET6, socket.SOCK_STREAM, "::1"),
                (socket.AF_INET, socket.SOCK_DGRAM, "127.0.0.1"),
                (socket.AF_INET6, socket.SOCK_DGRAM, "::1"),
            ):
                with socket.socket(family, kind) as probe:
                    probe.bind((host, port))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no free port in {block.start}-{block.stop - 1}")


def linklab(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`linklab ARGS` run in this process with an environment of its own (empty stdin, its
    output as text, this process's variables and env's on top), as the process would: its
    exit status, what it printed and what it stored are the user's. A command about the
    process itself (signals, Ctrl+C, a child that outlives it) uses linklab_process. timeout:
    the process variant's; pytest-timeout ends a stuck in-process command."""
    out, err = io.StringIO(), io.StringIO()
    variables = {**os.environ, **env} if env else dict(os.environ)
    before, threads, files = _process_state(), _own_threads(), _open_files()
    code = main(list(args), Environment.of(variables, stdout=out, stderr=err))
    _nothing_left_behind(args, threads)
    assert _process_state() == before, f"`linklab {' '.join(args)}` changed this process"
    assert not _open_files() - files, f"`linklab {' '.join(args)}` left files open"
    return subprocess.CompletedProcess(["linklab", *args], code, out.getvalue(), err.getvalue())


def linklab_process(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`linklab ARGS` as a user runs it (`python -m app` from this tree), run to its end, its
    output as text. env: variables set on top of this process's own."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT_DIR,
        env={**os.environ, **env} if env else None,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def _process_state() -> dict[str, Any]:
    """What a command run in-process must leave as it found it."""
    return {
        "current folder": Path.cwd(),
        "signal handlers": {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)},
        "logging handlers": list(logging.getLogger().handlers),
        "server records folder": records_folder(),
        "standard streams": (sys.stdin, sys.stdout, sys.stderr),
    }


def _nothing_left_behind(args: tuple[str, ...], threads: set[threading.Thread]) -> None:
    """No thread of the command's still running (a server's reader may take a moment to end)."""
    deadline = time.monotonic() + 5
    left = _own_threads() - threads
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = _own_threads() - threads
    assert not left, f"`linklab {' '.join(args)}` left threads running: {left}"


def _open_files() -> set[str]:
    """The files this process holds open (a database a command did not close, a log): read
    on Linux, where it is exact and quick (the same code leaves the same files elsewhere).
    The kernel's own /proc files are left out: a window's thread reading the connections
    (psutil) holds one open for a moment, whichever it is reading when looked at."""
    if not sys.platform.startswith("linux"):
        return set()
    return {f.path for f in psutil.Process().open_files() if not f.path.startswith("/proc/")}


def _own_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if not t.daemon and t.is_alive()}


def start_linklab(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """`linklab ARGS` started as a user starts it, its output piped as text; the caller ends
    it (a server, a study to interrupt)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT_DIR,
        env={**os.environ, **env} if env else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def wait_listening(port: int, timeout_s: float = 20) -> None:
    """Return once something listens on TCP port (without connecting: a one-off iperf3
    server would take the connection for its one test)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                return
        time.sleep(0.02)
    raise AssertionError(f"nothing listened on port {port} within {timeout_s:.0f} s")


def engine_name(process_name: str) -> str:
    """'iperf3' for iperf3 and for Windows' iperf3.exe (any case): the engine a process is."""
    name = process_name.lower()
    return name[: -len(".exe")] if name.endswith(".exe") else name


def engine_children(clients_only: bool = False) -> list[psutil.Process]:
    """Live engine processes descended from this test process (optionally clients only)."""
    found = []
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            name = engine_name(proc.name())
            if name not in ENGINE_NAMES or proc.status() == psutil.STATUS_ZOMBIE:
                continue
            is_server = name == "netserver" or "-s" in proc.cmdline()
            if clients_only and is_server:
                continue
            found.append(proc)
        except psutil.NoSuchProcess:
            continue
    return found


#: Why an engine may be missing on Windows: the Windows tests run where none can be had.
NO_WINDOWS_ENGINE = (
    "no Windows build of {name} is installed here (the Windows tests run under Wine, where "
    "none can be had; the release workflow runs them with the bundled engines)"
)


def under_wine() -> bool:
    """Windows Python running under Wine (make test-windows): Wine's ntdll names its version."""
    if sys.platform != "win32":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


def require_engine(name: str) -> Tool:
    """The engine, or the test fails (Linux and macOS: `make test` installs it) or, on a
    Windows machine without it, is skipped with the reason."""
    try:
        return find_tool(name)
    except EngineMissing as err:
        if sys.platform == "win32":
            pytest.skip(NO_WINDOWS_ENGINE.format(name=name))
        pytest.fail(f"{name} is required for the tests: {err}")


@pytest.fixture(scope="session")
def iperf3_tool() -> Tool:
    return require_engine("iperf3")


@pytest.fixture(scope="session")
def netperf_tool() -> Tool:
    try:
        return find_tool("netperf")
    except EngineMissing as err:
        pytest.skip(f"netperf is not installed (optional engine): {err}")


@pytest.fixture
def iperf3_server_port(iperf3_tool: Tool) -> Iterator[tuple[int, LocalServer]]:
    """A local iperf3 server this test owns, on a free port; stopped afterwards."""
    port = free_port()
    server = iperf3_server(iperf3_tool, ServerOptions(port))
    server.start()
    try:
        yield port, server
    finally:
        server.stop()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Any]:
    """A SessionStore on a fresh SQLite database, tmp_path/linklab.sqlite3."""
    from app.store.db import Database
    from app.store.sessions import SessionStore

    with Database(tmp_path / "linklab.sqlite3") as db:
        yield SessionStore(db)


@pytest.fixture(scope="module")
def bed(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The module's network test bed in namespaces of its own, as the module's BED (a
    tests.testbed.Bed) describes it: two hosts or client, router and server, their rate or
    queue, and LinkLab's server; skipped, with the reason, where namespaces cannot be built."""
    from tests.testbed import Bed

    spec = getattr(request.module, "BED", Bed())
    reason = spec.unavailable()
    if reason:
        pytest.skip(reason)
    with spec.build() as built:
        yield built


@pytest.fixture
def no_engine_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test if it leaves an engine client of ours running (servers have owners)."""
    yield
    left = engine_children(clients_only=True)
    assert not left, f"engine processes left behind: {[(p.pid, p.name()) for p in left]}"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile LinkLab's modules once, as installing it does (pip, the bundle): the tests
    start `linklab` commands by the hundred, and where Python is told not to write compiled
    files (PYTHONDONTWRITEBYTECODE) each would otherwise compile every module it imports."""
    import compileall

    compileall.compile_dir(ROOT_DIR / "app", quiet=1)


def pytest_configure(config: pytest.Config) -> None:
    """A pytest-xdist worker waits for the controller's frozen build (one per session)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get(DIST_BUILD_KEY):
        from tests.installers import early_build

        early_build.use_shared(Path(workerinput[DIST_BUILD_KEY]))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller: where its frozen build will be, for every worker."""
    from tests.installers import early_build

    node.workerinput[DIST_BUILD_KEY] = str(early_build.folder())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """pytest-xdist's controller starts the frozen build as the first worker has collected."""
    from tests.installers import early_build

    early_build.start_if_needed(ids)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, each worker collects the long files first (tests/heavy_first.py), so
    that the files are handed out longest first."""
    if getattr(config, "workerinput", None) is not None:
        heavy_first(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The frozen build for the installer tests starts now, in the background (see
    tests/installers/early_build.py)."""
    from tests.installers import early_build

    early_build.start_if_needed(item.nodeid for item in session.items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.installers import early_build

    early_build.finish()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL for this test session (tests/pg.py); skipped where it cannot run."""
    if sys.platform == "win32":
        pytest.skip(
            "the tests' PostgreSQL is Debian's server programs run as an unprivileged POSIX user "
            "(initdb, pg_ctl); SQLite, the other store, runs the same tests here"
        )
    from tests.pg import Postgres

    server = Postgres()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(autouse=True)
def _cycles_collected_between_tests() -> Iterator[None]:
    """Once a window has moved the cycle collector onto the GUI thread's timer (app.ui.common.
    main_thread_gc), tests that never run the event loop still get their cycles collected."""
    yield
    if not gc.isenabled():
        from app.ui.common.main_thread_gc import collect_due

        collect_due(gc.get_threshold())


@pytest.fixture(autouse=True)
def _stuck_test_ends_the_run(request: pytest.FixtureRequest) -> Iterator[None]:
    """pytest-timeout's thread cannot end a test whose thread waits in C holding Python's lock
    (a deadlock, as a widget freed in a pool thread once made): two minutes past the test's
    own limit, faulthandler's C watchdog prints every thread's stack and ends the run (under
    pytest-xdist: the worker's process, which xdist reports as crashed in that test)."""
    marker = request.node.get_closest_marker("timeout")
    limit = marker.args[0] if marker is not None and marker.args else None
    if limit is None:
        limit = request.config.getvalue("timeout") or request.config.getini("timeout") or 0
    if float(limit) <= 0:
        yield
        return
    # The terminal's stderr as pytest keeps it for faulthandler (the test's own is captured).
    try:
        from _pytest.faulthandler import fault_handler_stderr_fd_key

        stderr = request.config.stash[fault_handler_stderr_fd_key]
    except (ImportError, KeyError):
        stderr = sys.__stderr__.fileno() if sys.__stderr__ is not None else 2
    faulthandler.dump_traceback_later(float(limit) + 120, exit=True, file=stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
