"""Everything an iperf3 client run can be asked to do: what iperf3 accepts (its limits, how the
plan's engine settings become its options), the run's engine settings and what only iperf3 is
asked."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.run_settings import RunSettings
from app.engine.drivers.arguments import Argument, Arguments
from app.engine.drivers.limits import CONGESTION, DURATION, INTERVAL, TCP_LENGTH, Limits, Span

#: How long iperf3 waits for the server before giving up (ms); older iperf3 lack the option
#: and the silence watchdog stands in.
CONNECT_TIMEOUT_MS_DEFAULT = 8000


LIMITS = Limits(
    duration_s=DURATION,
    interval_s=INTERVAL,
    tcp_length=TCP_LENGTH,
    # iperf3 refuses UDP datagrams below 16 bytes (its sequence number and timestamp need
    # them); 65507 is the largest UDP payload over IPv4.
    udp_length=Span(16, 65_507, "bytes"),
    window=Span(1024, 1024**3, "bytes"),
    parallel=Span(1, 128),
    bitrate_bps=Span(0, 10**14, "bit/s"),
    omit_s=Span(0, 600, "s"),
    congestion=CONGESTION,
)


#: iperf3's --connect-timeout bounds (ms).
CONNECT_TIMEOUT_MS = Span(100, 600_000, "ms")


#: Where the options of the streams (how many, their socket buffer) go: before the direction.
STREAMS = "streams"


PASSWORD_ENV = "IPERF3_PASSWORD"  # noqa: S105 - a variable name; iperf3 reads the authentication password from here


#: The plan's engine settings as iperf3 options, in the argv's order: the streams' before the
#: direction, the rest after it. The DSCP goes as the TOS byte (-S, in every iperf3 LinkLab
#: takes; --dscp came in 3.2), which iperf3 also hands its server for a download.
ARGUMENTS: Arguments = {
    "window": Argument("-w", place=STREAMS),
    "parallel": Argument("-P", unset=1, place=STREAMS),
    "bitrate": Argument("-b"),
    "omit": Argument("-O", unset=0),
    "congestion": Argument("-C"),
    "dscp": Argument("-S"),
}


@dataclass(frozen=True, init=False)
class Iperf3Options:
    """One iperf3 client run: the engine settings every engine shares (`settings`, as the
    plan-field table has them) and iperf3's own options."""

    host: str
    settings: RunSettings
    port: int = 5201
    protocol: Protocol = Protocol.TCP
    ip_version: IpVersion | None = None
    omit_s: int = 0  # -O
    interval_s: float = 1.0
    direction: Direction = Direction.UP
    connect_timeout_ms: int | None = 8000
    bind_address: str | None = None
    username: str | None = None
    # Reaches iperf3 only through its IPERF3_PASSWORD environment variable.
    password: str | None = field(default=None, repr=False, compare=False)
    rsa_public_key_path: str | None = None

    def __init__(
        self,
        host: str,
        port: int = 5201,
        protocol: Protocol = Protocol.TCP,
        ip_version: IpVersion | None = None,
        duration_s: int = 10,
        omit_s: int = 0,
        interval_s: float = 1.0,
        length: int | None = None,  # -l, bytes per write (packet size for UDP)
        window: int | None = None,  # -w, socket buffer bytes
        parallel: int = 1,  # -P
        direction: Direction = Direction.UP,
        bitrate_bps: int | None = None,  # -b; 0 = unlimited; None = iperf3's default
        congestion: str | None = None,  # -C: TCP congestion control
        connect_timeout_ms: int | None = 8000,
        bind_address: str | None = None,
        username: str | None = None,
        password: str | None = None,
        rsa_public_key_path: str | None = None,
        *,
        settings: RunSettings | None = None,
    ) -> None:
        """The engine settings come whole (`settings`, a plan's run) or one by one (a single
        run from the command line), not both: given whole, the ones by name are not read."""
        if settings is None:
            settings = RunSettings(
                duration_s=duration_s,
                length=length,
                window=window,
                parallel=parallel,
                bitrate_bps=bitrate_bps,
                congestion=congestion,
            )
        own = {
            "host": host,
            "settings": settings,
            "port": port,
            "protocol": protocol,
            "ip_version": ip_version,
            "omit_s": omit_s,
            "interval_s": interval_s,
            "direction": direction,
            "connect_timeout_ms": connect_timeout_ms,
            "bind_address": bind_address,
            "username": username,
            "password": password,
            "rsa_public_key_path": rsa_public_key_path,
        }
        for name, value in own.items():
            # A frozen dataclass sets its fields this way in its own __init__ too.
            object.__setattr__(self, name, value)
