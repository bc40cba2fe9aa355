"""Everything a netperf client run can be asked to do: its tests, the run's engine settings
and what only netperf is asked."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import IpVersion, Protocol
from app.domain.run_settings import RunSettings


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


@dataclass(frozen=True, init=False)
class NetperfOptions:
    """One netperf client run, a stream test for throughput or a request/response test for
    RTT: the engine settings every engine shares (`settings`, as the plan-field table has
    them; the length is the message size) and netperf's own options."""

    host: str
    settings: RunSettings
    port: int = 12865
    test: NetperfTest = NetperfTest.TCP_STREAM
    ip_version: IpVersion | None = None
    cpu: bool = True  # -c -C
    interval_s: float = 1.0  # -D interim results, for the live view

    def __init__(
        self,
        host: str,
        port: int = 12865,
        test: NetperfTest = NetperfTest.TCP_STREAM,
        ip_version: IpVersion | None = None,
        duration_s: int = 10,
        message_size: int | None = None,  # -m for *_STREAM, -r N,N for *_RR
        cpu: bool = True,
        interval_s: float = 1.0,
        congestion: str | None = None,  # -K: TCP congestion control, here and at the netserver
        *,
        settings: RunSettings | None = None,
    ) -> None:
        """The engine settings come whole (`settings`, a plan's run) or one by one (a single
        run from the command line), not both: given whole, the ones by name are not read."""
        if settings is None:
            settings = RunSettings(
                duration_s=duration_s, length=message_size, congestion=congestion
            )
        own = {
            "host": host,
            "settings": settings,
            "port": port,
            "test": test,
            "ip_version": ip_version,
            "cpu": cpu,
            "interval_s": interval_s,
        }
        for name, value in own.items():
            # A frozen dataclass sets its fields this way in its own __init__ too.
            object.__setattr__(self, name, value)
