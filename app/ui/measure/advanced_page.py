"""The Advanced page of the set-up form: every plan setting that is not on the Study page."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.domain.plan import DEFAULT_ECHO_PORT, Order, Plan
from app.domain.plan_fields import BY_KEY, PLAN_FIELDS, RUN_FIELDS, Kind, PlanField, parse_names
from app.domain.units import parse_rate, parse_size
from app.engine import drivers
from app.ui.common.widgets import (
    DoubleSpinBox,
    SpinBox,
    ValueCombo,
    _combo,
    _double,
    _spin,
    accessible,
)
from app.ui.measure.conditions_box import ConditionsBox

#: The plan's yes-or-no settings on this page, each a check box under the form's key.
PLAN_FLAGS = tuple(f.name for f in PLAN_FIELDS if f.kind is Kind.FLAG)
#: The engine settings typed as text (a size, a rate, a name such as a congestion control or
#: a DSCP mark): each a text field made from its row of the field table (its placeholder,
#: tooltip, neutral value and examples), read by its kind.
TYPED = tuple(f for f in RUN_FIELDS if f.kind in (Kind.SIZE, Kind.RATE, Kind.NAME))
#: The plan's numbers set on this page (the Study page has its runs and seconds): each a spin
#: box made from its row of the table, with its range (the engines' widest limit, the option's
#: bounds or the table's own), the plan's default, its unit and its tooltip.
NUMBERS = tuple(f for f in PLAN_FIELDS if f.kind in (Kind.COUNT, Kind.DECIMAL) and f.tip)


class AdvancedControls:
    """The controls of the Advanced page; the set-up form registers and lays them out."""

    def __init__(self, conditions: ConditionsBox) -> None:
        self.texts: dict[str, QLineEdit] = {}
        for field in TYPED:
            edit = QLineEdit("" if field.neutral is None else str(field.neutral))
            edit.setPlaceholderText(field.placeholder)
            edit.setToolTip(drivers.phrased(field.tip))
            self.texts[field.key] = edit
        self.numbers: dict[str, SpinBox | DoubleSpinBox] = {f.key: _number(f) for f in NUMBERS}
        self.order: ValueCombo = _combo(
            [
                ("Sequential", Order.SEQUENTIAL),
                ("Interleaved across series", Order.INTERLEAVED),
                ("Shuffled", Order.SHUFFLED),
            ],
            "The order of runs: interleaved alternates the series run by run, "
            "so drift in the link hits every series alike.",
        )
        self.concurrent = QCheckBox("Run the series at the same time")
        self.concurrent.setObjectName("concurrent")
        self.concurrent.setToolTip(
            "TCP and UDP (or IPv4 and IPv6) share the link at once, each against its own "
            f"{drivers.main_server().server_label} on consecutive ports (linklab serve --count 2 "
            "on the peer): shows how the link is divided."
        )
        clocks = BY_KEY["clocks_synchronised"]
        self.clocks_synchronised = QCheckBox(clocks.label)
        self.clocks_synchronised.setObjectName("clocks_synchronised")
        self.clocks_synchronised.setToolTip(drivers.phrased(clocks.tip))
        self.early_stop = QCheckBox("Stop a point early when precise enough")
        self.early_stop.setToolTip(
            "Stop repeating a point once its 95 % confidence interval "
            "is within the chosen share of the mean."
        )
        self.early_fraction: DoubleSpinBox = _double(
            0.1, 50, 2.0, "The confidence-interval target for early stop.", " % of the mean"
        )
        self.early_min: SpinBox = _spin(
            2, 1000, 5, "Runs a point always gets before it may stop early."
        )
        self.echo_port: SpinBox = _spin(
            1,
            65535,
            DEFAULT_ECHO_PORT,
            "The UDP port of LinkLab's latency responder on the peer (linklab serve "
            "--echo-port), for working latency. Against this computer LinkLab runs its own, "
            "on this port when it is free.",
        )
        self.conditions = conditions
        for widget, name in (
            (self.concurrent, "Run the series at the same time"),
            (self.clocks_synchronised, clocks.label),
            (self.early_stop, "Stop a point early when precise enough"),
            (self.early_fraction, "Early-stop precision"),
            (self.early_min, "Early-stop minimum runs"),
        ):
            accessible(widget, name)

    @property
    def checks(self) -> dict[str, QCheckBox]:
        """The check boxes, by the form's key, in the page's order."""
        return {
            "concurrent": self.concurrent,
            "clocks_synchronised": self.clocks_synchronised,
            "early": self.early_stop,
        }

    @property
    def run_controls(self) -> dict[str, QWidget]:
        """The controls of the engine settings on this page, by key, in the table's order."""
        controls: dict[str, QWidget] = {**self.texts, **self.numbers}
        return {f.key: controls[f.key] for f in RUN_FIELDS if f.key in controls}

    def typed(self) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """The settings typed as text, by the plan's attribute, and a (key, sentence) problem
        for each that cannot be read (its value then the neutral one)."""
        values: dict[str, Any] = {}
        problems: list[tuple[str, str]] = []
        for field in TYPED:
            text = self.texts[field.key].text().strip()
            values[field.name] = field.neutral
            try:
                values[field.name] = _read(field, text)
            except ValueError as err:
                problems.append((field.key, _problem(field, err)))
        return values, problems

    def number_values(self) -> dict[str, Any]:
        """The numbers as set, by the plan's attribute (decimals to the thousandth)."""
        values: dict[str, Any] = {}
        for field in NUMBERS:
            value = self.numbers[field.key].value()
            values[field.name] = round(value, 3) if field.kind is Kind.DECIMAL else value
        return values

    def set_numbers(self, plan: Plan) -> None:
        for field in NUMBERS:
            self.numbers[field.key].setValue(getattr(plan, field.name))

    def set_typed(self, plan: Plan) -> None:
        for field in TYPED:
            value = getattr(plan, field.name)
            self.texts[field.key].setText("" if value is None else str(value))

    def flags(self) -> dict[str, bool]:
        """The plan's yes-or-no settings as ticked."""
        return {name: self.checks[name].isChecked() for name in PLAN_FLAGS}

    def set_flags(self, plan: Plan) -> None:
        for name in PLAN_FLAGS:
            self.checks[name].setChecked(bool(getattr(plan, name)))

    def layout_page(self, rows: list[tuple[QLabel | None, QWidget]]) -> QWidget:
        """The page from (label, cell) rows; no label: the cell spans the row."""
        page = QWidget()
        outer = QVBoxLayout(page)
        outer.setContentsMargins(4, 4, 4, 4)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for label, cell in rows:
            if label is not None:
                form.addRow(label, cell)
            else:
                form.addRow(cell)
        outer.addLayout(form)
        outer.addStretch(1)
        return page

    def early_row(self) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.early_fraction, 1)
        layout.addWidget(QLabel("after at least"))
        layout.addWidget(self.early_min)
        layout.addWidget(QLabel("runs"))
        return row


def _read(field: PlanField, text: str) -> object:
    """One typed setting by its kind; empty: the neutral value (a rate: 0)."""
    if field.kind is Kind.RATE:
        return parse_rate(text or "0")
    if not text:
        return field.neutral
    if field.kind is Kind.SIZE:
        return parse_size(text)
    names = parse_names(text)
    if len(names) != 1:
        raise ValueError(f"write one {field.words}")
    return field.parse(names[0]) if field.parse else names[0]


def _problem(field: PlanField, err: ValueError) -> str:
    if field.kind is Kind.SIZE:
        return f"Write a size such as {field.example}, or leave it empty."
    if field.kind is Kind.RATE:
        return f"The {field.words} must be a rate such as {field.example}."
    return f"{str(err)[:1].upper()}{str(err)[1:]}, or clear it."


def _number(field: PlanField) -> SpinBox | DoubleSpinBox:
    """A spin box for one of the plan's numbers, all of it from the table and the plan."""
    if field.limit is not None:
        span = drivers.widest(field.limit)
        low, high = span.low, span.high
    elif field.cli is not None and field.cli.low is not None and field.cli.high is not None:
        low, high = field.cli.low, field.cli.high
    else:
        assert field.bounds is not None, f"{field.name} has no range"
        low, high = field.bounds
    default: Any = Plan.__dataclass_fields__[field.name].default
    suffix = f" {field.unit}" if field.unit else ""
    tip = drivers.phrased(field.tip)
    if field.kind is Kind.DECIMAL:
        return _double(low, high, float(default), tip, suffix)
    return _spin(int(low), int(high), int(default), tip, suffix)
