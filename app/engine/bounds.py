"""Physical bounds every figure from an engine must keep before a run may be stored."""

from __future__ import annotations

import math
from dataclasses import fields

from app.domain.results import FlowSummary, RunSummary, Sample
from app.domain.units import plain_rate

#: Faster than any link an engine on a desktop can drive, by orders of magnitude.
MAX_BPS = 10e12
#: Longer than any run lasts: the longest run a plan allows (a day) with its warm-up, waits
#: and retries, several times over.
MAX_SECONDS = 7 * 86_400.0

#: Field name -> (what it is, unit, largest possible value). Every numeric field of Sample,
#: FlowSummary and RunSummary is listed (a test holds to that), so none goes unchecked.
LIMITS: dict[str, tuple[str, str, float]] = {
    "start_s": ("interval time", "s", MAX_SECONDS),
    "end_s": ("interval time", "s", MAX_SECONDS),
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
    # Ten minutes: far beyond any path, yet an offset between clocks stays within it.
    "owd_ms": ("one-way delay", "ms", 600_000.0),
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


_SAME_NAMES = (
    "retransmits", "rtt_mean_ms", "rtt_min_ms", "rtt_max_ms", "jitter_ms", "lost_packets",
    "packets", "loss_pct", "cpu_local_pct", "cpu_remote_pct", "transactions_per_s", "owd_ms",
)  # fmt: skip

#: The same bounds for the figures a stored run keeps (RunMetrics by field name, and the
#: run's elapsed time): what an import checks and what a read of the database trusts.
RUN_LIMITS: dict[str, tuple[str, str, float]] = {
    "throughput_bps": LIMITS["received_bps"],
    "sender_bps": LIMITS["sender_bps"],
    "receiver_bps": LIMITS["receiver_bps"],
    "bytes_sent": LIMITS["sender_bytes"],
    "bytes_received": LIMITS["receiver_bytes"],
    **{name: LIMITS[name] for name in _SAME_NAMES},
    "cpu_host_mean_pct": LIMITS["cpu_local_pct"],
    "cpu_host_peak_pct": LIMITS["cpu_local_pct"],
    "latency_idle_ms": LIMITS["rtt_ms"],
    "latency_ms": LIMITS["rtt_ms"],
    "latency_p90_ms": LIMITS["rtt_ms"],
    "latency_loss_pct": LIMITS["loss_pct"],
    "elapsed_s": ("run time", "s", MAX_SECONDS),
    # A sample's one rate in exchange files of format 1 (now sent_bps and received_bps).
    "bits_per_second": LIMITS["sent_bps"],
}


def beyond(name: str, value: object) -> tuple[str, str] | None:
    """(what, value with its unit) when a figure named in LIMITS or RUN_LIMITS is not a
    number within its bounds; None when it fits (or is missing, or has no bounds)."""
    limit = RUN_LIMITS.get(name) or LIMITS.get(name)
    if limit is None or value is None:
        return None
    what, unit, largest = limit
    if isinstance(value, bool) or not isinstance(value, int | float):
        return what, repr(value)[:40]
    try:
        fits = math.isfinite(value) and 0 <= value <= largest
    except OverflowError:  # an integer beyond any float
        fits = False
    if fits:
        return None
    shown = f"{value:g}" if isinstance(value, float) else str(value)[:40]
    return what, f"{shown} {unit}".rstrip()


def limit(name: str) -> str:
    """The bounds of a figure in words: 'from 0 to 100 %', 'from 0 to 1e+13 bit/s'."""
    _, unit, largest = RUN_LIMITS.get(name) or LIMITS[name]
    if math.isinf(largest):
        return "0 or more, finite"
    if unit == "bit/s":
        return f"from 0 to {plain_rate(largest)}"
    return f"from 0 to {largest:g} {unit}".rstrip()
