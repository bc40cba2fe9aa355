"""The engine settings of one run of a plan, built from the plan-field table: the fixed ones
with the swept value applied, each where its protocol has it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.net import Protocol
from app.domain.plan import Plan, RunKey
from app.domain.plan_fields import RUN_FIELDS


@dataclass(frozen=True)
class RunSettings:
    """One run's engine settings, by the plan's attribute names (the table's run fields)."""

    duration_s: int
    length: int | None = None
    window: int | None = None
    parallel: int = 1
    bitrate_bps: int | None = None  # UDP runs (a swept bitrate reaches every run)
    congestion: str | None = None  # TCP runs only
    dscp: str | None = None

    def value(self, name: str) -> Any:
        """A setting by the plan's attribute name, as a driver's declared argument reads it."""
        return getattr(self, name)


def run_settings(plan: Plan, key: RunKey) -> RunSettings:
    """The settings of one run: each run field of the table from the plan, the swept one
    from the run's point; a field of one protocol is None in the other's runs."""
    swept = plan.values[key.value_index]
    values: dict[str, Any] = {}
    for field in RUN_FIELDS:
        value: Any = getattr(plan, field.name)
        if field.udp_only and key.protocol is not Protocol.UDP:
            value = None
        if field.variable is plan.variable:
            value = swept
        if field.tcp_only and key.protocol is not Protocol.TCP:
            value = None
        values[field.name] = value
    return RunSettings(**values)
