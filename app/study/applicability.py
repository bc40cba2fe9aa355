"""Which settings of a plan do nothing for its engine, protocols or sweep, and why.

The window disables such a setting with the reason as its tooltip (when its value is the
neutral one), and the plan checks refuse a non-neutral value that an engine would ignore, so a
choice is never silently dropped. What an engine can do is its driver's to say.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.domain.net import Protocol
from app.domain.plan import VARIABLE_LABELS, Engine, Metric, Order, Plan, Variable
from app.engine.drivers import DRIVERS, EngineDriver

#: Why an engine without a setting cannot take it, by setting.
_MISSING = {
    "bitrate": "{name} sends UDP as fast as it can: a target bitrate needs the iperf3 engine.",
    "window": "LinkLab sets the TCP window for iperf3 only: choose iperf3 to set it.",
    "parallel": "{name} runs one stream per test: parallel streams need iperf3.",
    "omit": "{name} has no warm-up to leave out: a warm-up needs iperf3.",
}
_SWEPT = {
    Variable.LENGTH: "length",
    Variable.WINDOW: "window",
    Variable.PARALLEL: "parallel",
    Variable.BITRATE: "bitrate",
    Variable.DURATION: "duration",
}


def _swept(variable: Variable) -> str:
    return f"The {VARIABLE_LABELS[variable][0].lower()} is what is swept: set its values above."


def inapplicable(plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> dict[str, str]:
    """Setting name (as in plan_problems) -> why it has no effect on this plan."""
    driver = drivers[plan.engine]
    honoured = driver.settings()
    reasons = {
        setting: why.format(name=driver.name)
        for setting, why in _MISSING.items()
        if setting not in honoured
    }
    if not driver.concurrent:
        reasons["concurrent"] = "Running series at the same time needs the iperf3 engine."
    if Metric.RTT not in driver.metrics:
        reasons["rtt"] = (
            "Round-trip time comes from netperf's request/response test: choose the netperf "
            "engine to measure it."
        )
    if Protocol.UDP not in plan.protocols:
        reasons.setdefault("bitrate", "Only UDP runs have a target bitrate: choose UDP to set one.")
    if len(plan.series) < 2:
        reasons.setdefault(
            "concurrent", "Running series at the same time needs two series, e.g. TCP and UDP."
        )
    if Metric.LATENCY not in plan.metrics:
        reasons["echo_port"] = (
            "The latency responder is probed only for working latency: tick Working latency "
            "on the Study page to measure it."
        )
    if plan.order is not Order.SHUFFLED:
        reasons["seed"] = "The seed orders a shuffled plan only: choose the order Shuffled."
    if plan.variable in _SWEPT:
        reasons.setdefault(_SWEPT[plan.variable], _swept(plan.variable))
    return reasons


def unavailable_choices(
    plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS
) -> dict[str, dict[object, str]]:
    """Per choice setting ("direction", "variable"), the values that cannot run, with why."""
    driver = drivers[plan.engine]
    directions: dict[object, str] = {
        direction: (
            f"{driver.name} measures upload only here: choose iperf3 for download or both at once."
        )
        for direction in set(type(plan.direction)) - driver.directions
    }
    variables: dict[object, str] = {
        variable: f"Sweeping the {VARIABLE_LABELS[variable][0].lower()} needs the iperf3 engine."
        for variable in set(Variable) - driver.sweeps
    }
    if Protocol.UDP not in plan.protocols:
        variables.setdefault(
            Variable.BITRATE, "Only UDP runs have a target bitrate: choose UDP to sweep it."
        )
    from app.study.shaping import unavailable_reason  # needs nftables and root: Linux only

    loss = unavailable_reason()
    if loss:
        variables[Variable.LOSS] = loss
    return {"direction": directions, "variable": variables}
