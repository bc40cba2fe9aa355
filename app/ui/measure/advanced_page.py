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

from app.domain.plan import EarlyStop, Plan
from app.domain.plan_fields import (
    BY_KEY,
    BY_NAME,
    PLAN_FIELDS,
    RUN_FIELDS,
    Kind,
    PlanField,
    parse_names,
)
from app.domain.units import parse_rate, parse_size
from app.engine.drivers import registry
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

#: The plan's yes-or-no settings, each a check box labelled by its row, under its key.
FLAGS = tuple(f for f in PLAN_FIELDS if f.kind is Kind.FLAG)
#: The plan's choices whose row gives the form's labels (the run order): each a combo box.
CHOICES = tuple(f for f in PLAN_FIELDS if f.kind is Kind.CHOICE and f.choices)
#: The engine settings typed as text (a size, a rate, a name such as a congestion control or
#: a DSCP mark): each a text field made from its row of the field table (its placeholder,
#: tooltip, neutral value and examples), read by its kind.
TYPED = tuple(f for f in RUN_FIELDS if f.kind in (Kind.SIZE, Kind.RATE, Kind.NAME))
#: The plan's numbers set on this page (the Study page has its runs and seconds): each a spin
#: box made from its row of the table, with its range (the engines' widest limit, the option's
#: bounds or the table's own), its first value (the row's, else the plan's default), its unit
#: and its tooltip. The peer's latency responder port is a row too, though not the plan's own.
NUMBERS = tuple(
    f for f in PLAN_FIELDS if f.kind in (Kind.COUNT, Kind.DECIMAL) and f.tip and f.name in BY_NAME
)
#: Early stop: a check box and its parts' two numbers, the share shown in per cent.
EARLY = BY_KEY["early_stop"]
#: The peer's latency responder port, a number of the peer's set on this page.
ECHO = BY_KEY["echo_port"]


class AdvancedControls:
    """The controls of the Advanced page; the set-up form registers and lays them out."""

    def __init__(self, conditions: ConditionsBox) -> None:
        self.texts: dict[str, QLineEdit] = {}
        for field in TYPED:
            edit = QLineEdit(_shown(field, field.neutral))
            edit.setPlaceholderText(field.placeholder)
            edit.setToolTip(registry.phrased(field.tip))
            self.texts[field.key] = edit
        self.numbers: dict[str, SpinBox | DoubleSpinBox] = {f.key: _number(f) for f in NUMBERS}
        self.choices: dict[str, ValueCombo] = {f.key: _choice(f) for f in CHOICES}
        self.order = self.choices["order"]
        self.flag_boxes: dict[str, QCheckBox] = {f.key: _check(f) for f in FLAGS}
        for field in FLAGS:
            self.flag_boxes[field.key].setObjectName(field.key)
        self.early_stop = _check(EARLY)
        fraction, minimum = EARLY.parts
        self.early_fraction = _decimal(fraction)
        self.early_min = _count(minimum)
        for part, spin in ((fraction, self.early_fraction), (minimum, self.early_min)):
            accessible(spin, part.label)
        self.echo_port = _count(ECHO)
        self.conditions = conditions

    @property
    def checks(self) -> dict[str, QCheckBox]:
        """The check boxes, by the form's key, in the page's order."""
        return {**self.flag_boxes, "early": self.early_stop}

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
            self.texts[field.key].setText(_shown(field, getattr(plan, field.name)))

    def flags(self) -> dict[str, Any]:
        """The plan's yes-or-no settings as ticked, by the plan's attribute."""
        return {f.name: self.flag_boxes[f.key].isChecked() for f in FLAGS}

    def set_flags(self, plan: Plan) -> None:
        for field in FLAGS:
            self.flag_boxes[field.key].setChecked(bool(getattr(plan, field.name)))

    def choice_values(self) -> dict[str, Any]:
        """The plan's choices made here, by the plan's attribute."""
        return {f.name: self.choices[f.key].currentData() for f in CHOICES}

    def set_choices(self, plan: Plan) -> None:
        for field in CHOICES:
            combo = self.choices[field.key]
            index = combo.findData(getattr(plan, field.name))
            if index >= 0:
                combo.setCurrentIndex(index)

    def early(self) -> EarlyStop | None:
        """Early stop as set: None when unticked."""
        if not self.early_stop.isChecked():
            return None
        return EarlyStop(self.early_fraction.value() / 100, self.early_min.value())

    def set_early(self, plan: Plan) -> None:
        self.early_stop.setChecked(plan.early_stop is not None)
        if plan.early_stop is not None:
            self.early_fraction.setValue(plan.early_stop.relative_ci * 100)
            self.early_min.setValue(plan.early_stop.min_runs)

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


def _shown(field: PlanField, value: object) -> str:
    """A typed setting as its field shows it: none, or a rate of 0 (unlimited), is the empty
    field with its hint ("unlimited"), never a "0" that reads as nothing sent."""
    if value is None or (field.kind is Kind.RATE and value == 0):
        return ""
    return str(value)


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
        return f"The {field.words} must be a rate such as {field.example}, or empty (unlimited)."
    return f"{str(err)[:1].upper()}{str(err)[1:]}, or clear it."


def _check(field: PlanField) -> QCheckBox:
    """A yes-or-no setting: a check box with the row's label (its accessible name) and tip."""
    box = QCheckBox(field.label)
    box.setToolTip(registry.phrased(field.tip))
    accessible(box, field.label)
    return box


def _choice(field: PlanField) -> ValueCombo:
    """One of a choice's values: a combo box with the row's labels, in the row's order."""
    return _combo([(label, value) for value, label in field.choices], registry.phrased(field.tip))


def _range(field: PlanField) -> tuple[float, float]:
    """A number's range: the engines' widest limit, the option's bounds or the table's own."""
    if field.limit is not None:
        span = registry.widest(field.limit)
        return span.low, span.high
    if field.cli is not None and field.cli.low is not None and field.cli.high is not None:
        return field.cli.low, field.cli.high
    assert field.bounds is not None, f"{field.name} has no range"
    return field.bounds


def _start(field: PlanField) -> Any:
    """The form's first value: the row's own, else the plan's default."""
    if field.start is not None:
        return field.start
    return Plan.__dataclass_fields__[field.name].default


def _suffix(field: PlanField) -> str:
    return f" {field.unit}" if field.unit else ""


def _count(field: PlanField) -> SpinBox:
    low, high = _range(field)
    tip = registry.phrased(field.tip)
    return _spin(int(low), int(high), int(_start(field)), tip, _suffix(field))


def _decimal(field: PlanField) -> DoubleSpinBox:
    low, high = _range(field)
    return _double(low, high, float(_start(field)), registry.phrased(field.tip), _suffix(field))


def _number(field: PlanField) -> SpinBox | DoubleSpinBox:
    """A spin box for one of the plan's numbers, all of it from the table and the plan."""
    return _decimal(field) if field.kind is Kind.DECIMAL else _count(field)
