"""`linklab measure` on UDP -J output that has no receiver total (iperf3 before 3.11: its
end.sum holds the sender's bytes with the receiver's loss counters): the received rate is said
as worked out from the sender's, never as a figure the receiver reported, and --json says
whose count its throughput is. Real outputs of iperf3 3.1.3, replayed through LinkLab's own
process and parsers as the engine printed them; real iperf3 3.12 for the receiver's own."""

from __future__ import annotations

import json
import sys

import pytest

from app.cli.engine_cmds import received_words
from app.domain.net import Flow
from app.domain.results import FlowSummary
from tests.conftest import linklab
from tests.engine.engine_replay import (
    ENGINE_OUTPUTS,
    HELP_3_1_3,
    UNKNOWN_OPTION,
    FakeEngine,
    Probe,
    Replay,
)

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="stand-in engines are shebang scripts"),
    pytest.mark.skipif(
        not ENGINE_OUTPUTS.is_dir(),
        reason=f"the real engine outputs are not beside the repository ({ENGINE_OUTPUTS})",
    ),
]

#: Two real UDP -J outputs of iperf3 3.1.3: none lost (the worked-out rate is the sender's to
#: the bit), and 60 of 441 datagrams lost.
NONE_LOST = "iperf3-3.1.3-linux-udp.json"
SOME_LOST = "local-iperf3-3.1.3-linux-udp.json"


def old_iperf3(folder: object, recording: str) -> str:
    return str(
        FakeEngine(
            [Replay(ENGINE_OUTPUTS / recording, ("-u", "-J"))],
            probes=[Probe(("--version",), "iperf 3.1.3\n"), Probe(("--help",), HELP_3_1_3)],
            rejects=["--connect-timeout", "--forceflush", "--json-stream", "--bidir"],
            reject_text=UNKNOWN_OPTION,
        ).write(folder)  # type: ignore[arg-type]
    )


def measure_udp(engine: str, *extra: str) -> str:
    done = linklab(
        *("measure", "--peer", "127.0.0.1", "--protocol", "udp", "--no-live", *extra),
        env={"LINKLAB_IPERF3": engine},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("recording", [NONE_LOST, SOME_LOST])
def test_a_received_rate_worked_out_from_the_senders_is_said_so(
    tmp_path: object, recording: str
) -> None:
    engine = old_iperf3(tmp_path, recording)
    document = json.loads((ENGINE_OUTPUTS / recording).read_text(encoding="utf-8"))
    assert "sum_received" not in document["end"]  # the output has no receiver total
    (line,) = [line for line in measure_udp(engine).splitlines() if line.startswith("    up:")]
    assert "received" in line
    assert "(worked out as the sender's rate for the datagrams not lost: the engine gave no " in (
        line
    )
    shown = json.loads(measure_udp(engine, "--json"))
    assert shown["throughput_of"] == "receiver, worked out from the loss counters"
    (flow,) = shown["flows"]
    total = document["end"]["sum"]
    kept = (total["packets"] - total["lost_packets"]) / total["packets"]
    assert flow["receiver_bps"] == pytest.approx(total["bits_per_second"] * kept)
    assert flow["sender_bps"] == pytest.approx(total["bits_per_second"])


def test_a_receivers_own_total_is_said_plainly(iperf3_server_port: tuple[int, object]) -> None:
    port = iperf3_server_port[0]
    done = linklab(
        *("measure", "--peer", "127.0.0.1", "--port", str(port), "--protocol", "udp"),
        *("--bitrate", "10M", "--duration", "1", "--no-live", "--json"),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["throughput_of"] == "receiver"  # iperf3 3.11+: its own


def test_a_flow_without_any_receiver_figure_is_never_said_as_received() -> None:
    udp = FlowSummary(Flow.UP, sender_bps=9.7e6, lost_packets=None, packets=441)
    assert received_words(udp).startswith("received: not reported (the engine gave only the ")
    assert received_words(FlowSummary(Flow.UP, sender_bps=9.7e6)) == "received: not reported"
