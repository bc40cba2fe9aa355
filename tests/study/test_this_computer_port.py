"""This computer's server listens on the port asked for (--port, the Ports fields) when only
TIME_WAIT connections of an earlier test are left there, as the engines' own servers can
(SO_REUSEADDR); a port another program listens on is replaced, and the study says so and by
what. Real iperf3 servers, a real TIME_WAIT, a real listener, `linklab run` in a terminal."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from app.domain.plan import Engine, Peer, Plan
from app.engine.drivers.registry import DRIVERS
from app.engine.errors import EngineMissing
from app.study.frontdoor import FrontDoor
from tests.conftest import free_port, linklab

pytestmark = pytest.mark.usefixtures("iperf3_tool")

KEY = DRIVERS[Engine.IPERF3].port_key


def time_wait_on(port: int) -> None:
    """A connection to the port whose server side closed first: the port is left with a
    connection in TIME_WAIT (for a minute on Linux), and nothing listening."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listener.accept()
            accepted.close()  # the server's side first: its end waits in TIME_WAIT
            client.recv(1)
    deadline = time.monotonic() + 5
    while not any(
        c.laddr and c.laddr.port == port and c.status == psutil.CONN_TIME_WAIT
        for c in psutil.net_connections(kind="tcp")
    ):
        assert time.monotonic() < deadline, "no TIME_WAIT connection on the port"
        time.sleep(0.05)


@contextmanager
def prepared_on(tmp_path: Path, port: int) -> Iterator[tuple[int, tuple[str, ...]]]:
    """A study against this computer asked to use the port: the port its server listens on,
    and what is said of ports before it starts."""
    plan = Plan(peer=Peer.this_computer({KEY: port}), values=(1408,), repetitions=1)
    door = FrontDoor(tmp_path / "lab.sqlite3", take_snapshot=lambda _host, _engines: {})
    try:
        prepared = door.studies().prepare(plan)
        said = prepared.notes + prepared.advice
        yield prepared.plan.peer.port(KEY, 0), tuple(s for s in said if s.startswith("Port "))
    finally:
        door.loopback.stop()


def test_a_port_left_in_time_wait_is_the_port_used(tmp_path: Path) -> None:
    port = free_port()
    time_wait_on(port)
    with prepared_on(tmp_path, port) as (used, notes):
        assert used == port
        assert not notes


def test_a_port_another_program_listens_on_is_replaced_saying_by_what(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with prepared_on(tmp_path, port) as (used, notes):
            assert used != port
            holder = f"{psutil.Process().name()} (pid {os.getpid()})"
            assert notes == (
                f"Port {port} on this computer is in use by {holder}, so this computer's "
                f"iperf3 server listens on port {used} for this study.",
            )


def test_linklab_run_says_the_port_it_uses_instead(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        done = linklab(
            *("run", "--peer", "this-computer", "--port", str(port), "--sizes", "1408"),
            *("--runs", "1", "--duration", "1", "--db", str(tmp_path / "lab.sqlite3")),
        )
    assert done.returncode == 0, done.stderr
    assert f"Port {port} on this computer is in use by " in done.stdout + done.stderr


@pytest.mark.parametrize("engine", list(DRIVERS))
def test_each_engines_server_listens_where_time_wait_is_left(engine: Engine) -> None:
    """What the probe assumes: each engine's own server binds a port left in TIME_WAIT."""
    driver = DRIVERS[engine]
    try:
        driver.server_tool()
    except EngineMissing as missing:
        pytest.skip(f"{driver.server_program} is not installed (optional): {missing.sentence}")
    port = free_port()
    time_wait_on(port)
    servers = driver.servers(driver.loopback(port, "127.0.0.1"))
    try:
        for server in servers:
            server.start()  # ServerStartFailed ("Port … is already in use") otherwise
            assert server.running
    finally:
        for server in servers:
            server.stop()
