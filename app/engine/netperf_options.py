"""Everything a netperf client run can be asked to do: its tests and its options."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import IpVersion, Protocol


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
