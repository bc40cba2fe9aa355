"""What a shaped link between namespaces carried during a run, counted by the kernel rather
than by the engine: the bytes tc tbf let through on the sender's interface (as the overhead
model counts them: each packet's 14-byte Ethernet header and IP packet, every segment of a
GSO packet with its own headers) and the datagrams the receiver's UDP sockets dropped for want
of room (/proc/net/snmp's RcvbufErrors of its namespace).

On a busy computer an engine's sender or receiver waits for a core: the link then stands idle
for a moment, the receiver's socket overflows, or the receiver ends its test and closes its
socket before the datagrams still on their way arrive (the kernel answers them "no port").
None is the link's doing, and the counts say how much of each there was (the datagrams the
receiver's programs read: /proc/net/snmp's InDatagrams, counted as a program reads one), so
that a test of the overhead model can compare a run with what the link could deliver in the
time it was kept busy, read by the receiver."""

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


#: The UDP counters of /proc/net/snmp (IPv4) and /proc/net/snmp6 (IPv6) a Carried reads.
_UDP = ("InDatagrams", "NoPorts", "RcvbufErrors")


def udp_counters(ns: str) -> dict[str, int]:
    """ns's UDP counters so far, IPv4 and IPv6 together: the datagrams its programs have read
    (InDatagrams), those that met no open socket (NoPorts) and those its sockets dropped for
    want of room (RcvbufErrors)."""
    lines = subprocess.run(
        ["ip", "netns", "exec", ns, "cat", "/proc/net/snmp", "/proc/net/snmp6"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    ).stdout.splitlines()
    names, values = [line.split()[1:] for line in lines if line.startswith("Udp:")]
    counts = {name: int(values[names.index(name)]) for name in _UDP}
    for line in lines:
        name, _, value = line.partition(" ")
        if name.removeprefix("Udp6") in _UDP and name.startswith("Udp6"):
            counts[name.removeprefix("Udp6")] += int(value)
    return counts


def udp_drops(ns: str) -> int:
    """The datagrams UDP sockets in ns have dropped for want of room, so far."""
    return udp_counters(ns)["RcvbufErrors"]


@dataclass
class Carried:
    """The counts between the start and the end of a `with carried(...)` block."""

    wire_bytes: int = 0
    packets: int = 0
    shaper_drops: int = 0  # the shaper holds a sender back: it should drop nothing
    received: int = 0  # UDP datagrams the receiver's programs read
    receiver_drops: int = 0  # dropped by a full socket
    no_port: int = 0  # arrived after the receiver closed its socket

    def share(self, rate_mbit: float, seconds: float) -> float:
        """The part of the model's goodput the link could deliver in this run: the part of its
        seconds the shaper was kept busy, times the part of what it sent the receiver read
        (for a UDP run; what a TCP receiver misses is sent again)."""
        busy = self.wire_bytes * 8 / (rate_mbit * 1e6 * seconds)
        read = min(1.0, self.received / self.packets) if self.received and self.packets else 1.0
        return busy * read


@contextmanager
def carried(sender_ns: str, dev: str, receiver_ns: str) -> Iterator[Carried]:
    """Count what dev (the sender's shaped interface) carries while the block runs."""
    counts = Carried()
    sent0, packets0, dropped0 = _counts(sender_ns, dev)
    udp0 = udp_counters(receiver_ns)
    yield counts
    sent1, packets1, dropped1 = _counts(sender_ns, dev)
    udp1 = udp_counters(receiver_ns)
    counts.wire_bytes, counts.packets = sent1 - sent0, packets1 - packets0
    counts.shaper_drops = dropped1 - dropped0
    counts.received = udp1["InDatagrams"] - udp0["InDatagrams"]
    counts.receiver_drops = udp1["RcvbufErrors"] - udp0["RcvbufErrors"]
    counts.no_port = udp1["NoPorts"] - udp0["NoPorts"]
