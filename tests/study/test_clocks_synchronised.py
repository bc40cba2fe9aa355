"""The "Clocks synchronised" setting through the plan-field table: refused where LinkLab cannot
see the one-way delay (a TCP upload with iperf 2, another engine), greyed out with the reason
for other engines, in the plan codec, the descriptions and an exercise's locks."""

from __future__ import annotations

import pytest

from app.domain.errors import BadOption
from app.domain.exercise import LOCKABLE, Step, locked_differences
from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Peer, Plan
from app.domain.plan_codec import plan_from_dict
from app.domain.plan_fields import BY_KEY, Kind
from app.study.sweep.applicability import inapplicable
from app.study.sweep.describe import changes, setting_text
from app.study.sweep.plan_checks import plan_problems


def _plan(**changes: object) -> Plan:
    base: dict[str, object] = {
        "peer": Peer("127.0.0.1"),
        "engine": Engine.IPERF2,
        "values": (1408,),
        "direction": Direction.DOWN,
        "clocks_synchronised": True,
    }
    return Plan(**{**base, **changes})  # type: ignore[arg-type]


def test_the_field_is_a_flag_of_the_table() -> None:
    field = BY_KEY["clocks_synchronised"]
    assert field.kind is Kind.FLAG and field.label == "Clocks synchronised"
    assert field.cli is not None and field.cli.flag == "--clocks-synchronised"
    assert "one-way delay" in field.tip and "offset" in field.tip


@pytest.mark.parametrize(
    ("direction", "protocols"),
    [
        (Direction.DOWN, (Protocol.TCP,)),
        (Direction.BIDIR, (Protocol.TCP,)),
        (Direction.UP, (Protocol.UDP,)),  # the UDP server's report carries it
        (Direction.DOWN, (Protocol.TCP, Protocol.UDP)),
    ],
)
def test_where_the_delay_is_seen_the_plan_runs(
    direction: Direction, protocols: tuple[Protocol, ...]
) -> None:
    assert plan_problems(_plan(direction=direction, protocols=protocols)) == []


@pytest.mark.parametrize("protocols", [(Protocol.TCP,), (Protocol.TCP, Protocol.UDP)])
def test_a_tcp_upload_is_refused_saying_what_to_choose(protocols: tuple[Protocol, ...]) -> None:
    problems = plan_problems(_plan(direction=Direction.UP, protocols=protocols))
    assert [key for key, _ in problems] == ["clocks_synchronised"]
    sentence = problems[0][1]
    assert sentence.startswith("iperf 2 reports one-way delay where the data arrives")
    assert "choose Download" in sentence and "turn off clocks synchronised" in sentence
    assert plan_problems(_plan(direction=Direction.UP, clocks_synchronised=False)) == []


@pytest.mark.parametrize("engine", [Engine.IPERF3, Engine.NETPERF])
def test_other_engines_refuse_it_and_grey_it_out(engine: Engine) -> None:
    direction = Direction.UP if engine is Engine.NETPERF else Direction.DOWN
    plan = _plan(engine=engine, direction=direction)
    problems = dict(plan_problems(plan))
    assert "does not measure one-way delay" in problems["clocks_synchronised"]
    assert "iperf2" in problems["clocks_synchronised"]
    reason = inapplicable(_plan(engine=engine, clocks_synchronised=False))
    assert "one-way delay" in reason["clocks_synchronised"]
    assert "iperf2" in reason["clocks_synchronised"]
    assert "clocks_synchronised" not in inapplicable(_plan())


def test_the_codec_keeps_it_and_older_plans_have_it_off() -> None:
    plan = _plan()
    assert plan_from_dict(plan.to_dict()) == plan
    older = plan.to_dict()
    del older["clocks_synchronised"]
    assert plan_from_dict(older).clocks_synchronised is False
    with pytest.raises(BadOption, match="clocks_synchronised must be true or false"):
        plan_from_dict({**plan.to_dict(), "clocks_synchronised": "yes"})


def test_descriptions_and_exercise_locks_name_it() -> None:
    off, on = _plan(clocks_synchronised=False), _plan()
    assert setting_text(on, "clocks_synchronised") == "yes"
    assert "clocks synchronised no → yes" in changes(off, on)
    assert LOCKABLE["clocks-synchronised"] == (
        "the stated clock synchronisation",
        ("clocks_synchronised",),
    )
    step = Step("Step 1", "", off, locked=("clocks-synchronised",))
    assert locked_differences(step, on) == ["clocks-synchronised"]
    assert locked_differences(step, off) == []
