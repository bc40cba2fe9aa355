"""A pool of engine servers for a class: how many servers N stations need, on which ports, and
what the collector tells each station. iperf3 serves one test at a time, so each station gets
an iperf3 server (and a port) of its own.

The place for iperf 2: `iperf -s` serves many clients at once, so one iperf 2 server serves
every station. Once iperf 2 is an engine, add its name to SERVES_MANY (or read the same fact
from its driver); pool_ports() then starts one server, and pool_for() marks the pool shared,
which makes the collector give that one port to every station."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_POOL", "SERVES_MANY", "Pool", "pool_for", "pool_ports"]

#: The most servers one `linklab serve --count` starts: a large lab's stations.
MAX_POOL = 100
#: Engines whose one server serves every station at once (iperf 2, once it is an engine).
SERVES_MANY: frozenset[str] = frozenset()


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
