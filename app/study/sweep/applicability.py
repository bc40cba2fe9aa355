"""Which settings of a plan do nothing for its engine, protocols or sweep, and why.

The window disables such a setting with the reason as its tooltip (when its value is the
neutral one), and the plan checks refuse a non-neutral value that an engine would ignore, so a
choice is never silently dropped. What an engine can do is its driver's to say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.domain.net import Direction, Protocol
from app.domain.plan import Engine, Metric, Order, Plan, Variable
from app.domain.plan_fields import ENGINE_SETTINGS, SWEPT, variable_words
from app.engine.drivers.registry import DRIVERS, EngineDriver


def engines_with(setting: str, drivers: Mapping[Engine, EngineDriver]) -> str:
    """The engines that have a setting, as a sentence ends: "the iperf3 engine (or iperf2)"."""
    return engines_that(lambda d: setting in d.settings(), drivers)


def engines_that(
    can: Callable[[EngineDriver], bool], drivers: Mapping[Engine, EngineDriver]
) -> str:
    """The engines that can do something: "the iperf3 engine (or iperf2)"."""
    names = [d.name for d in drivers.values() if can(d)]
    if not names:
        return "another engine"
    return f"the {names[0]} engine" + (f" (or {', '.join(names[1:])})" if names[1:] else "")


def upload_only(driver: EngineDriver, drivers: Mapping[Engine, EngineDriver]) -> str:
    others = " or ".join(d.name for d in drivers.values() if d.directions == set(Direction))
    return (
        f"{driver.name} measures upload only here: choose {others or 'another engine'} for "
        f"download or both at once."
    )


def sweep_needs(variable: Variable, drivers: Mapping[Engine, EngineDriver]) -> str:
    """Why the chosen engine cannot sweep the variable, and which can."""

    def can(driver: EngineDriver) -> bool:
        return variable in driver.sweeps

    return f"Sweeping the {variable_words(variable)} needs {engines_that(can, drivers)}."


def _swept(variable: Variable) -> str:
    return f"The {variable_words(variable)} is what is swept: set its values above."


def inapplicable(plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS) -> dict[str, str]:
    """Setting name (as in plan_problems) -> why it has no effect on this plan."""
    driver = drivers[plan.engine]
    honoured = driver.settings()
    reasons = {
        field.key: reason.format(name=driver.name, engines=engines_with(field.key, drivers))
        for field in ENGINE_SETTINGS
        if field.key not in honoured and (reason := driver.absent(field.key))
    }
    if not driver.concurrent:
        together = engines_that(lambda d: d.concurrent, drivers)
        reasons["concurrent"] = f"Running series at the same time needs {together}."
    if not driver.one_way_delay:
        owd = engines_that(lambda d: d.one_way_delay, drivers)
        reasons["clocks_synchronised"] = (
            f"{driver.name} does not measure one-way delay: choose {owd} to measure it "
            f"between synchronised clocks."
        )
    if Metric.RTT not in driver.metrics:
        rtt = engines_that(lambda d: Metric.RTT in d.metrics, drivers)
        reasons["rtt"] = (
            f"Round-trip time comes from a request/response test: choose {rtt} to measure it."
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
    swept = SWEPT[plan.variable]
    if swept.name:  # a plan setting (emulated loss is set on this computer instead)
        reasons.setdefault(swept.key, _swept(plan.variable))
    return reasons


def unavailable_choices(
    plan: Plan, drivers: Mapping[Engine, EngineDriver] = DRIVERS
) -> dict[str, dict[object, str]]:
    """Per choice setting ("direction", "variable"), the values that cannot run, with why."""
    driver = drivers[plan.engine]
    directions: dict[object, str] = {
        direction: upload_only(driver, drivers)
        for direction in set(type(plan.direction)) - driver.directions
    }
    variables: dict[object, str] = {
        variable: sweep_needs(variable, drivers) for variable in set(Variable) - driver.sweeps
    }
    if Protocol.UDP not in plan.protocols:
        variables.setdefault(
            Variable.BITRATE, "Only UDP runs have a target bitrate: choose UDP to sweep it."
        )
    from app.study.host.shaping import unavailable_reason  # needs nftables and root: Linux only

    loss = unavailable_reason()
    if loss:
        variables[Variable.LOSS] = loss
    return {"direction": directions, "variable": variables}
