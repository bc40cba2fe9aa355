"""Choosing how to measure latency (echo, then netserver, then iperf3), the TCP connection
prober against real servers, and netperf's request/response options."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from app.domain.plan import Engine, Peer
from app.domain.results import RunResult
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.netperf.driver import build_argv
from app.engine.drivers.netperf.options import NetperfTest, netperf_rr_options
from app.engine.drivers.netperf.server import netserver
from app.engine.drivers.registry import DRIVERS, find_tool
from app.engine.errors import EngineError, EngineMissing, NoLatencyMethod
from app.engine.lan.peercheck import Server
from app.engine.latency.echo import LOOPBACK, EchoResponder
from app.engine.latency.latency import (
    MethodChoice,
    TcpConnectProber,
    detect_method,
    make_prober,
    measure_idle,
)
from app.engine.latency.probe import UdpProber
from app.engine.latency.probe_results import LatencyMethod
from app.engine.process.servers import LocalServer, ServerOptions
from app.engine.process.tools import Tool
from tests.conftest import free_port


@pytest.fixture
def netserver_port() -> Iterator[int]:
    try:
        tool = find_tool("netserver")
    except EngineMissing as err:
        pytest.skip(f"netserver is not installed (optional engine): {err}")
    port = free_port()
    server = netserver(tool, ServerOptions(port))
    server.start()
    try:
        yield port
    finally:
        server.stop()


def servers(netserver_port: int, iperf3_port: int) -> list[Server]:
    """netserver's and the iperf3 server's ports on the peer, as a study's peer gives them."""
    peer = Peer("127.0.0.1", {"netperf": netserver_port, "iperf3": iperf3_port})
    return [DRIVERS[Engine.NETPERF].peer_server(peer), DRIVERS[Engine.IPERF3].peer_server(peer)]


def test_echo_is_tried_first() -> None:
    echo = EchoResponder(0, LOOPBACK)
    echo.start()
    try:
        choice = detect_method("127.0.0.1", echo.port)
        summary = measure_idle(choice, seconds=0.3)
    finally:
        echo.stop()
    assert choice.method is LatencyMethod.UDP_ECHO and choice.server == "echo"
    assert (
        choice.sentence
        == f"Latency measured with LinkLab's UDP echo on 127.0.0.1 port {echo.port}."
    )
    assert choice.rtt_ms is not None and choice.rtt_ms > 0
    assert summary.method is LatencyMethod.UDP_ECHO and summary.received == summary.sent > 0


def test_netserver_without_echo(netserver_port: int) -> None:
    choice = detect_method("127.0.0.1", free_port(), servers(netserver_port, free_port()))
    assert choice.method is LatencyMethod.TCP_CONNECT and choice.server == "netserver"
    assert choice.sentence == (
        f"Latency measured by TCP connection time to netserver's port {netserver_port}, "
        f"since the peer has no LinkLab responder."
    )
    prober = make_prober(choice, duration_s=0.5)
    assert isinstance(prober, TcpConnectProber) and prober.interval_s == 0.1
    summary = prober.run()
    assert summary.method is LatencyMethod.TCP_CONNECT
    assert summary.received == summary.sent >= 4 and summary.median_ms is not None


def test_iperf3_when_nothing_else_answers(iperf3_server_port: tuple[int, LocalServer]) -> None:
    port, _ = iperf3_server_port
    choice = detect_method("127.0.0.1", free_port(), servers(free_port(), port))
    assert choice.method is LatencyMethod.TCP_CONNECT and choice.server == "iperf3"
    assert choice.sentence.endswith(
        f"the iperf3 server's port {port}, since the peer has no LinkLab responder and no "
        f"netserver."
    )
    assert make_prober(choice).interval_s == 0.2  # spaced out for iperf3


def test_nothing_answers_is_one_sentence() -> None:
    echo, ns, ip = free_port(), free_port(), free_port()
    with pytest.raises(NoLatencyMethod) as caught:
        detect_method("127.0.0.1", echo, servers(ns, ip), timeout_s=0.3)
    text = str(caught.value)
    assert f"no LinkLab responder answered on UDP port {echo}" in text
    assert f"no netserver accepted a connection on port {ns}" in text
    assert f"no iperf3 accepted a connection on port {ip}" in text
    assert "linklab serve" in text


def _run_in_thread(tool: Tool, port: int, seconds: int) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def client() -> None:
        try:
            out.append(
                start_iperf3(tool, Iperf3Options("127.0.0.1", port, duration_s=seconds)).run()
            )
        except EngineError as err:
            out.append(err)

    thread = threading.Thread(target=client)
    thread.start()
    return thread, out


def test_connection_probes_leave_a_running_iperf3_test_alone(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, server = iperf3_server_port
    thread, out = _run_in_thread(iperf3_tool, port, 3)
    while not any("connected to" in line for line in server.log):  # its stream is up
        assert thread.is_alive(), out
        time.sleep(0.05)
    summary = TcpConnectProber("127.0.0.1", port, interval_s=0.2, duration_s=1.2).run()
    thread.join(30)
    (result,) = out
    assert isinstance(result, RunResult), result
    assert result.throughput_bps and result.throughput_bps > 0
    assert summary.sent >= 5 and summary.received == summary.sent  # the handshakes still answer


def test_iperf3_test_right_after_idle_connection_probes(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    """The order a loaded measurement follows: idle probes, stop, then the test."""
    port, _ = iperf3_server_port
    idle = TcpConnectProber("127.0.0.1", port, interval_s=0.2, duration_s=0.6).run()
    assert idle.received == idle.sent > 0
    thread, out = _run_in_thread(iperf3_tool, port, 1)
    thread.join(30)
    assert isinstance(out[0], RunResult), out


def test_netperf_request_response_options(netperf_tool: Tool) -> None:
    opts = netperf_rr_options("192.0.2.1", 12866, duration_s=5)
    assert opts.test is NetperfTest.TCP_RR and not opts.cpu
    argv = build_argv(netperf_tool, opts)
    assert argv[argv.index("-t") + 1] == "TCP_RR" and "-c" not in argv
    assert argv[argv.index("-r") + 1] == "1,1"
    choice = MethodChoice(LatencyMethod.REQUEST_RESPONSE, "192.0.2.1", 12866, "netserver", "")
    with pytest.raises(ValueError, match="runs as its engine's test"):
        make_prober(choice)


def test_udp_prober_is_made_for_the_echo() -> None:
    choice = MethodChoice(LatencyMethod.UDP_ECHO, "127.0.0.1", 5200, "echo", "")
    prober = make_prober(choice, interval_s=0.02)
    assert isinstance(prober, UdpProber) and prober.interval_s == 0.02
