"""Which settings of a plan do nothing for its engine, protocols or sweep, and why.

The window disables such a setting with the reason as its tooltip (when its value is the
neutral one), and the plan checks refuse a non-neutral value that an engine would ignore, so a
choice is never silently dropped.
"""

from __future__ import annotations

from app.domain.net import Direction, Protocol
from app.domain.plan import VARIABLE_LABELS, Engine, Order, Plan, Variable

NETPERF_UPLOAD_ONLY = (
    "netperf measures upload only here: choose iperf3 for download or both at once."
)


def _swept(variable: Variable) -> str:
    return f"The {VARIABLE_LABELS[variable][0].lower()} is what is swept: set its values above."


def inapplicable(plan: Plan) -> dict[str, str]:
    """Setting name (as in Plan.problems) -> why it has no effect on this plan."""
    reasons: dict[str, str] = {}
    netperf = plan.engine is Engine.NETPERF
    if netperf:
        reasons["bitrate"] = (
            "netperf sends UDP as fast as it can: a target bitrate needs the iperf3 engine."
        )
        reasons["window"] = "LinkLab sets the TCP window for iperf3 only: choose iperf3 to set it."
        reasons["parallel"] = "netperf runs one stream per test: parallel streams need iperf3."
        reasons["omit"] = "netperf has no warm-up to leave out: a warm-up needs iperf3."
        reasons["concurrent"] = "Running series at the same time needs the iperf3 engine."
    else:
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
    if plan.order is not Order.SHUFFLED:
        reasons["seed"] = "The seed orders a shuffled plan only: choose the order Shuffled."
    swept = {
        Variable.LENGTH: "length",
        Variable.WINDOW: "window",
        Variable.PARALLEL: "parallel",
        Variable.BITRATE: "bitrate",
        Variable.DURATION: "duration",
    }
    if plan.variable in swept:
        reasons.setdefault(swept[plan.variable], _swept(plan.variable))
    return reasons


def unavailable_choices(plan: Plan) -> dict[str, dict[object, str]]:
    """Per choice setting ("direction", "variable"), the values that cannot run, with why."""
    directions: dict[object, str] = {}
    variables: dict[object, str] = {}
    if plan.engine is Engine.NETPERF:
        directions = {Direction.DOWN: NETPERF_UPLOAD_ONLY, Direction.BIDIR: NETPERF_UPLOAD_ONLY}
        for variable in (Variable.WINDOW, Variable.PARALLEL, Variable.BITRATE):
            label = VARIABLE_LABELS[variable][0].lower()
            variables[variable] = f"Sweeping the {label} needs the iperf3 engine."
    if Protocol.UDP not in plan.protocols:
        variables.setdefault(
            Variable.BITRATE, "Only UDP runs have a target bitrate: choose UDP to sweep it."
        )
    from app.study.shaping import unavailable_reason  # needs nftables and root: Linux only

    loss = unavailable_reason()
    if loss:
        variables[Variable.LOSS] = loss
    return {"direction": directions, "variable": variables}
