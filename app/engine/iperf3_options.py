"""Everything an iperf3 client run can be asked to do."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.domain.net import Direction, IpVersion, Protocol


@dataclass(frozen=True)
class Iperf3Options:
    """Everything an iperf3 client run can be asked to do."""

    host: str
    port: int = 5201
    protocol: Protocol = Protocol.TCP
    ip_version: IpVersion | None = None
    duration_s: int = 10
    omit_s: int = 0
    interval_s: float = 1.0
    length: int | None = None  # -l, bytes per write (packet size for UDP)
    window: int | None = None  # -w, socket buffer bytes
    parallel: int = 1  # -P
    direction: Direction = Direction.UP
    bitrate_bps: int | None = None  # -b; 0 = unlimited; None = iperf3's default
    congestion: str | None = None  # -C: TCP congestion control
    dscp: str | None = None  # -S: the DSCP mark, as the plan keeps it ("VO", "46")
    connect_timeout_ms: int | None = 8000
    bind_address: str | None = None
    username: str | None = None
    # Reaches iperf3 only through its IPERF3_PASSWORD environment variable.
    password: str | None = field(default=None, repr=False, compare=False)
    rsa_public_key_path: str | None = None
