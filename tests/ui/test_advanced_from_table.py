"""The Advanced page is drawn from the plan-field table: each yes-or-no row is a check box, each
choice with labels a drop-down, each number a spin box with the row's range, unit and tooltip;
each is found by its label and what a person sets there reaches the plan the form builds."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QComboBox, QTabWidget

from app.domain.plan import EarlyStop, Plan
from app.domain.plan_fields import BY_KEY, PLAN_FIELDS, Kind, PlanField
from app.engine.drivers import registry
from app.engine.errors import EngineMissing
from app.ui.main_window import MainWindow
from tests.ui.user import User

FLAGS = [f for f in PLAN_FIELDS if f.kind is Kind.FLAG]
CHOICES = [f for f in PLAN_FIELDS if f.kind is Kind.CHOICE and f.choices]
#: Every number with a tooltip is set on the Advanced page (the Study page's have none).
NUMBERS = [f for f in PLAN_FIELDS if f.kind in (Kind.COUNT, Kind.DECIMAL) and f.tip]
EARLY = BY_KEY["early_stop"]


def _plan(window: MainWindow) -> Plan:
    plan = window.measure.setup.plan()
    assert plan is not None, window.measure.setup.problems_label.text()
    return plan


def _value(plan: Plan, field: PlanField) -> object:
    """The plan's value at a row's attribute ("peer.echo_port": the peer's)."""
    value: object = plan
    for part in field.name.split("."):
        value = getattr(value, part)
    return value


def _suffix(field: PlanField) -> str:
    return f" {field.unit}" if field.unit else ""


def test_the_tables_rows_are_the_ones_drawn() -> None:
    assert {f.key for f in FLAGS} == {"concurrent", "clocks_synchronised"}
    assert [f.key for f in CHOICES] == ["order"]
    assert {"echo_port", "seed", "omit", "max_consecutive_failures"} <= {f.key for f in NUMBERS}
    assert [p.label for p in EARLY.parts] == ["Early-stop precision", "Early-stop minimum runs"]


def test_the_pages_check_boxes_are_the_tables_flags_and_early_stop(
    window: MainWindow, user: User
) -> None:
    """A new yes-or-no row gets its check box: the page has one per FLAG row, and early stop's."""
    user.tab("Measure")
    user.tab("Advanced")
    page = window.findChild(QTabWidget, "setup_pages").currentWidget()
    boxes = [b for b in page.findChildren(QCheckBox) if User.shown(b)]
    assert sorted(b.text() for b in boxes) == sorted([f.label for f in FLAGS] + [EARLY.label])
    assert all(b.accessibleName() == b.text() for b in boxes)


@pytest.mark.usefixtures("iperf3_tool")
def test_each_flag_row_is_a_check_box_that_reaches_the_plan(window: MainWindow, user: User) -> None:
    # An engine that runs series together and measures one-way delay takes both flags.
    both = next(d for d in registry.DRIVERS.values() if d.concurrent and d.one_way_delay)
    try:
        registry.find_tool(both.programs[0].name)
    except EngineMissing as err:
        pytest.skip(f"{both.label} is not installed: {err.sentence}")
    user.tab("Measure")
    user.choose("Engine", both.label)
    user.choose("Protocol", "TCP and UDP")
    user.choose("Direction", "Download")
    user.type("Values list", "1408")
    user.tab("Advanced")
    for field in FLAGS:
        box = user.find(field.label, QCheckBox)
        assert box.text() == field.label and box.objectName() == field.key
        assert box.isEnabled() and box.toolTip() == registry.phrased(field.tip)
        assert _value(_plan(window), field) is False
        user.check(field.label)
        assert _value(_plan(window), field) is True
        user.check(field.label, False)
        assert _value(_plan(window), field) is False


@pytest.mark.usefixtures("iperf3_tool")
def test_each_choice_row_is_a_drop_down_with_the_rows_labels(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    user.tab("Advanced")
    for field in CHOICES:
        combo = user.find(field.label, QComboBox)
        assert combo.toolTip() == registry.phrased(field.tip)
        assert user.options(field.label) == [label for _, label in field.choices]
        for value, label in (*field.choices[1:], field.choices[0]):
            user.choose(field.label, label)
            assert _value(_plan(window), field) == value


@pytest.mark.usefixtures("iperf3_tool")
def test_each_number_row_is_a_spin_box_that_reaches_the_plan(
    window: MainWindow, user: User
) -> None:
    user.tab("Measure")
    user.check("Working latency")  # the latency responder's port is used
    user.tab("Advanced")
    user.choose("Order", "Shuffled")  # the seed is used
    for field in NUMBERS:
        spin = user.find(field.label, QAbstractSpinBox)
        assert spin.isEnabled(), f"{field.label}: {spin.toolTip()}"
        assert spin.toolTip() == registry.phrased(field.tip)
        assert spin.suffix() == _suffix(field)
        if field.bounds is not None:
            assert (spin.minimum(), spin.maximum()) == field.bounds
        assert _value(_plan(window), field) == spin.value()
        typed = spin.value() + 1
        user.type(field.label, f"{typed:g}")
        assert _value(_plan(window), field) == typed, field.label


@pytest.mark.usefixtures("iperf3_tool")
def test_early_stop_is_a_check_box_with_its_parts_numbers(window: MainWindow, user: User) -> None:
    user.tab("Measure")
    user.type("Runs per point", "4")
    user.tab("Advanced")
    box = user.find(EARLY.label, QCheckBox)
    assert box.toolTip() == registry.phrased(EARLY.tip)
    spins = [user.find(part.label, QAbstractSpinBox) for part in EARLY.parts]
    for part, spin in zip(EARLY.parts, spins, strict=True):
        assert spin.toolTip() == registry.phrased(part.tip) and spin.suffix() == _suffix(part)
        assert (spin.minimum(), spin.maximum()) == part.bounds and spin.value() == part.start
        assert not spin.isEnabled()  # until early stop is ticked
    assert _plan(window).early_stop is None
    user.check(EARLY.label)
    assert all(spin.isEnabled() for spin in spins)
    fraction, minimum = EARLY.parts
    user.type(fraction.label, "5")  # the share, shown in per cent
    user.type(minimum.label, "3")
    assert _plan(window).early_stop == EarlyStop(0.05, 3)
