"""Everything a netperf client run can be asked to do: what netperf accepts (its limits, how
the plan's engine settings become its options), its tests, the run's engine settings and what
only netperf is asked, and the options of its round trips as a latency method."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.domain.net import IpVersion, Protocol
from app.domain.run_settings import RunSettings
from app.engine.drivers.arguments import Absent, Argument, Arguments
from app.engine.drivers.limits import CONGESTION, DURATION, INTERVAL, TCP_LENGTH, Limits, Span

LIMITS = Limits(
    duration_s=DURATION,
    interval_s=INTERVAL,
    tcp_length=TCP_LENGTH,
    udp_length=Span(1, 65_507, "bytes"),
    congestion=CONGESTION,  # the omni tests' -K
)


def _both_ends(words: list[str]) -> list[str]:
    """One value for this end and the netserver's: "cubic,cubic"."""
    return [f"{words[0]},{words[0]}"]


def _hex(tos: int) -> list[str]:
    """A TOS byte as netperf's -Y reads it everywhere: in hexadecimal, "0xb8"."""
    return [f"{tos:#x}"]


#: Where the test options go: after the global ones' "--" (the rest are global options).
TEST = "test"


#: The plan's engine settings as netperf options, each taking this end's and the netserver's
#: value: -K a test option; -Y the TOS byte, a global one in netperf 2.7.
ARGUMENTS: Arguments = {
    "window": Absent("LinkLab sets the TCP window for iperf3 only: choose {engines} to set it."),
    "parallel": Absent("{name} runs one stream per test: parallel streams need {engines}."),
    "bitrate": Absent("{name} sends UDP as fast as it can: a target bitrate needs {engines}."),
    "omit": Absent("{name} has no warm-up to leave out: a warm-up needs {engines}."),
    "congestion": Argument("-K", lambda name: _both_ends([str(name)]), place=TEST),
    "dscp": Argument("-Y", lambda tos: _both_ends(_hex(tos))),
}


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


def netperf_rr_options(
    host: str,
    port: int = 12865,  # NetperfDriver.default_port
    duration_s: int = 10,
    ip_version: IpVersion | None = None,
    interval_s: float = 1.0,
) -> NetperfOptions:
    """netperf TCP_RR with one-byte requests and responses, no CPU measurement (its
    calibration would delay the start): the round trip is 1 / the transaction rate."""
    return NetperfOptions(
        host=host,
        port=port,
        test=NetperfTest.TCP_RR,
        ip_version=ip_version,
        duration_s=duration_s,
        message_size=1,
        cpu=False,
        interval_s=interval_s,
    )
