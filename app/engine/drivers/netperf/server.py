"""netserver, netperf's server: on one port, from the server options."""

from __future__ import annotations

from app.domain.errors import BadOption
from app.engine.lan.validate import check_port, is_ipv6_literal, validate_host
from app.engine.process.servers import LocalServer, LogCallback, ServerOptions
from app.engine.process.tools import Tool

#: How the server is named in sentences, and how a person starts it by hand.
LABEL = "netserver"
COMMAND = "netserver"


def netserver(tool: Tool, options: ServerOptions, on_log: LogCallback | None = None) -> LocalServer:
    """netserver on one port (-D: in the foreground, so that LinkLab owns it)."""
    check_port(options.port)
    if options.one_off or options.idle_timeout_s is not None:
        raise BadOption("netserver has no one-off or idle-timeout mode: clear those options.")
    argv = [tool.path, "-D", "-p", str(options.port)]
    if options.bind_address:
        validate_host(options.bind_address, "bind address")
        family = "AF_INET6" if is_ipv6_literal(options.bind_address) else "AF_INET"
        argv += ["-L", f"{options.bind_address},{family}"]
    # "Unable to start netserver with 'IN(6)ADDR_ANY' port '12865' …": the port is taken.
    taken = ("unable to start netserver",)
    return LocalServer(tool, argv, options.port, on_log, label=LABEL, port_taken=taken)
