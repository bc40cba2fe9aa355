"""What a UDP receiver got, when an older iperf3 says only what was sent and what was lost.

Before 3.11, iperf3's -J output has no receiver total for UDP (`end.sum` holds the sender's
bytes with the receiver's loss counters), and before 3.2 the text summary is one line of the
same mix. The sender's rate is not what crossed the link, so the received rate is worked out:
from the receiver's own interval reports when this end received, else from the loss counters.
"""

from __future__ import annotations

from dataclasses import replace

from app.domain.results import Derivation, FlowSummary
from app.domain.units import format_rate


def from_loss_counters(flow: FlowSummary) -> FlowSummary:
    """The flow with receiver figures scaled from the sender's by the datagrams that arrived;
    unchanged when the receiver's figures are known or the counters do not allow it."""
    lost, packets = flow.lost_packets, flow.packets
    if flow.receiver_bps is not None or flow.sender_bps is None:
        return flow
    if lost is None or not packets or lost > packets:
        return flow
    kept = (packets - lost) / packets
    received = round(flow.sender_bytes * kept) if flow.sender_bytes is not None else None
    return replace(
        flow,
        receiver_bps=flow.sender_bps * kept,
        receiver_bytes=received,
        receiver_derived=Derivation.LOSS_COUNTERS,
    )


def from_intervals(flow: FlowSummary, received_bytes: int, seconds: float) -> FlowSummary:
    """The flow with the receiver's figures added up from its interval reports."""
    if flow.receiver_bps is not None or seconds <= 0:
        return flow
    return replace(
        flow,
        receiver_bps=received_bytes * 8 / seconds,
        receiver_bytes=received_bytes,
        receiver_derived=Derivation.INTERVALS,
    )


def note(flow: FlowSummary) -> str | None:
    """One sentence for the run's log saying how a derived received rate was found."""
    rate = format_rate(flow.receiver_bps)
    lead = "iperf3 gave no receiver total for this UDP run (releases before 3.11 do not)"
    if flow.receiver_derived is Derivation.LOSS_COUNTERS:
        lost, packets = flow.lost_packets or 0, flow.packets or 0
        return (
            f"{lead}: the received rate, {rate}, is worked out from the loss counters, as the "
            f"sender's {format_rate(flow.sender_bps)} for the {packets - lost} of {packets} "
            f"datagrams that arrived."
        )
    if flow.receiver_derived is Derivation.INTERVALS:
        return f"{lead}: the received rate, {rate}, is added up from this end's interval reports."
    return None
