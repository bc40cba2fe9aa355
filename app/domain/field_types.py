"""What a row of the plan-field table says about one setting of a plan: its kind, the
command line's option, and the row itself (app.domain.field_table holds the rows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.domain.plan import Variable


class Kind(StrEnum):
    CHOICE = "choice"  # one of an enum's values
    CHOICES = "choices"  # several of them
    COUNT = "count"  # a whole number
    DECIMAL = "decimal"  # a number with decimals
    SIZE = "size"  # bytes, K/M in 1024s; None: the engine's default
    RATE = "rate"  # bit/s, K/M/G in 1000s
    NAME = "name"  # a word chosen from what the system has (a congestion control)
    FLAG = "flag"  # yes or no
    TEXT = "text"
    OTHER = "other"  # a structure of its own (values, early stop; the form draws it from parts)


@dataclass(frozen=True)
class Cli:
    """The option of `linklab run` that sets the field."""

    flag: str
    metavar: str = ""
    help: str = ""
    low: float | None = None  # bounds, where no engine limit gives them
    high: float | None = None


@dataclass(frozen=True)
class PlanField:
    name: str  # the plan's attribute ("conditions.security" for a stated condition; "" none)
    words: str  # in sentences: "TCP window"
    key: str  # the form's and the plan checks' name for it: "window"
    kind: Kind = Kind.OTHER
    unit: str = ""
    cli: Cli | None = None
    lock: str | None = None  # the exercise's lock (the `linklab run` option without dashes)
    lock_words: str = ""  # "the TCP window"
    form_keys: tuple[str, ...] = ()  # the form's fields a lock greys out (default: key)
    form_label: str = ""  # the form's label where it differs from the words
    variable: Variable | None = None  # when the field can be swept
    sweep_label: str = ""  # the sweep choice's label: "Packet size"
    swept_words: str = ""  # the swept values' check: "A TCP window must be …"
    neutral: object = None  # the value that asks nothing of the engine
    limit: str | None = None  # the engines' Limits attribute (None: any engine takes it)
    clear_hint: str = ""  # how to ask nothing: "clear the window", "set them to 1"
    missing: str = ""  # why an engine without it cannot take it ({name}, {engines})
    confound: str = ""  # why sessions differing in it may not compare
    confound_words: str = ""  # what the confound calls it, where not the words
    udp_only: bool = False  # only UDP runs have it (a fixed value; a swept one reaches all)
    tcp_only: bool = False  # only TCP runs have it, fixed or swept
    run: bool = False  # an engine setting of each run (app.domain.run_settings.RunSettings)
    examples: tuple[str, ...] = ()  # for a field of names: the values a new sweep starts with
    sweep_range: tuple[int, int, int] = (0, 0, 0)  # a new sweep's from, to, step (0: doubling)
    #: A name's own reading: the value as the plan keeps it; ValueError says what is wrong.
    parse: Callable[[str], str] | None = None
    #: The value as the engines take it, where it is not the plan's own (a mark's TOS byte).
    engine_value: Callable[[Any], Any] | None = None
    placeholder: str = ""  # the form's empty field: "system default"
    example: str = ""  # values as the form's sentence for a wrong one gives them: "64K or 262144"
    bounds: tuple[float, float] | None = None  # a number's range where no limit or option does
    tip: str = ""  # the form's tooltip, where the command line's help is not enough
    #: A choice's values, each with the form's label for it, in the form's order.
    choices: tuple[tuple[Any, str], ...] = ()
    #: The numbers a structure's control is drawn with, each a row of its own (early stop's).
    parts: tuple[PlanField, ...] = ()
    start: float | None = None  # the form's first value, where the plan's default is not it

    @property
    def label(self) -> str:
        """The form's label: "TCP window", "Warm-up (omit)"."""
        return self.form_label or self.words[:1].upper() + self.words[1:]

    @property
    def locked_keys(self) -> tuple[str, ...]:
        return self.form_keys or (self.key,)

    @property
    def attributes(self) -> tuple[str, ...]:
        return (self.name,) if self.name else ()
