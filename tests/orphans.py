"""Helpers for the kill -9 tests: the engines a LinkLab process started, and how long they
(and their ports) outlive it."""

from __future__ import annotations

import socket
import time

import psutil

from tests.conftest import ENGINE_NAMES, engine_name


def engines_of(pid: int) -> list[psutil.Process]:
    """Live engine processes descended from pid."""
    found = []
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    for proc in children:
        try:
            if engine_name(proc.name()) in ENGINE_NAMES and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.NoSuchProcess:
            continue
    return found


def is_client(proc: psutil.Process) -> bool:
    """An engine client (iperf3 -c, netperf -H); False for one that has ended meanwhile, such
    as the short-lived `netperf -V` of an environment snapshot."""
    try:
        argv = proc.cmdline()
    except psutil.NoSuchProcess:
        return False
    return "-c" in argv or "-H" in argv


def wait_for_client_and_server(
    pid: int, limit: float = 30.0
) -> tuple[list[psutil.Process], set[int]]:
    """The engines descended from pid once a client runs and a server listens: the processes
    and the ports they listen on."""
    deadline = time.monotonic() + limit
    while True:
        procs = engines_of(pid)
        ports = listening_ports(procs)
        if ports and any(is_client(p) for p in procs):
            return procs, ports
        if time.monotonic() > deadline:
            names = [p.name() for p in procs]
            raise AssertionError(f"no client and listening server after {limit:g} s: {names}")
        time.sleep(0.05)


def listening_ports(procs: list[psutil.Process]) -> set[int]:
    ports = set()
    for proc in procs:
        try:
            for conn in proc.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr:
                    ports.add(conn.laddr.port)
        except psutil.NoSuchProcess:
            continue
    return ports


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _port_listened(port: int) -> bool:
    return any(
        c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN
        for c in psutil.net_connections(kind="tcp")
    )


def _port_bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def seconds_until_gone(procs: list[psutil.Process], ports: set[int], limit: float) -> float:
    """How long until every process has ended and every port is free again; fails past limit,
    naming what is left."""
    t0 = time.monotonic()
    while True:
        alive = [p for p in procs if _alive(p)]
        held = {port for port in ports if _port_listened(port) or not _port_bindable(port)}
        if not alive and not held:
            return time.monotonic() - t0
        if time.monotonic() - t0 > limit:
            names = [f"{p.pid} {' '.join(p.cmdline())}" for p in alive]
            for proc in alive:  # never leave them behind for the next test
                proc.kill()
            raise AssertionError(f"still there after {limit:g} s: {names}, ports {held}")
        time.sleep(0.02)
