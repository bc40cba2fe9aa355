"""Every engine setting of the plan-field table, for every engine: the driver declares how it
becomes an argument, that argument is in the run's argv when the setting is set (and absent
when not), and where the engine has no such setting its reason is what the form shows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Engine, Peer, Plan, RunKey, Variable
from app.domain.plan_fields import BY_KEY, ENGINE_SETTINGS, RUN_FIELDS
from app.domain.run_settings import RunSettings
from app.engine.drivers.arguments import Absent, Argument, table_argv
from app.engine.drivers.iperf3.options import ARGUMENTS, Iperf3Options
from app.engine.drivers.registry import DRIVERS
from app.study.sweep.applicability import engines_with, inapplicable
from app.study.sweep.plan_checks import plan_problems
from tests.conftest import require_engine

#: A value that asks something of the engine, per setting (none is the field's neutral one).
SET = {
    "window": 65536,
    "parallel": 4,
    "bitrate": 30_000_000,
    "omit": 2,
    "congestion": "reno",
    "dscp": "VO",
}
CASES = [(engine, field.key) for engine in DRIVERS for field in ENGINE_SETTINGS]


def _plan(engine: Engine, key: str, value: object) -> Plan:
    field = BY_KEY[key]
    protocol = Protocol.UDP if field.udp_only else Protocol.TCP
    plan = Plan(Peer("127.0.0.1"), engine, protocols=(protocol,), values=(1408,))
    return replace(plan, **{field.name: value})


def _argv(plan: Plan) -> list[str]:
    driver = DRIVERS[plan.engine]
    require_engine(driver.programs[0].name)
    return driver.argv(plan, RunKey(plan.protocols[0], IpVersion.V4, 0, 1))


def test_every_engine_setting_has_a_value_to_try() -> None:
    assert {f.key for f in ENGINE_SETTINGS} == set(SET)


def test_the_run_settings_are_the_tables_run_fields() -> None:
    assert set(RunSettings(duration_s=10).values) == {f.name for f in RUN_FIELDS}


@pytest.mark.parametrize(("engine", "key"), CASES)
def test_a_setting_reaches_argv_or_says_why_not(engine: Engine, key: str) -> None:
    driver = DRIVERS[engine]
    how = driver.arguments[key]  # every engine setting is declared by every driver
    plan = _plan(engine, key, SET[key])
    if isinstance(how, Argument):
        argv = _argv(plan)
        engine_value = BY_KEY[key].engine_value
        words = how.argv(engine_value(SET[key]) if engine_value else SET[key])
        assert words and words[0] == how.flag
        at = argv.index(how.flag)
        assert argv[at : at + len(words)] == words
        neutral = _argv(_plan(engine, key, BY_KEY[key].neutral))
        assert how.flag not in neutral or key == "bitrate"  # iperf 2 always paces UDP
        assert key not in inapplicable(plan)
    else:
        assert isinstance(how, Absent)
        reason = how.reason.format(name=driver.name, engines=engines_with(key, DRIVERS))
        neutral = _plan(engine, key, BY_KEY[key].neutral)
        assert inapplicable(neutral)[key] == reason  # the form's tooltip
        assert key in {where for where, _ in plan_problems(plan)}  # a value is refused


def test_the_dscp_reaches_each_engine_as_its_tos_byte() -> None:
    """VO is EF (46, RFC 8325), the TOS byte 184 (0xb8); BK is CS1 (8), 32; a number is a
    DSCP. netperf's -Y is a global option: before the test options' "--"."""
    plan = replace(
        _plan(Engine.IPERF3, "dscp", None), variable=Variable.DSCP, values=("VO", "BK", "10")
    )
    marks = {"iperf3": ["-S", "184"], "iperf2": ["--tos", "184"], "netperf": ["-Y", "0xb8,0xb8"]}
    for engine in DRIVERS:
        argv = _argv(replace(plan, engine=engine))
        flag, value = marks[engine.value]
        assert argv[argv.index(flag) + 1] == value
        if engine is Engine.NETPERF:
            assert argv.index(flag) < argv.index("--")
    key = RunKey(Protocol.TCP, IpVersion.V4, 1, 1)
    assert "32" in DRIVERS[Engine.IPERF3].argv(plan, key)
    assert "40" in DRIVERS[Engine.IPERF3].argv(plan, replace(key, value_index=2))


def test_a_mark_that_is_none_is_refused_with_what_to_write() -> None:
    problems = dict(plan_problems(_plan(Engine.IPERF3, "dscp", "voice")))
    assert "access category (BK, BE, VI, VO)" in problems["dscp"]
    swept = replace(_plan(Engine.IPERF3, "dscp", None), variable=Variable.DSCP, values=("VO", "64"))
    assert "number 0-63" in dict(plan_problems(swept))["values"]


def test_an_engine_sweeps_each_setting_it_has_an_option_for() -> None:
    for driver in DRIVERS.values():
        for key, how in driver.arguments.items():
            variable = BY_KEY[key].variable
            if variable is not None:
                assert (variable in driver.sweeps) is isinstance(how, Argument), (driver, key)
    assert DRIVERS[Engine.NETPERF].sweeps == {
        Variable.LENGTH,
        Variable.DURATION,
        Variable.LOSS,
        Variable.CONGESTION,
        Variable.DSCP,
    }


def test_a_tcp_setting_reaches_no_other_run() -> None:
    """Even a single run's options given by hand: the table says congestion is TCP's."""
    udp = Iperf3Options("127.0.0.1", protocol=Protocol.UDP, congestion="reno")
    tcp = replace(udp, protocol=Protocol.TCP)
    assert table_argv(ARGUMENTS, udp.settings.values, udp.protocol) == []
    assert table_argv(ARGUMENTS, tcp.settings.values, tcp.protocol) == ["-C", "reno"]
