"""The servers for "This computer" listen on the loopback only, on ports free on both."""

from __future__ import annotations

import psutil

from app.domain.net import IpVersion
from app.domain.plan import Engine
from app.engine.process.servers import EXPOSED_IDLE_TIMEOUT_S
from app.engine.process.tools import Tool
from app.engine.serving.loopback import LoopbackServers
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
        both = (IpVersion.V4, IpVersion.V6)
        port = servers.ensure(Engine.IPERF3, free_port(), ip_versions=both)
        ns_port = servers.ensure(Engine.NETPERF, free_port(), ip_versions=both)
        assert listening(servers) == {
            ("127.0.0.1", port),
            ("::1", port),
            ("127.0.0.1", ns_port),
            ("::1", ns_port),
        }
        pids = [s.pid for s in servers.servers]
        # Running and of the same shape: reused, not restarted.
        assert servers.ensure(Engine.IPERF3, port, ip_versions=both) == port
        assert servers.ensure(Engine.NETPERF, ns_port, ip_versions=both) == ns_port
        assert servers.ports() == {"iperf3": port, "netperf": ns_port}
        assert [s.pid for s in servers.servers] == pids
    finally:
        servers.stop()
    assert servers.servers == []


def test_concurrent_series_get_consecutive_ports(iperf3_tool: Tool) -> None:
    servers = LoopbackServers()
    try:
        port = servers.ensure(Engine.IPERF3, free_port(), count=2)
        assert listening(servers) == {("127.0.0.1", port), ("127.0.0.1", port + 1)}
    finally:
        servers.stop()


def test_this_computers_iperf3_server_has_the_idle_limit_serve_uses(iperf3_tool: Tool) -> None:
    """A stuck client cannot hold this computer's server until the window closes: it has the
    --idle-timeout that `linklab serve` gives its server by default."""
    servers = LoopbackServers()
    try:
        servers.ensure(Engine.IPERF3, free_port())
        (server,) = servers.servers
        assert server.pid is not None
        argv = psutil.Process(server.pid).cmdline()
        assert argv[argv.index("--idle-timeout") + 1] == str(EXPOSED_IDLE_TIMEOUT_S), argv
    finally:
        servers.stop()
