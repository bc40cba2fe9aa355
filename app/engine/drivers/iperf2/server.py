"""The iperf 2 server: `iperf -s` and `iperf -s -u` on one port, from the server options."""

from __future__ import annotations

from app.domain.errors import BadOption
from app.engine.lan.netinfo import ipv6_available
from app.engine.lan.validate import check_port, is_ipv6_literal, validate_host
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.tools import Tool


def iperf2_servers(
    tool: Tool, options: ServerOptions, on_log: LogCallback | None = None
) -> list[LocalServer]:
    """`iperf -s` and `iperf -s -u` on one port (an iperf 2 server speaks one protocol)."""
    check_port(options.port)
    if options.one_off or options.idle_timeout_s is not None:
        raise BadOption(
            "iperf 2's server has no one-off or idle-timeout mode: clear those options."
        )
    base = [tool.path, "-s", "-p", str(options.port), "-e"]
    bind = options.bind_address
    if bind:
        validate_host(bind, "bind address")
        base += ["-B", bind]
    if (bind is None or is_ipv6_literal(bind)) and ipv6_available():
        base.append("-V")  # IPv6 too (an IPv6 socket takes IPv4 as well)
    return [
        LocalServer(tool, base, options.port, on_log, label="iperf 2 server"),
        LocalServer(tool, [*base, "-u"], options.port, on_log, label="iperf 2 UDP server"),
    ]
