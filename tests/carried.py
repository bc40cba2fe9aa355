"""What a shaped link between namespaces carried during a run, counted by the kernel rather
than by the engine: the bytes tc tbf let through on the sender's interface (as the overhead
model counts them: each packet's 14-byte Ethernet header and IP packet, every segment of a
GSO packet with its own headers) and the datagrams the receiver's UDP sockets dropped for want
of room (/proc/net/snmp's RcvbufErrors of its namespace).

On a busy computer an engine's sender or receiver waits for a core: the link then stands idle
for a moment, or the receiver's socket overflows. Neither is the link's doing, and the counts
say how much of each there was, so that a test of the overhead model can compare a run with
what the link could deliver in the time it was kept busy."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

_SENT = re.compile(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+)")


def _counts(ns: str, dev: str) -> tuple[int, int, int]:
    """(bytes, packets, dropped) that the root qdisc of dev in ns has sent so far."""
    out = subprocess.run(
        ["tc", "-n", ns, "-s", "qdisc", "show", "dev", dev, "root"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    ).stdout
    found = _SENT.search(out)
    assert found is not None, out
    sent, packets, dropped = map(int, found.groups())
    return sent, packets, dropped


def udp_drops(ns: str) -> int:
    """The datagrams UDP sockets in ns have dropped for want of room, so far."""
    out = subprocess.run(
        ["ip", "netns", "exec", ns, "cat", "/proc/net/snmp"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    ).stdout
    names, values = [line.split()[1:] for line in out.splitlines() if line.startswith("Udp:")]
    return int(values[names.index("RcvbufErrors")])


@dataclass
class Carried:
    """The counts between the start and the end of a `with carried(...)` block."""

    wire_bytes: int = 0
    packets: int = 0
    shaper_drops: int = 0  # the shaper holds a sender back: it should drop nothing
    receiver_drops: int = 0

    def share(self, rate_mbit: float, seconds: float) -> float:
        """The part of the model's goodput the link could deliver in this run: the part of its
        seconds the shaper was kept busy, less the datagrams the receiver dropped."""
        busy = self.wire_bytes * 8 / (rate_mbit * 1e6 * seconds)
        delivered = 1 - self.receiver_drops / self.packets if self.packets else 1.0
        return busy * delivered


@contextmanager
def carried(sender_ns: str, dev: str, receiver_ns: str) -> Iterator[Carried]:
    """Count what dev (the sender's shaped interface) carries while the block runs."""
    counts = Carried()
    sent0, packets0, dropped0 = _counts(sender_ns, dev)
    drops0 = udp_drops(receiver_ns)
    yield counts
    sent1, packets1, dropped1 = _counts(sender_ns, dev)
    counts.wire_bytes, counts.packets = sent1 - sent0, packets1 - packets0
    counts.shaper_drops = dropped1 - dropped0
    counts.receiver_drops = udp_drops(receiver_ns) - drops0
