"""iperf 2's command line for one-way delay: --trip-times on a stream run when the plan states
the clocks synchronised, never on a round-trip run, and a sentence when the installed iperf 2
lacks it."""

from __future__ import annotations

import pytest

from app.domain.net import Direction, IpVersion, Protocol
from app.domain.plan import Engine, Metric, Peer, Plan, RunKey, RunKind
from app.engine.drivers.iperf2.driver import Iperf2Capability, build_argv
from app.engine.errors import EngineTooOld
from app.engine.process.tools import Source, Tool

ALL = frozenset(Iperf2Capability)


def _tool(capabilities: frozenset[str] = ALL) -> Tool:
    return Tool("iperf", "/usr/bin/iperf", (2, 1, 8), "iperf 2.1.8", Source.PATH, capabilities)


def _plan(**changes: object) -> Plan:
    base: dict[str, object] = {
        "peer": Peer("127.0.0.1"),
        "engine": Engine.IPERF2,
        "values": (1408,),
        "direction": Direction.DOWN,
        "clocks_synchronised": True,
    }
    return Plan(**{**base, **changes})  # type: ignore[arg-type]


def _argv(plan: Plan, kind: RunKind = RunKind.STREAM, tool: Tool | None = None) -> list[str]:
    key = RunKey(plan.protocols[0], IpVersion.V4, 0, 1, kind)
    return build_argv(tool or _tool(), plan, key, "127.0.0.1", 5001)


@pytest.mark.parametrize(
    ("direction", "protocol", "flag"),
    [
        (Direction.DOWN, Protocol.TCP, "-R"),
        (Direction.BIDIR, Protocol.TCP, "--full-duplex"),
        (Direction.UP, Protocol.UDP, "-u"),
        (Direction.DOWN, Protocol.UDP, "-R"),
    ],
)
def test_clocks_synchronised_ask_for_trip_times(
    direction: Direction, protocol: Protocol, flag: str
) -> None:
    argv = _argv(_plan(direction=direction, protocols=(protocol,)))
    assert "--trip-times" in argv and flag in argv
    assert argv[:3] == ["/usr/bin/iperf", "-c", "127.0.0.1"]


def test_without_the_statement_no_trip_times() -> None:
    assert "--trip-times" not in _argv(_plan(clocks_synchronised=False))


def test_round_trip_runs_carry_no_trip_times() -> None:
    plan = _plan(metrics=(Metric.THROUGHPUT, Metric.RTT))
    argv = _argv(plan, RunKind.RR)
    assert "--bounceback" in argv and "--trip-times" not in argv


def test_an_iperf2_without_trip_times_says_so() -> None:
    older = _tool(ALL - {Iperf2Capability.TRIP_TIMES})
    with pytest.raises(EngineTooOld, match="one-way delay"):
        _argv(_plan(), tool=older)
