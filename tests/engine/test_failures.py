"""Failures a user can meet, for real: no server, unknown host, busy server, server killed,
a silent peer, and hostile host strings that must never reach a process."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time

import pytest

from app.domain.errors import BadOption
from app.domain.net import IpVersion
from app.domain.results import Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.errors import (
    ClosedBeforeStart,
    ConnectionRefused,
    ConnectTimeout,
    EngineError,
    HostUnresolved,
    Ipv6Unavailable,
    LinkLocalNeedsZone,
    PeerVanished,
    ServerBusy,
)
from app.engine.process.servers import LocalServer
from app.engine.process.tools import Tool
from tests.conftest import engine_children, free_port

pytestmark = pytest.mark.usefixtures("no_engine_left")


def _sentence_ok(err: EngineError) -> None:
    text = str(err)
    assert text.endswith(".") and ":" in text  # "what happened: what to do."
    assert "Traceback" not in text


def test_no_server_there(iperf3_tool: Tool) -> None:
    port = free_port()
    with pytest.raises(ConnectionRefused) as info:
        start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)).run()
    assert f"refused the connection on port {port}" in str(info.value)
    assert "iperf3 -s" in str(info.value)
    _sentence_ok(info.value)


def test_unresolvable_host(iperf3_tool: Tool) -> None:
    with pytest.raises(HostUnresolved) as info:
        start_iperf3(iperf3_tool, Iperf3Options(host="no-such-host.invalid", duration_s=1)).run()
    assert "could not be resolved" in str(info.value)
    _sentence_ok(info.value)


def _ipv4_only_name() -> str | None:
    for name in ("localhost", socket.gethostname()):
        try:
            socket.getaddrinfo(name, None, socket.AF_INET)
        except OSError:
            continue
        try:
            socket.getaddrinfo(name, None, socket.AF_INET6)
        except OSError:
            return name
    return None


def test_ipv6_to_a_name_with_only_ipv4(iperf3_tool: Tool) -> None:
    name = _ipv4_only_name()
    if name is None:
        pytest.skip("every local name here has an IPv6 address; no IPv4-only name to try")
    with pytest.raises(Ipv6Unavailable) as info:
        start_iperf3(
            iperf3_tool, Iperf3Options(host=name, ip_version=IpVersion.V6, duration_s=1)
        ).run()
    assert "IPv6" in str(info.value)
    _sentence_ok(info.value)


def test_wrong_family_literal_is_refused_before_running(iperf3_tool: Tool) -> None:
    with pytest.raises(BadOption, match="IPv4 address but IPv6 was chosen"):
        start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", ip_version=IpVersion.V6))
    with pytest.raises(BadOption, match="IPv6 address but IPv4 was chosen"):
        start_iperf3(iperf3_tool, Iperf3Options(host="::1", ip_version=IpVersion.V4))


def test_busy_server(iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]) -> None:
    port, _ = iperf3_server_port
    holder = start_iperf3(iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=30))
    started = threading.Event()

    def hold() -> None:
        try:
            for event in holder.events():
                if isinstance(event, Sample):
                    started.set()
        except EngineError:
            pass

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert started.wait(10)
        with pytest.raises(ServerBusy) as info:
            start_iperf3(
                iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)
            ).run()
        assert info.value.transient
        _sentence_ok(info.value)
    finally:
        holder.cancel()
        thread.join(5)


def _queued(port: int) -> bool:
    """Whether a connection waits in the accept queue of the listener on port (ss's Recv-Q of
    a listening socket is its queue's length)."""
    done = subprocess.run(
        ["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, timeout=10
    )
    return any(int(line.split()[1]) > 0 for line in done.stdout.splitlines() if line.strip())


@pytest.mark.skipif(shutil.which("ss") is None, reason="needs ss (iproute2) to see the queue")
def test_a_server_closing_its_port_under_a_connection_reads_as_closed_before_start(
    iperf3_tool: Tool,
) -> None:
    """An iperf3 server closes its listening socket after each test and opens a new one: a
    client that connected in between (the kernel took its connection into the old socket's
    queue) is reset, and reads a connection closed before the test. On a busy computer the
    server takes longer over it; the responsiveness test tries such a step again when the
    server ran a step before."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def reopening() -> None:
        deadline = time.monotonic() + 30
        while not _queued(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        listener.close()

    closer = threading.Thread(target=reopening, daemon=True)
    closer.start()
    try:
        with pytest.raises(ClosedBeforeStart) as info:
            start_iperf3(
                iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1)
            ).run()
    finally:
        closer.join(30)
        listener.close()
    _sentence_ok(info.value)


def test_server_killed_mid_run(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, server = iperf3_server_port
    run = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=30, interval_s=0.5)
    )
    got_samples = 0
    with pytest.raises(PeerVanished) as info:
        for event in run.events():
            if isinstance(event, Sample):
                got_samples += 1
                if got_samples == 2:
                    server.stop()  # SIGTERM/SIGKILL to the server's process group
    assert got_samples >= 2
    _sentence_ok(info.value)


@pytest.mark.slow
def test_silent_peer_trips_the_watchdog(iperf3_tool: Tool) -> None:
    """A listener that accepts and then says nothing: no interval for 3×interval + 10 s."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        run = start_iperf3(
            iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=5, interval_s=0.1)
        )
        t0 = time.monotonic()
        with pytest.raises(ConnectTimeout) as info:
            run.run()
        waited = time.monotonic() - t0
    assert 10.0 <= waited < 20.0
    _sentence_ok(info.value)


HOSTILE = [
    "-R",
    "--logfile=x",
    "a b",
    "x;y",
    "a" * 300,
    "$(reboot)",
    "host\nname",
    "`id`",
    "fe80::1",
    "::1%",
    "1.2.3.4.5",
    "-",
    "",
    "exa_mple.com",
    "a..b",
]


@pytest.mark.parametrize("host", HOSTILE)
def test_hostile_host_strings_never_start_a_process(iperf3_tool: Tool, host: str) -> None:
    before = {p.pid for p in engine_children()}
    with pytest.raises(BadOption) as info:
        start_iperf3(iperf3_tool, Iperf3Options(host=host, duration_s=1))
    assert {p.pid for p in engine_children()} == before
    _sentence_ok(info.value)
    if host == "fe80::1":
        assert isinstance(info.value, LinkLocalNeedsZone)
        assert "fe80::1%eth0" in str(info.value)


def test_option_the_engine_lacks_is_refused(iperf3_tool: Tool) -> None:
    from dataclasses import replace

    from app.domain.net import Direction
    from app.engine.errors import EngineTooOld
    from app.engine.process.tools import Capability

    old = replace(iperf3_tool, capabilities=iperf3_tool.capabilities - {Capability.BIDIR})
    with pytest.raises(EngineTooOld) as info:
        start_iperf3(old, Iperf3Options(host="127.0.0.1", direction=Direction.BIDIR))
    assert "--bidir" in str(info.value)
