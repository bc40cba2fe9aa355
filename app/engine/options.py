"""Everything one engine run can be asked to do: iperf3 and netperf client options, and a
single run outside any plan as the command line's `measure` asks for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from app.domain.net import Direction, IpVersion, Protocol


class NetperfTest(StrEnum):
    TCP_STREAM = "TCP_STREAM"
    UDP_STREAM = "UDP_STREAM"
    TCP_RR = "TCP_RR"
    UDP_RR = "UDP_RR"

    @property
    def is_rr(self) -> bool:
        return self in (NetperfTest.TCP_RR, NetperfTest.UDP_RR)

    @property
    def protocol(self) -> Protocol:
        return Protocol.UDP if self.value.startswith("UDP") else Protocol.TCP


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


@dataclass(frozen=True)
class NetperfOptions:
    """One netperf client run: a stream test for throughput or a request/response test for RTT."""

    host: str
    port: int = 12865
    test: NetperfTest = NetperfTest.TCP_STREAM
    ip_version: IpVersion | None = None
    duration_s: int = 10
    message_size: int | None = None  # -m for *_STREAM, -r N,N for *_RR
    cpu: bool = True  # -c -C
    interval_s: float = 1.0  # -D interim results, for the live view
    congestion: str | None = None  # -K: TCP congestion control, here and at the netserver
    dscp: str | None = None  # -Y: the DSCP mark, here and at the netserver


@dataclass(frozen=True)
class SingleRun:
    """One run from the command line's `measure`: what every engine understands, and the
    options only some have (a driver takes those it knows and refuses the others)."""

    host: str
    port: int
    protocol: Protocol = Protocol.TCP
    ip_version: IpVersion | None = None
    duration_s: int = 5
    omit_s: int = 0
    interval_s: float = 1.0
    length: int | None = None
    window: int | None = None
    parallel: int = 1
    direction: Direction = Direction.UP
    bitrate_bps: int | None = None
    connect_timeout_ms: int | None = None
    bind_address: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False, compare=False)
    rsa_public_key_path: str | None = None
    test: str | None = None  # netperf's test (TCP_RR, …); None: the stream test
    live: bool = True
