"""The received rate of a UDP run whose iperf3 gives no receiver total: worked out, and said."""

from __future__ import annotations

import json

import pytest

from app.domain.net import Flow
from app.domain.results import Derivation, EngineMessage, FlowSummary, RunSummary
from app.engine.drivers.iperf3 import udp_totals
from app.engine.drivers.iperf3.parse_json import parse_stream
from tests.engine.engine_replay import ENGINE_OUTPUTS


def test_loss_counters_scale_the_senders_count() -> None:
    sent = FlowSummary(Flow.UP, sender_bps=10e6, sender_bytes=4000, lost_packets=1, packets=4)
    got = udp_totals.from_loss_counters(sent)
    assert got.receiver_bps == pytest.approx(7.5e6) and got.receiver_bytes == 3000
    assert got.receiver_derived is Derivation.LOSS_COUNTERS
    note = udp_totals.note(got)
    assert note is not None and "3 of 4 datagrams" in note and "7.50 Mbit/s" in note


@pytest.mark.parametrize(
    "flow",
    [
        FlowSummary(Flow.UP, sender_bps=10e6, receiver_bps=9e6, lost_packets=1, packets=4),
        FlowSummary(Flow.UP, sender_bps=10e6, lost_packets=0, packets=0),
        FlowSummary(Flow.UP, sender_bps=10e6, lost_packets=5, packets=4),
        FlowSummary(Flow.UP, sender_bps=10e6),
        FlowSummary(Flow.UP, lost_packets=1, packets=4),
    ],
)
def test_nothing_is_made_up(flow: FlowSummary) -> None:
    """A known receiver rate stays; counters that cannot give one leave it unknown."""
    assert udp_totals.from_loss_counters(flow) == flow
    assert udp_totals.note(flow) is None


@pytest.mark.skipif(
    not ENGINE_OUTPUTS.is_dir(), reason=f"the real engine outputs are not at {ENGINE_OUTPUTS}"
)
def test_a_receiving_end_adds_up_its_own_intervals() -> None:
    """A UDP -R run as iperf3 before 3.11 ends it (end.sum only): this end received, and its
    interval reports say how much. The run is iperf3 3.17's, with the later totals taken out."""
    lines = (ENGINE_OUTPUTS / "local-iperf3-3.17-linux-udp-reverse.jsonl").read_text(
        encoding="utf-8"
    )
    events = [json.loads(line) for line in lines.splitlines()]
    for event in events:
        if event["event"] == "end":
            del event["data"]["sum_sent"], event["data"]["sum_received"]
    parsed = list(parse_stream(json.dumps(event) for event in events))
    (summary,) = [e for e in parsed if isinstance(e, RunSummary)]
    (flow,) = summary.flows
    assert flow.flow is Flow.DOWN
    received = 2523136 + 2490368 + 2490368
    seconds = 1.0008629560470581 + 0.99999302625656128 + 1.0000209808349609
    assert flow.receiver_bytes == received
    assert flow.receiver_bps == pytest.approx(received * 8 / seconds)
    assert flow.receiver_derived is Derivation.INTERVALS
    assert flow.sender_bps == pytest.approx(20002237.761864953)  # the end.sum figure
    notes = [e.text for e in parsed if isinstance(e, EngineMessage)]
    assert any("added up from this end's interval reports" in note for note in notes)
