"""A single engine run outside any plan, as the command line's `measure` asks for it (each
engine's client options are its driver's own)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.domain.net import Direction, IpVersion, Protocol


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
