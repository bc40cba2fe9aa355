"""The engine settings of one run of a plan, built from the plan-field table: the fixed ones
with the swept value applied, each where its protocol has it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

from app.domain.net import Protocol
from app.domain.plan import Plan, RunKey
from app.domain.plan_fields import RUN_FIELDS

#: What a run field not given is: the value that asks nothing of the engine.
_NEUTRAL: Mapping[str, Any] = {f.name: f.neutral for f in RUN_FIELDS}


class RunSettings:
    """One run's engine settings: every run field of the table by the plan's attribute name
    (`value`, as a driver's declared arguments read them), and typed the few that code reads
    by name (a driver's checks of its limits and capabilities). A field not given is its
    neutral value."""

    __slots__ = ("_values",)

    def __init__(self, **values: Any) -> None:
        unknown = sorted(set(values) - set(_NEUTRAL))
        if unknown:
            raise TypeError(f"RunSettings has no settings {', '.join(unknown)}")
        self._values: Mapping[str, Any] = MappingProxyType({**_NEUTRAL, **values})

    @property
    def values(self) -> Mapping[str, Any]:
        """Every run field of the table, by the plan's attribute name."""
        return self._values

    def value(self, name: str) -> Any:
        """A setting by the plan's attribute name, as a driver's declared argument reads it."""
        return self._values[name]

    def replaced(self, **changes: Any) -> RunSettings:
        """These settings with some of them changed."""
        return RunSettings(**{**self._values, **changes})

    # Typed as the table's fields are; a single run's options may hold what a check refuses.
    @property
    def duration_s(self) -> int:
        return cast(int, self._values["duration_s"])

    @property
    def length(self) -> int | None:
        return cast(int | None, self._values["length"])

    @property
    def window(self) -> int | None:
        return cast(int | None, self._values["window"])

    @property
    def parallel(self) -> int:
        return cast(int, self._values["parallel"])

    @property
    def bitrate_bps(self) -> int | None:  # UDP runs (a swept bitrate reaches every run)
        return cast(int | None, self._values["bitrate_bps"])

    @property
    def congestion(self) -> str | None:  # TCP runs only
        return cast(str | None, self._values["congestion"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunSettings) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __repr__(self) -> str:
        given = ", ".join(f"{name}={value!r}" for name, value in self._values.items())
        return f"RunSettings({given})"


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
