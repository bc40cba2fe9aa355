"""Settings that do nothing for a plan are named with the reason; values an engine would
silently ignore are refused at their field."""

from __future__ import annotations

from dataclasses import replace

from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Order, Peer, Plan, Variable
from app.study.sweep.applicability import inapplicable, unavailable_choices
from app.study.sweep.plan_checks import plan_problems


def test_netperf_greys_out_iperf3_options() -> None:
    plan = Plan(peer=Peer("a"), engine=Engine.NETPERF, protocols=(Protocol.UDP,))
    reasons = inapplicable(plan)
    for key in ("bitrate", "window", "parallel", "omit", "concurrent"):
        assert "iperf3" in reasons[key] or "netperf" in reasons[key]
    assert "rtt" not in reasons
    assert set(unavailable_choices(plan)["direction"]) == {Direction.DOWN, Direction.BIDIR}


def test_iperf3_tcp_only() -> None:
    reasons = inapplicable(Plan(peer=Peer("a")))
    assert "netperf" in reasons["rtt"]
    assert "Only UDP" in reasons["bitrate"]
    assert "shuffled" in reasons["seed"]
    assert "what is swept" in reasons["length"]
    assert "seed" not in inapplicable(Plan(peer=Peer("a"), order=Order.SHUFFLED))
    assert Variable.BITRATE in unavailable_choices(Plan(peer=Peer("a")))["variable"]


def test_values_netperf_would_ignore_are_refused() -> None:
    plan = Plan(peer=Peer("a"), engine=Engine.NETPERF, protocols=(Protocol.UDP,))
    assert plan_problems(plan) == []
    for change, field in (
        ({"bitrate_bps": 30_000_000}, "bitrate"),
        ({"window": 65536}, "window"),
        ({"parallel": 2}, "parallel"),
        ({"omit_s": 2}, "omit"),
    ):
        assert field in {key for key, _ in plan_problems(replace(plan, **change))}, field
