"""How a driver passes each engine setting of the plan-field table: the option a run's value
becomes, or that the engine has no such setting, with the sentence the form shows why; and
the options of a run's settings, built from those declarations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.net import Protocol
from app.domain.plan import Variable
from app.domain.plan_fields import BY_KEY


def _word(value: Any) -> list[str]:
    return [str(value)]


@dataclass(frozen=True)
class Argument:
    """The engine's option for a setting: `flag` followed by the value's words (of the value
    as the engines take it, the field's `engine_value`), left out when the value is None or
    the one that asks nothing of the engine (`unset`). `place` says where in the argv the
    driver puts it, when not with the rest (""): a place of the driver's own."""

    flag: str
    words: Callable[[Any], list[str]] = _word
    unset: object = None
    place: str = ""

    def argv(self, value: Any) -> list[str]:
        if value is None or value == self.unset:
            return []
        return [self.flag, *self.words(value)]


@dataclass(frozen=True)
class Absent:
    """The engine has no such setting. The reason completes the form's tooltip and the plan
    check: {name} is the engine's, {engines} those that have it ("the iperf3 engine")."""

    reason: str

    def argv(self, value: Any) -> list[str]:
        """Nothing: the plan checks refuse a value this engine would have to drop."""
        return []


#: What a driver declares per engine setting, by the table's key ("window", "dscp").
Arguments = Mapping[str, Argument | Absent]


def table_argv(
    arguments: Arguments, values: Mapping[str, Any], protocol: Protocol, place: str = ""
) -> list[str]:
    """The options of the settings a driver puts at one place of its argv, in the order it
    declares them: each setting's value by the plan's attribute name (a run's settings), as
    the engines take it; a setting of TCP runs only reaches no other run."""
    argv: list[str] = []
    for key, how in arguments.items():
        field = BY_KEY[key]
        if not isinstance(how, Argument) or how.place != place:
            continue
        if field.tcp_only and protocol is not Protocol.TCP:
            continue
        value = values.get(field.name)
        if value is not None and field.engine_value is not None:
            value = field.engine_value(value)
        argv += how.argv(value)
    return argv


def swept_by(arguments: Arguments) -> frozenset[Variable]:
    """The variables of the settings a driver passes on (those it has an option for)."""
    return frozenset(
        variable
        for key, how in arguments.items()
        if isinstance(how, Argument) and (variable := BY_KEY[key].variable) is not None
    )
