"""A pool of engine servers for a class: how many servers N stations need, on which ports, and
what the collector tells each station. iperf3 serves one test at a time, so each station gets
an iperf3 server (and a port) of its own.

iperf 2's `iperf -s` serves many clients at once, so one iperf 2 server serves every station:
its driver says so (one server for any plan), pool_ports() then starts one server, and
pool_for() marks the pool shared, which makes the collector give that one port to every
station."""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.drivers.registry import DRIVERS

__all__ = ["MAX_POOL", "SERVES_MANY", "Pool", "pool_for", "pool_ports"]

#: The most servers one `linklab serve --count` starts: a large lab's stations.
MAX_POOL = 100
#: Engines whose one server serves every station at once (iperf 2), as their drivers say.
SERVES_MANY: frozenset[str] = frozenset(d.name for d in DRIVERS.values() if d.serves_many)


@dataclass(frozen=True)
class Pool:
    engine: str
    ports: list[int]
    shared: bool  # one server for every station


def pool_ports(engine: str, first_port: int, stations: int) -> list[int]:
    """The ports of the servers N stations need: one for all, or one each from first_port."""
    if engine in SERVES_MANY:
        return [first_port]
    return list(range(first_port, first_port + stations))


def pool_for(engine: str, ports: list[int]) -> Pool:
    """The pool the collector is told about."""
    return Pool(engine, sorted(ports), engine in SERVES_MANY)
