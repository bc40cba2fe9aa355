"""Every setting of a plan described once, looked up: the plan-field table's rows
(app.domain.field_table) by attribute, key and swept variable, the engine settings and those
of each run, and the words, values and places sentences give them. The form, the command
line, the plan codec, the descriptions, the applicability rules, the exercise locks and the
confounds read it."""

from __future__ import annotations

import re
from collections.abc import Mapping

from app.domain.field_table import PLAN_FIELDS
from app.domain.field_types import Cli, Kind, PlanField
from app.domain.plan import Plan, Variable

__all__ = [
    "BY_KEY",
    "BY_NAME",
    "ENGINE_SETTINGS",
    "NAME",
    "PLAN_FIELDS",
    "RUN_FIELDS",
    "SWEPT",
    "VARIABLE_LABELS",
    "Cli",
    "Kind",
    "PlanField",
    "categorical",
    "categories",
    "label_words",
    "parse_names",
    "point_text",
    "swept_names",
    "value_word",
    "variable_words",
    "where_set",
    "x_of",
]

#: The plan's own fields (not its stated conditions nor its peer's), by attribute.
BY_NAME: Mapping[str, PlanField] = {f.name: f for f in PLAN_FIELDS if f.name and "." not in f.name}
BY_KEY: Mapping[str, PlanField] = {f.key: f for f in PLAN_FIELDS}
#: What each variable sweeps.
SWEPT: Mapping[Variable, PlanField] = {f.variable: f for f in PLAN_FIELDS if f.variable}
#: The settings an engine may lack: each driver says how it passes them, or why it cannot.
ENGINE_SETTINGS: tuple[PlanField, ...] = tuple(f for f in PLAN_FIELDS if f.clear_hint)
#: The engine settings of each run, as app.domain.run_settings.RunSettings holds them.
RUN_FIELDS: tuple[PlanField, ...] = tuple(f for f in PLAN_FIELDS if f.run)
#: Each variable's label and unit, as the sweep choice and the charts' axes read them.
VARIABLE_LABELS: Mapping[Variable, tuple[str, str]] = {
    variable: (SWEPT[variable].sweep_label, SWEPT[variable].unit) for variable in Variable
}


def label_words(label: str) -> str:
    """A variable's label as a sentence says it: 'packet size'; an acronym keeps its
    capitals: 'DSCP / access category', 'TCP window'."""
    return label if label[:2].isupper() else label.lower()


def variable_words(variable: Variable) -> str:
    """The variable's label as a sentence says it (see label_words)."""
    return label_words(VARIABLE_LABELS[variable][0])


def categorical(variable: Variable) -> bool:
    """Whether the variable's values are names (charted as categories), not numbers."""
    return SWEPT[variable].kind is Kind.NAME


def x_of(plan: Plan, value: float | str) -> float:
    """Where a value sits on a chart's x axis: the number, or a name's place in the sweep."""
    if isinstance(value, str):
        return float(plan.values.index(value)) if value in plan.values else 0.0
    return float(value)


def categories(plan: Plan) -> list[str] | None:
    """The names along the x axis of a sweep over names, in the plan's order; else None."""
    return [str(v) for v in plan.values] if categorical(plan.variable) else None


#: A name the system knows a setting by ("cubic", "bbr"): as the plan codec accepts one.
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


def parse_names(text: str) -> list[str]:
    """'cubic, bbr,reno' -> ['cubic', 'bbr', 'reno']; ValueError naming one that is no name."""
    names = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
    for name in names:
        if not NAME.match(name):
            raise ValueError(f"{name!r} is not a name such as cubic (letters, digits, _ . -)")
    return list(dict.fromkeys(names))


def swept_names(variable: Variable, text: str) -> list[str]:
    """The names of a sweep over names, each as its field reads it ("vo, bk" -> VO, BK for
    the DSCP mark); ValueError names one that is none."""
    parse = SWEPT[variable].parse
    return list(dict.fromkeys(parse(n) if parse else n for n in parse_names(text)))


def value_word(value: float | str) -> str:
    """A swept value as it is written: "1408", "2.5", "bbr"."""
    return value if isinstance(value, str) else f"{value:g}"


def point_text(variable: Variable, value: float | str) -> str:
    """One swept value as a person reads it: "1408 B", "4", "bbr"."""
    if isinstance(value, str):
        return value
    unit = VARIABLE_LABELS[variable][1]
    return f"{value:g} {unit}" if unit else f"{value:g}"


def where_set(key: str, flag: str = "") -> str:
    """Where a sentence sends the user to set a field: its label on the form, as shown there,
    and its `linklab run` option: "the UDP bitrate field, or --bitrate"."""
    field = BY_KEY[key]
    flag = flag or (field.cli.flag if field.cli is not None else "")
    return f"the {field.label} field" + (f", or {flag}" if flag else "")
