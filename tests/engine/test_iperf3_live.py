"""Real iperf3 runs on loopback: live intervals, Stop within a second, nothing left behind."""

from __future__ import annotations

import threading
import time

import pytest

from app.domain.net import Direction, Flow, IpVersion, Protocol
from app.domain.results import Sample
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.errors import StoppedByUser
from app.engine.process.servers import LocalServer
from app.engine.process.tools import Tool
from tests.conftest import engine_children

pytestmark = pytest.mark.usefixtures("no_engine_left")


@pytest.mark.parametrize("protocol", [Protocol.TCP, Protocol.UDP])
@pytest.mark.parametrize("ip", [IpVersion.V4, IpVersion.V6])
def test_loopback_run_reports_live(
    iperf3_tool: Tool,
    iperf3_server_port: tuple[int, LocalServer],
    protocol: Protocol,
    ip: IpVersion,
) -> None:
    port, _ = iperf3_server_port
    host = "127.0.0.1" if ip is IpVersion.V4 else "::1"
    opts = Iperf3Options(
        host=host,
        port=port,
        protocol=protocol,
        ip_version=ip,
        duration_s=2,
        interval_s=0.5,
        length=1408 if protocol is Protocol.UDP else None,
        bitrate_bps=200_000_000 if protocol is Protocol.UDP else None,
    )
    run = start_iperf3(iperf3_tool, opts)
    arrivals: list[float] = []
    for event in run.events():
        if isinstance(event, Sample):
            arrivals.append(time.monotonic())
    finished = time.monotonic()
    result = run.result
    assert result is not None
    # Intervals arrive while the run is going, not all at the end.
    assert len(arrivals) >= 3
    assert finished - arrivals[0] > 0.9
    assert result.throughput_bps is not None and result.throughput_bps > 1e6
    assert result.argv[0] == iperf3_tool.path and f"-{int(ip)}" in result.argv
    assert result.engine_version == iperf3_tool.version_string
    assert "sender" in result.raw_output or '"end"' in result.raw_output
    # This server reports a second each (iperf3 -s without -i), coarser than the client's
    # 0.5 s: the client's own samples stay, as many as the client's -i asked.
    assert not result.samples_revised and len(result.samples) >= 4
    assert all(s.sent_bps for s in result.samples)
    if protocol is Protocol.UDP:
        flow = result.flow(Flow.UP)
        assert flow is not None and flow.packets and flow.packets > 0
        assert flow.loss_pct is not None and flow.sender_bps is not None
        # The loopback is the whole test session's, shaped to 1 Gbit/s (tests/private_network.py):
        # an engine of another test process beside this one holds the sender back to a share of
        # it (60 Mbit/s beside one TCP run), so the rate proves -b, not the link: iperf3's pacing
        # never sends faster than -b, and without -b it sends UDP at 1 Mbit/s.
        assert 1.5e6 < flow.sender_bps <= 200e6 * 1.05
        # The receiver's count is the run's throughput, in the sender's unit: what was sent
        # less what was lost (the two count over durations a loopback's delay apart).
        received = flow.sender_bps * (1 - flow.loss_pct / 100)
        assert result.throughput_bps == pytest.approx(received, rel=0.05)


def test_download_and_parallel(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    down = start_iperf3(
        iperf3_tool,
        Iperf3Options(host="127.0.0.1", port=port, duration_s=1, direction=Direction.DOWN),
    ).run()
    assert down.flow(Flow.DOWN) is not None and down.flow(Flow.UP) is None
    assert "-R" in down.argv
    parallel = start_iperf3(
        iperf3_tool,
        Iperf3Options(host="127.0.0.1", port=port, duration_s=1, parallel=3, length=1408),
    ).run()
    assert ("-P", "3") == parallel.argv[parallel.argv.index("-P") :][:2]
    assert parallel.throughput_bps and parallel.throughput_bps > 1e6


def test_bidirectional(iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]) -> None:
    port, _ = iperf3_server_port
    result = start_iperf3(
        iperf3_tool,
        Iperf3Options(host="127.0.0.1", port=port, duration_s=1, direction=Direction.BIDIR),
    ).run()
    assert {f.flow for f in result.summary.flows} == {Flow.UP, Flow.DOWN}
    assert {s.flow for s in result.samples} == {Flow.UP, Flow.DOWN}


def test_json_mode_gives_rtt(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    result = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=1), live=False
    ).run()
    assert "-J" in result.argv
    assert result.summary.rtt_mean_ms is not None and result.summary.rtt_mean_ms > 0
    assert result.summary.cpu_local_pct is not None


def test_omitted_intervals_never_count(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    run = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=2, omit_s=1)
    )
    seen = [e for e in run.events() if isinstance(e, Sample)]
    assert any(s.omitted for s in seen)
    assert run.result is not None
    assert not any(s.omitted for s in run.result.samples)
    assert len(run.result.samples) == 2


def test_stop_ends_run_within_a_second(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    port, _ = iperf3_server_port
    run = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=60, interval_s=0.2)
    )
    outcome: dict[str, object] = {}
    first = threading.Event()

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
    assert first.wait(10), "no interval arrived"
    pid = run.pid
    asked = time.monotonic()
    run.cancel()
    worker.join(5)
    assert isinstance(outcome.get("error"), StoppedByUser)
    assert float(outcome["ended"]) - asked < 1.0  # type: ignore[arg-type]
    assert pid not in [p.pid for p in engine_children()]


def test_abandoned_iteration_ends_process(
    iperf3_tool: Tool, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    """A consumer that stops reading (closes the generator) must not leave iperf3 running."""
    port, _ = iperf3_server_port
    run = start_iperf3(
        iperf3_tool, Iperf3Options(host="127.0.0.1", port=port, duration_s=60, interval_s=0.2)
    )
    events = run.events()
    for event in events:
        if isinstance(event, Sample):
            break
    events.close()
    assert not engine_children(clients_only=True)
