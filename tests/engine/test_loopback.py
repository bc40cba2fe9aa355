"""The servers for "This computer" listen on the loopback only, on ports free on both."""

from __future__ import annotations

import psutil

from app.domain.net import IpVersion
from app.engine.loopback import LoopbackServers
from app.engine.tools import Tool
from tests.conftest import free_port


def listening(servers: LoopbackServers) -> set[tuple[str, int]]:
    found = set()
    for server in servers.servers:
        assert server.pid is not None
        for conn in psutil.Process(server.pid).net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN:
                found.add((conn.laddr.ip, conn.laddr.port))
    return found


def test_ipv4_and_ipv6_on_the_loopback_only(iperf3_tool: Tool, netperf_tool: Tool) -> None:
    servers = LoopbackServers()
    try:
        port, ns_port = servers.ensure(
            free_port(),
            free_port(),
            ip_versions=(IpVersion.V4, IpVersion.V6),
            need_netserver=True,
        )
        assert listening(servers) == {
            ("127.0.0.1", port),
            ("::1", port),
            ("127.0.0.1", ns_port),
            ("::1", ns_port),
        }
        pids = [s.pid for s in servers.servers]
        # Running and of the same shape: reused, not restarted.
        assert servers.ensure(port, ns_port, ip_versions=(IpVersion.V4, IpVersion.V6)) == (
            port,
            ns_port,
        )
        assert [s.pid for s in servers.servers] == pids
    finally:
        servers.stop()
    assert servers.servers == []


def test_concurrent_series_get_consecutive_ports(iperf3_tool: Tool) -> None:
    servers = LoopbackServers()
    try:
        port, _ = servers.ensure(free_port(), 0, count=2)
        assert listening(servers) == {("127.0.0.1", port), ("127.0.0.1", port + 1)}
    finally:
        servers.stop()
