"""How a driver passes each engine setting of the plan-field table: the option a run's value
becomes, or that the engine has no such setting, with the sentence the form shows why."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def _word(value: Any) -> list[str]:
    return [str(value)]


@dataclass(frozen=True)
class Argument:
    """The engine's option for a setting: `flag` followed by the value's words, left out
    when the value is None or the one that asks nothing of the engine (`unset`)."""

    flag: str
    words: Callable[[Any], list[str]] = _word
    unset: object = None

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
