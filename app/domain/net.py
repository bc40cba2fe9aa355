"""The network words every layer uses: protocol, IP version, direction and flow of data."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Protocol(StrEnum):
    TCP = "tcp"
    UDP = "udp"


class IpVersion(IntEnum):
    V4 = 4
    V6 = 6


class Direction(StrEnum):
    """Which way the data flows, seen from the client (this computer)."""

    UP = "up"  # client sends, peer receives (iperf3 default)
    DOWN = "down"  # peer sends, client receives (iperf3 -R)
    BIDIR = "bidir"  # both at once (iperf3 --bidir)


#: Each direction as the window names it, and every report after it.
DIRECTION_WORDS = {
    Direction.UP: "Upload",
    Direction.DOWN: "Download",
    Direction.BIDIR: "Both at once",
}


class Flow(StrEnum):
    """One data flow inside a run: client to peer (up) or peer to client (down)."""

    UP = "up"
    DOWN = "down"
