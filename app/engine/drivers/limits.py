"""What an engine's limits are (a span per setting) and the spans every engine shares. Each
engine's own Limits live in its driver (EngineDriver.limits); the engine's argv checks, the
plan checks, the window's fields and the command line's options all read them from there."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """An inclusive range of allowed values, with its unit as a user reads it."""

    low: float
    high: float
    unit: str = ""

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self) -> str:
        """'between 16 and 65507 bytes', 'between 1 and 1048576 bytes (1 MiB)'."""
        unit = f" {self.unit}" if self.unit else ""
        return f"between {_number(self.low)} and {_number(self.high)}{unit}{_binary(self)}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _binary(span: Span) -> str:
    """A byte limit that is a power of 1024 said as one: ' (1 MiB)'."""
    if span.unit != "bytes":
        return ""
    for name, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if span.high >= size and span.high % size == 0:
            return f" ({int(span.high // size)} {name})"
    return ""


@dataclass(frozen=True)
class Limits:
    """What one engine accepts. None: the engine has no such setting."""

    duration_s: Span
    interval_s: Span
    tcp_length: Span  # bytes per write (iperf3 -l) or message (netperf -m)
    udp_length: Span  # bytes per datagram
    window: Span | None = None  # socket buffer (iperf3 -w)
    parallel: Span | None = None  # streams (iperf3 -P)
    bitrate_bps: Span | None = None  # UDP target (iperf3 -b); 0 = unlimited
    omit_s: Span | None = None  # warm-up left out (iperf3 -O)
    congestion: Span | None = None  # TCP congestion control's name length (iperf3 -C)


#: A day per run: longer is a mistake, not a measurement.
DURATION = Span(1, 86_400, "s")
INTERVAL = Span(0.1, 60, "s")
TCP_LENGTH = Span(1, 1024 * 1024, "bytes")  # 1 MiB writes: larger only wastes memory
#: A congestion control's name, as Linux's TCP_CA_NAME_MAX allows it.
CONGESTION = Span(1, 15, "characters")
