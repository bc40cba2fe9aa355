"""Physical bounds every figure from an engine must keep before a run may be stored."""

from __future__ import annotations

import math
from dataclasses import fields

from app.domain.results import FlowSummary, RunSummary, Sample

#: Faster than any link an engine on a desktop can drive, by orders of magnitude.
MAX_BPS = 10e12

#: Field name -> (what it is, unit, largest possible value). Every numeric field of Sample,
#: FlowSummary and RunSummary is listed (a test holds to that), so none goes unchecked.
LIMITS: dict[str, tuple[str, str, float]] = {
    "start_s": ("interval time", "s", math.inf),
    "end_s": ("interval time", "s", math.inf),
    "sent_bps": ("throughput", "bit/s", MAX_BPS),
    "received_bps": ("throughput", "bit/s", MAX_BPS),
    "sender_bps": ("throughput", "bit/s", MAX_BPS),
    "receiver_bps": ("throughput", "bit/s", MAX_BPS),
    "bytes": ("byte count", "bytes", math.inf),
    "sender_bytes": ("byte count", "bytes", math.inf),
    "receiver_bytes": ("byte count", "bytes", math.inf),
    "retransmits": ("retransmit count", "", math.inf),
    "cwnd_bytes": ("congestion window", "bytes", math.inf),
    "rtt_ms": ("round-trip time", "ms", math.inf),
    "rtt_mean_ms": ("round-trip time", "ms", math.inf),
    "rtt_min_ms": ("round-trip time", "ms", math.inf),
    "rtt_max_ms": ("round-trip time", "ms", math.inf),
    "jitter_ms": ("jitter", "ms", math.inf),
    "lost_packets": ("lost datagram count", "", math.inf),
    "packets": ("datagram count", "", math.inf),
    "loss_pct": ("loss", "%", 100.0),
    # Not capped at 100 %: iperf3 adds up the CPU time of all its threads.
    "cpu_local_pct": ("CPU load", "%", math.inf),
    "cpu_remote_pct": ("CPU load", "%", math.inf),
    "transactions_per_s": ("transaction rate", "per second", math.inf),
}


def impossible(item: Sample | FlowSummary | RunSummary) -> tuple[str, str] | None:
    """(what, value with its unit) for the first figure out of bounds, or None when all fit."""
    for spec in fields(item):
        value = getattr(item, spec.name)
        if isinstance(value, tuple):
            for flow in value:
                if isinstance(flow, FlowSummary) and (found := impossible(flow)) is not None:
                    return found
            continue
        if spec.name not in LIMITS or value is None or isinstance(value, bool):
            continue
        what, unit, largest = LIMITS[spec.name]
        if not isinstance(value, int | float):
            return what, repr(value)
        if not (math.isfinite(value) and 0 <= value <= largest):
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            return what, f"{shown} {unit}".rstrip()
    lost, packets = getattr(item, "lost_packets", None), getattr(item, "packets", None)
    if isinstance(lost, int) and isinstance(packets, int) and lost > packets:
        return "loss", f"{lost} of {packets} datagrams"
    return None
