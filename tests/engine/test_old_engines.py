"""Engines older or other than the ones LinkLab is built with: iperf3 3.1.x (no --connect-timeout,
no --forceflush), netperf built without demo mode, iperf3 3.0.x, and iperf 2 under iperf3's
name. Stand-ins answer the probes as those releases do and replay their real output."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.domain.net import Flow, Protocol
from app.domain.results import Derivation, EngineMessage
from app.engine.drivers.iperf3.driver import start_iperf3
from app.engine.drivers.iperf3.errors import NotIperf3
from app.engine.drivers.iperf3.options import Iperf3Options
from app.engine.drivers.netperf.driver import idle_timeout_s, netperf_capabilities, start_netperf
from app.engine.drivers.netperf.options import NetperfOptions
from app.engine.drivers.registry import find_tool
from app.engine.errors import EngineTooOld
from app.engine.process.tools import Capability, Tool
from tests.engine.engine_replay import ENGINE_OUTPUTS, FakeEngine, Probe, Replay, iperf3_3_1_3

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
    pytest.mark.usefixtures("no_engine_left"),
]
needs_outputs = pytest.mark.skipif(
    not ENGINE_OUTPUTS.is_dir(),
    reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
)

NO_DEMO_PROBE = (
    "Sorry, Demo Mode not configured into this netperf.\n"
    "Please consider reconfiguring netperf with\n"
    "--enable-demo=yes and recompiling\n"
    "Netperf version 2.7.0\n"
)


@needs_outputs
def test_iperf3_3_1_is_probed_without_the_newer_flags(tmp_path: Path) -> None:
    tool = find_tool("iperf3", iperf3_3_1_3(tmp_path))
    assert tool.version == (3, 1, 3)
    for newer in (Capability.CONNECT_TIMEOUT, Capability.FORCEFLUSH, Capability.JSON_STREAM):
        assert not tool.has(newer)
    assert tool.has(Capability.ONE_OFF)


@needs_outputs
@pytest.mark.parametrize("protocol", [Protocol.UDP, Protocol.TCP])
def test_iperf3_3_1_runs(tmp_path: Path, protocol: Protocol) -> None:
    """LinkLab's usual options (a connect timeout, live output) on a release without them:
    the flags it lacks are left out, and -J stands in for live text it cannot flush."""
    tool = find_tool("iperf3", iperf3_3_1_3(tmp_path))
    opts = Iperf3Options(host="127.0.0.1", protocol=protocol, duration_s=3, bitrate_bps=10**7)
    assert opts.connect_timeout_ms is not None
    run = start_iperf3(tool, opts)
    assert "--connect-timeout" not in run.argv and "--forceflush" not in run.argv
    assert "-J" in run.argv
    assert run.idle_timeout_s >= opts.settings.duration_s  # no output until the end
    events = list(run.events())
    notes = [e.text for e in events if isinstance(e, EngineMessage)]
    assert any("live samples are not available" in note for note in notes)
    result = run.result
    assert result is not None and result.engine_version == "3.1.3"
    flow = result.flow(Flow.UP)
    assert flow is not None
    if protocol is Protocol.UDP:
        # The sender's 9.70 Mbit/s is not what arrived: 60 of 441 datagrams were lost.
        assert flow.sender_bps == pytest.approx(9697822.025529)
        assert flow.receiver_bps == pytest.approx(9697822.025529 * 381 / 441)
        assert flow.receiver_derived is Derivation.LOSS_COUNTERS
        assert flow.loss_pct == pytest.approx(13.605442)
        assert any("worked out from the loss counters" in note for note in notes)
    else:
        assert result.throughput_bps == pytest.approx(388736097.120548)
        assert result.summary.rtt_mean_ms == pytest.approx(10.175)


@needs_outputs
def test_an_option_the_engine_refuses_says_so(tmp_path: Path) -> None:
    """Were a flag passed that the engine lacks, its refusal reads as such, not as a crash."""
    tool = find_tool("iperf3", iperf3_3_1_3(tmp_path))
    misprobed = type(tool)(
        tool.name,
        tool.path,
        tool.version,
        tool.version_text,
        tool.source,
        tool.capabilities | {Capability.CONNECT_TIMEOUT},
    )
    run = start_iperf3(misprobed, Iperf3Options(host="127.0.0.1", duration_s=1))
    with pytest.raises(EngineTooOld) as info:
        run.run()
    assert "does not know an option" in str(info.value)
    assert "--connect-timeout" in str(info.value)


def test_iperf3_3_0_is_refused_by_the_probe(tmp_path: Path) -> None:
    script = FakeEngine([], probes=[Probe(("--version",), "iperf 3.0.7\n")]).write(tmp_path)
    with pytest.raises(EngineTooOld, match=r"iperf3 3\.0\.7 .* is too old"):
        find_tool("iperf3", str(script))


def test_iperf_2_is_refused_by_the_probe(tmp_path: Path) -> None:
    version = "iperf version 2.0.13 (21 Jan 2019) pthreads\n"
    script = FakeEngine([], probes=[Probe(("--version",), version)]).write(tmp_path)
    with pytest.raises(NotIperf3) as info:
        find_tool("iperf3", str(script))
    assert "is iperf 2" in str(info.value) and "install iperf3" in str(info.value)


def netperf_without_demo(folder: Path) -> str:
    recording = ENGINE_OUTPUTS / "local-netperf-2.7.0-nodemo-tcp_stream-20s-keyval.txt"
    return str(
        FakeEngine(
            [Replay(recording, ("-t", "TCP_STREAM"))],
            probes=[
                Probe(("-D", "-V"), NO_DEMO_PROBE),
                Probe(("-V",), "Netperf version 2.7.0\n"),
            ],
            name="netperf",
        ).write(folder)
    )


@needs_outputs
def test_netperf_demo_mode_is_probed(tmp_path: Path) -> None:
    tool = find_tool("netperf", netperf_without_demo(tmp_path))
    assert tool.version == (2, 7, 0) and tool.version_text == "Netperf version 2.7.0"
    assert not tool.has(Capability.INTERIM)
    assert netperf_capabilities("Netperf version 2.7.0\n") == {Capability.INTERIM}


@needs_outputs
def test_netperf_without_demo_mode_waits_for_the_end(tmp_path: Path) -> None:
    """It prints nothing until it exits: a 20 s run must not count as a vanished peer."""
    tool = find_tool("netperf", netperf_without_demo(tmp_path))
    opts = NetperfOptions(host="127.0.0.1", duration_s=20, interval_s=1.0)
    run = start_netperf(tool, opts)
    assert "-D" not in run.argv
    assert run.idle_timeout_s == opts.settings.duration_s + idle_timeout_s(opts)
    assert idle_timeout_s(opts) < opts.settings.duration_s  # what a demo-mode run allows
    events = list(run.events())
    notes = [e.text for e in events if isinstance(e, EngineMessage)]
    assert "live samples are not available" in notes[0]
    assert run.result is not None and not run.result.samples
    assert run.result.throughput_bps == pytest.approx(17028.13e6)


def test_installed_netperf_has_demo_mode(netperf_tool: Tool) -> None:
    """Debian's netperf is built with demo mode; the probe must not lose it."""
    assert netperf_tool.has(Capability.INTERIM)
    assert netperf_tool.version >= (2, 5)
