"""Local servers: ready when listening, a log of tests served, clear errors, clean stop."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import replace

import psutil
import pytest

from app.domain.errors import BadOption
from app.domain.net import IpVersion
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.iperf3.server import iperf3_server, security_warning
from app.engine.drivers.netperf.server import netserver
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineTooOld
from app.engine.process.servers import (
    RESTARTS,
    LocalServer,
    ServerOptions,
    ServerStartFailed,
)
from app.engine.process.tools import Tool
from tests.conftest import engine_children, free_port


def test_iperf3_server_serves_and_logs(iperf3_tool: Tool) -> None:
    port = free_port()
    log: list[str] = []
    server = iperf3_server(iperf3_tool, ServerOptions(port), on_log=log.append)
    server.start()
    try:
        assert server.running
        for host, ip in (("127.0.0.1", IpVersion.V4), ("::1", IpVersion.V6)):
            result = start_iperf3(
                iperf3_tool, Iperf3Options(host=host, port=port, ip_version=ip, duration_s=1)
            ).run()
            assert result.throughput_bps
        assert any("Accepted connection" in line for line in log), log
    finally:
        pid = server.pid
        server.stop()
    assert not server.running
    assert pid not in [p.pid for p in engine_children()]


def test_port_in_use_is_explained(iperf3_tool: Tool) -> None:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as holder:
        holder.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        holder.bind(("::", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        server = iperf3_server(iperf3_tool, ServerOptions(port))
        with pytest.raises(ServerStartFailed, match=f"Port {port} is already in use"):
            server.start()
    assert not engine_children()


def test_bind_and_one_off(iperf3_tool: Tool) -> None:
    port = free_port()
    server = iperf3_server(
        iperf3_tool, ServerOptions(port, bind_address="127.0.0.1", idle_timeout_s=30, one_off=True)
    )
    assert server.argv[-4:] == ["--idle-timeout", "30", "-1", "--forceflush"]
    server.start()
    try:
        start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)).run()
        # One-off: it exits after one test, and is not started again (it ended well).
        assert _wait_for(lambda: not server.running, 5)
        time.sleep(0.3)
        assert not server.running and not engine_children()
    finally:
        server.stop()


def test_missing_capability_is_refused(iperf3_tool: Tool) -> None:
    old = replace(iperf3_tool, capabilities=frozenset())
    with pytest.raises(EngineTooOld, match="--one-off"):
        iperf3_server(old, ServerOptions(5201, one_off=True))


def test_security_warning_for_old_servers(iperf3_tool: Tool) -> None:
    assert "3.19.1" in (security_warning(replace(iperf3_tool, version=(3, 12))) or "")
    assert security_warning(replace(iperf3_tool, version=(3, 19, 1))) is None
    assert security_warning(replace(iperf3_tool, version=(3, 20))) is None


@pytest.mark.netperf
def test_netserver_runs_and_stops() -> None:
    try:
        tool = find_tool("netserver")
    except Exception as err:
        pytest.skip(f"netserver is not installed (optional engine): {err}")
    port = free_port()
    server = netserver(tool, ServerOptions(port, bind_address="127.0.0.1"))
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    finally:
        server.stop()
    assert not engine_children()
    with pytest.raises(BadOption):
        netserver(tool, ServerOptions(port, one_off=True))


def _wait_for(condition: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_crashed_server_is_started_again_then_left_stopped(iperf3_tool: Tool) -> None:
    """A server that dies of a signal (iperf 2.1.8's crash) serves again within moments, and
    says so in its log; one that keeps crashing is left stopped with a sentence."""
    port = free_port()
    log: list[str] = []
    server = iperf3_server(iperf3_tool, ServerOptions(port), on_log=log.append)
    server.start()
    try:
        first = server.pid
        assert first is not None
        os.kill(first, signal.SIGSEGV)
        assert _wait_for(lambda: server.pid not in (None, first) and _serves(server)), log
        assert server.running
        assert any(
            f"iperf3 server on port {port} stopped unexpectedly (signal {signal.SIGSEGV})" in line
            and "started it again" in line
            for line in log
        ), log
        result = start_iperf3(
            iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)
        ).run()
        assert result.throughput_bps
        for _ in range(RESTARTS):
            assert _wait_for(lambda: _serves(server)), log
            pid = server.pid
            assert pid is not None
            os.kill(pid, signal.SIGSEGV)
            assert _wait_for(lambda pid=pid: server.pid != pid or not server.running), log
        assert _wait_for(lambda: any("LinkLab left it stopped" in line for line in log)), log
        assert not server.running
    finally:
        server.stop()
    assert not engine_children()


def test_a_server_stopped_by_linklab_stays_stopped(iperf3_tool: Tool) -> None:
    port = free_port()
    log: list[str] = []
    server = iperf3_server(iperf3_tool, ServerOptions(port), on_log=log.append)
    server.start()
    server.stop()
    time.sleep(0.5)
    assert not server.running and not engine_children()
    assert not any("stopped unexpectedly" in line for line in log), log


def _serves(server: LocalServer) -> bool:
    pid = server.pid
    if pid is None:
        return False
    try:
        connections = psutil.Process(pid).net_connections(kind="tcp")
    except psutil.Error:
        return False
    return any(c.status == psutil.CONN_LISTEN and c.laddr.port == server.port for c in connections)
