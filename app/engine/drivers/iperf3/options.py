"""Everything an iperf3 client run can be asked to do: the run's engine settings and what only
iperf3 is asked."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.run_settings import RunSettings


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
