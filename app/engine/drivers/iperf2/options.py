"""What an iperf 2 run accepts: its limits, how the plan's engine settings become its options
(and where in the argv they go), and the sizes and rates it needs in LinkLab's terms."""

from __future__ import annotations

from app.engine.drivers.arguments import Absent, Argument, Arguments
from app.engine.drivers.limits import CONGESTION, DURATION, INTERVAL, TCP_LENGTH, Limits, Span

#: The smallest --bounceback message iperf 2 answers (its header: 64 bytes in 2.1, 68 in 2.2,
#: whose server never answers a 64-byte request); smaller ones hang.
MIN_BOUNCEBACK = 68


#: What UDP "as fast as it can" asks of iperf 2, which refuses -b 0: far above any link.
UNLIMITED_UDP = "100000M"


LIMITS = Limits(
    duration_s=DURATION,
    interval_s=INTERVAL,
    tcp_length=TCP_LENGTH,
    udp_length=Span(16, 65_507, "bytes"),
    window=Span(1024, 1024**3, "bytes"),
    parallel=Span(1, 128),
    bitrate_bps=Span(0, 10**14, "bit/s"),
    congestion=CONGESTION,  # -Z
)


def _rate(bitrate: int) -> list[str]:
    return [str(bitrate) if bitrate else UNLIMITED_UDP]


#: Where options go in the argv besides the rest at its end (where a bounceback run's go too):
#: a UDP run's pacing after -u, the streams' (how many, their socket buffer) after -l.
UDP, STREAMS = "udp", "streams"


#: The plan's engine settings as iperf 2 options, in the argv's order (the DSCP as the TOS
#: byte, --tos).
ARGUMENTS: Arguments = {
    "window": Argument("-w", place=STREAMS),
    "parallel": Argument("-P", unset=1, place=STREAMS),
    "bitrate": Argument("-b", _rate, place=UDP),
    "omit": Absent("{name} has no warm-up to leave out: a warm-up needs {engines}."),
    "congestion": Argument("-Z"),
    "dscp": Argument("--tos"),
}
