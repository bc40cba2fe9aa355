"""Servers others can reach are bounded: the longest test (iperf3 --server-max-duration, when
the engine has it; said otherwise) and an idle restart by default, an address to bind to, and
a port in use named with the program that holds it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import replace

import pytest

from app.engine.drivers.iperf3.driver import iperf3_capabilities
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.process.servers import (
    EXPOSED_IDLE_TIMEOUT_S,
    EXPOSED_MAX_DURATION_S,
    EXPOSED_STALL_TIMEOUT_S,
    ServerStartFailed,
    exposed,
    port_holder,
)
from app.engine.process.tools import Capability, Tool
from tests.conftest import ROOT_DIR, engine_children, engine_name, free_port


def test_the_probe_finds_server_max_duration() -> None:
    newer = "  --server-max-duration #  max duration of a test\n  --idle-timeout #\n"
    assert Capability.SERVER_MAX_DURATION in iperf3_capabilities(newer, "iperf 3.20")
    assert Capability.SERVER_MAX_DURATION not in iperf3_capabilities("--idle-timeout #", "")


def test_an_exposed_server_has_its_limits_or_says_which_it_cannot_apply(iperf3_tool: Tool) -> None:
    capable = replace(
        iperf3_tool,
        version=(3, 20),
        capabilities=iperf3_tool.capabilities | {Capability.SERVER_MAX_DURATION},
    )
    server = iperf3_server(capable, exposed(5201, "127.0.0.1"))
    argv = server.argv
    assert argv[argv.index("--server-max-duration") + 1] == str(EXPOSED_MAX_DURATION_S)
    assert argv[argv.index("--idle-timeout") + 1] == str(EXPOSED_IDLE_TIMEOUT_S)
    assert argv[argv.index("-B") + 1] == "127.0.0.1" and not server.notes
    assert server.stall is not None and server.stall.after_s == EXPOSED_STALL_TIMEOUT_S
    older = replace(
        iperf3_tool,
        version=(3, 12),
        capabilities=iperf3_tool.capabilities - {Capability.SERVER_MAX_DURATION},
    )
    server = iperf3_server(older, exposed(5201))
    assert "--server-max-duration" not in server.argv
    duration, held = server.notes
    assert "cannot cap the length of a test" in duration and "3.20" in duration
    # iperf3 before 3.15 can be held by one client (CVE-2023-7250): watched, and said.
    assert "CVE-2023-7250" in held and "iperf3 3.15 or newer" in held
    assert server.stall is not None and "CVE-2023-7250" in server.stall.why
    one_off = iperf3_server(older, exposed(5201, one_off=True))
    assert "--idle-timeout" not in one_off.argv  # idle, a one-off server would just end


def test_a_port_in_use_names_the_program_holding_it(iperf3_tool: Tool) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        me = f"(pid {os.getpid()})"
        assert (port_holder(port) or "").endswith(me)
        server = iperf3_server(iperf3_tool, exposed(port))
        with pytest.raises(ServerStartFailed) as failed:
            server.start()
    assert f"Port {port} is already in use by python" in failed.value.sentence
    assert me in failed.value.sentence and "stop it, or choose another port" in (
        failed.value.sentence
    )
    assert port_holder(port) is None
    assert not engine_children()


@pytest.mark.usefixtures("iperf3_tool")
def test_serve_says_its_limits_and_binds_where_asked() -> None:
    port = free_port()
    app = subprocess.Popen(
        [
            *(sys.executable, "-m", "app", "serve", "--port", str(port), "--no-netserver"),
            *("--no-echo", "--bind", "127.0.0.1", "--idle-timeout", "60"),
        ],
        cwd=ROOT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        assert app.stdout is not None
        lines = []
        for line in app.stdout:
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        text = "".join(lines)
        assert "Limits: listening on 127.0.0.1 only;" in text
        assert "an iperf3 server idle for 60 s restarts" in text
        (server,) = [p for p in engine_children() if engine_name(p.name()) == "iperf3"]
        argv = server.cmdline()
        assert argv[argv.index("-B") + 1] == "127.0.0.1"
        assert argv[argv.index("--idle-timeout") + 1] == "60"
    finally:
        app.terminate()
        app.communicate(timeout=10)
