"""Real netperf runs on loopback against a netserver this test starts: live interim samples,
typed failures, and no netperf left behind."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from app.domain.net import Flow, IpVersion
from app.domain.results import EngineMessage, Sample
from app.engine.drivers.netperf.driver import start_netperf
from app.engine.drivers.netperf.errors import NoNetserver
from app.engine.drivers.netperf.options import NetperfOptions, NetperfTest
from app.engine.drivers.netperf.server import netserver
from app.engine.drivers.registry import find_tool
from app.engine.errors import ConnectTimeout, EngineMissing, StoppedByUser
from app.engine.process.servers import ServerOptions
from app.engine.process.tools import Tool
from tests.conftest import engine_children, engine_name, free_port

pytestmark = pytest.mark.netperf


def _tool(name: str) -> Tool:
    try:
        return find_tool(name)
    except EngineMissing as err:
        pytest.skip(f"{name} is not installed, so real netperf runs cannot be tested: {err}")


@pytest.fixture(scope="module")
def netperf() -> Tool:
    return _tool("netperf")


@pytest.fixture(scope="module")
def netserver_port() -> Iterator[int]:
    """A netserver this module owns, run by LinkLab's own server code."""
    port = free_port()
    server = netserver(_tool("netserver"), ServerOptions(port))
    server.start()
    try:
        yield port
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def no_netperf_left() -> Iterator[None]:
    yield
    left = [p for p in engine_children(clients_only=True) if engine_name(p.name()) == "netperf"]
    assert not left, f"netperf left running: {[p.pid for p in left]}"


@pytest.mark.parametrize(
    "test",
    [NetperfTest.TCP_STREAM, NetperfTest.UDP_STREAM, NetperfTest.TCP_RR, NetperfTest.UDP_RR],
)
@pytest.mark.parametrize("ip", [IpVersion.V4, IpVersion.V6])
def test_loopback_run_reports_live(
    netperf: Tool, netserver_port: int, test: NetperfTest, ip: IpVersion
) -> None:
    host = "127.0.0.1" if ip is IpVersion.V4 else "::1"
    opts = NetperfOptions(
        host=host,
        port=netserver_port,
        test=test,
        ip_version=ip,
        duration_s=3,
        message_size=1408,
        interval_s=0.5,
    )
    run = start_netperf(netperf, opts)
    arrivals: list[float] = []
    messages: list[str] = []
    for event in run.events():
        if isinstance(event, Sample):
            arrivals.append(time.monotonic())
        elif isinstance(event, EngineMessage):
            messages.append(event.text)
    finished = time.monotonic()
    result = run.result
    assert result is not None
    # Interim samples arrive while netperf is still running, not all at the end (netperf's
    # first request/response interim may take up to ~1.7 s: the runs last 3 s).
    assert arrivals, "no interim sample arrived"
    assert finished - arrivals[0] > 0.25
    assert len(result.samples) >= 2
    assert any("AF_INET6" if ip is IpVersion.V6 else "AF_INET " in m for m in messages)
    assert result.argv[0] == netperf.path and f"-{int(ip)}" in result.argv
    assert result.engine == "netperf" and result.engine_version == netperf.version_string
    assert "THROUGHPUT_UNITS=" in result.raw_output
    summary = result.summary
    if test.is_rr:
        assert summary.transactions_per_s is not None and summary.transactions_per_s > 0
        assert summary.rtt_mean_ms is not None and summary.rtt_mean_ms > 0
        assert all(s.rtt_ms is not None and s.rtt_ms > 0 for s in result.samples)
    else:
        assert result.throughput_bps is not None and result.throughput_bps > 0
        assert all(s.sent_bps and s.sent_bps > 0 for s in result.samples)
        flow = result.flow(Flow.UP)
        assert flow is not None and flow.sender_bps and flow.receiver_bps
        if test is NetperfTest.UDP_STREAM:
            assert flow.packets and flow.packets > 0
            assert flow.loss_pct is not None and 0 <= flow.loss_pct <= 100
    for cpu in (summary.cpu_local_pct, summary.cpu_remote_pct):
        assert cpu is None or 0 <= cpu <= 100


def test_no_netserver_there(netperf: Tool) -> None:
    port = free_port()
    opts = NetperfOptions(host="127.0.0.1", port=port, ip_version=IpVersion.V4, duration_s=1)
    started = time.monotonic()
    with pytest.raises(NoNetserver) as info:
        start_netperf(netperf, opts).run()
    assert time.monotonic() - started < 10
    assert str(info.value) == NoNetserver("127.0.0.1", port).sentence
    assert f"No netserver answered at 127.0.0.1 port {port}" in str(info.value)
    assert info.value.detail is not None and "establish control" in info.value.detail


def test_stop_ends_netperf_within_a_second(netperf: Tool, netserver_port: int) -> None:
    opts = NetperfOptions(host="127.0.0.1", port=netserver_port, duration_s=60, interval_s=0.5)
    run = start_netperf(netperf, opts)
    first = threading.Event()
    outcome: dict[str, object] = {}

    def consume() -> None:
        try:
            for event in run.events():
                if isinstance(event, Sample):
                    first.set()
        except StoppedByUser as err:
            outcome["error"] = err
        outcome["ended"] = time.monotonic()

    worker = threading.Thread(target=consume)
    worker.start()
    assert first.wait(15), "no interim result arrived"
    asked = time.monotonic()
    run.cancel()
    worker.join(5)
    assert isinstance(outcome.get("error"), StoppedByUser)
    assert float(outcome["ended"]) - asked < 1.0  # type: ignore[arg-type]


def test_a_listener_that_never_answers_is_no_vanished_peer(netperf: Tool) -> None:
    """As found: netperf against a port where something accepts and never answers ended as
    "stopped answering … in the middle of the run", though the run never started."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # the kernel completes the handshake; nobody ever answers
        port = silent.getsockname()[1]
        opts = NetperfOptions(host="127.0.0.1", port=port, duration_s=2, interval_s=0.1)
        run = start_netperf(netperf, opts)
        with pytest.raises(ConnectTimeout) as info:
            run.run()
    assert f"No answer from 127.0.0.1 on port {port}" in str(info.value)
    assert "in the middle of the run" not in str(info.value)
    assert not engine_children(clients_only=True)
