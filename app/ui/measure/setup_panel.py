"""The set-up form: every setting of a plan on two pages, Study and Advanced (laid out by
setup_pages.py), turned into a Plan and filled from one.

Every control has a visible label and an accessible name and says in its tooltip what it
changes in the engine. An invalid value is marked at its field with the reason right below it;
a setting that does nothing for the chosen engine or protocol is disabled with the reason as
its tooltip.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QLabel,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.domain.plan import Assignment, Conditions, Plan, Variable
from app.domain.plan_fields import value_word
from app.domain.units import counted
from app.study.sweep.applicability import inapplicable, unavailable_choices
from app.study.sweep.describe import default_name, duration_text
from app.study.sweep.plan_checks import plan_problems
from app.ui.common.widgets import ERROR_COLOUR, number_problem, scroll_page
from app.ui.measure.advanced_page import AdvancedControls
from app.ui.measure.conditions_box import ConditionsBox
from app.ui.measure.form_fields import ADVANCED, PAGE_NAMES, STUDY, Field, FormFields
from app.ui.measure.peer_row import PeerRow
from app.ui.measure.setup_pages import lay_out_advanced_page, lay_out_study_page
from app.ui.measure.study_page import StudyControls

#: The range's fields: their values are the sweep's only while no list is typed.
RANGE_KEYS = ("range_from", "range_to", "range_step")


class SetupPanel(QWidget):
    """Emits plan_changed(Plan | None) whenever a field changes."""

    plan_changed = Signal(object)

    def __init__(self, history: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._building = True
        self.form = FormFields()
        self._fields = self.form.fields
        self._problems: list[tuple[str, str]] = []
        # A step of a lab exercise: who measures, and the fields it locks (key -> reason).
        self.assignment: Assignment | None = None
        self.locks: dict[str, str] = {}
        self.peer_row = PeerRow(history)
        self.conditions_box = ConditionsBox(self, lambda key: key in self.locks)
        self.tags = self.conditions_box.tags
        self.adv = AdvancedControls(self.conditions_box)
        self.study = StudyControls()
        self.notice = QLabel()
        self.notice.setObjectName("preset_notice")
        self.notice.setAccessibleName("Preset changes")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        self.pages = QTabWidget()
        self.pages.setObjectName("setup_pages")
        study_page = scroll_page(
            lay_out_study_page(self.form, self.peer_row, self.study, self.conditions_box)
        )
        self.pages.addTab(study_page, PAGE_NAMES[STUDY])
        advanced_page = scroll_page(lay_out_advanced_page(self.form, self.adv, self.conditions_box))
        self.pages.addTab(advanced_page, PAGE_NAMES[ADVANCED])
        self.pages.setTabToolTip(
            ADVANCED,
            "Fixed packet size, window, parallel streams, UDP bitrate, warm-up, interval, "
            "pause, order, the latency responder's port, early stop, failures allowed, tags "
            "and notes.",
        )
        self.problems_label = QLabel()
        self.problems_label.setObjectName("problems")
        self.problems_label.setWordWrap(True)
        self.problems_label.setStyleSheet(f"color: {ERROR_COLOUR};")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.notice)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.problems_label)
        self._connect()
        self._building = False
        self._fill_range(Variable.LENGTH)
        self._changed()

    def _connect(self) -> None:
        self.peer_row.changed.connect(self._changed)
        self.conditions_box.changed.connect(self._changed)
        for combo in (
            self.study.engine,
            self.study.protocol,
            self.study.ip_version,
            self.study.direction,
            *self.adv.choices.values(),
        ):
            combo.currentIndexChanged.connect(self._changed)
        self.study.variable.currentIndexChanged.connect(self._variable_changed)
        adv = self.adv
        for spin in (
            self.study.range_from,
            self.study.range_to,
            self.study.range_step,
            self.study.repetitions,
            self.study.duration,
            adv.early_min,
            adv.echo_port,
        ):
            spin.valueChanged.connect(self._changed)
        for dspin in (*adv.numbers.values(), adv.early_fraction):
            dspin.valueChanged.connect(self._changed)
        # A number typed that no value is (a letter, too many digits) changes no value: its
        # text is checked as it is typed.
        for field in self._fields.values():
            if isinstance(field.control, QAbstractSpinBox):
                edit = field.control.lineEdit()
                assert edit is not None
                edit.textChanged.connect(self._changed)
        for edit in (
            self.study.custom_values,
            self.study.name_edit,
            *adv.texts.values(),
        ):
            edit.textChanged.connect(self._changed)
        for check in (*self.study.metric_boxes.values(), *adv.checks.values()):
            check.toggled.connect(self._changed)

    # -- reacting --------------------------------------------------------------------------
    def _variable_changed(self) -> None:
        self._fill_range(self.study.variable.currentData())
        self._changed()

    def _fill_range(self, variable: Variable) -> None:
        building, self._building = self._building, True
        self.study.fill_range(variable)
        self._building = building

    def set_detected_security(self, value: str) -> None:
        """Pre-fill the security from Wi-Fi detection, unless the user already chose one (or
        an exercise states it)."""
        if "security" not in self.locks:
            self.conditions_box.set_detected_security(value)

    def set_engine_unavailable(self, reasons: dict[object, str]) -> None:
        """Engines that are not installed: their items are disabled, saying why."""
        self.study.engine.set_unavailable(reasons)

    def show_notice(self, text: str) -> None:
        """What a preset set (or anything else the form should say above its pages)."""
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def _changed(self) -> None:
        if self._building:
            return
        candidate, problems = self.build_candidate()
        self._problems = problems
        self._show_choices(candidate)
        reasons = {**inapplicable(candidate), **self.locks}
        lines = self.form.apply(problems, reasons, self._values_field())
        self.problems_label.setText("\n".join(lines))
        self.problems_label.setVisible(bool(lines))
        values, _ = self.study.values()
        self.study.values_count.setText(
            f"{counted(len(values), 'value')}: "
            + ", ".join(value_word(v) for v in values[:8])
            + (" …" if len(values) > 8 else "")
        )
        self.study.estimate.setText(
            f"{duration_text(candidate.estimated_seconds())} for "
            f"{counted(candidate.total_runs, 'run')}"
        )
        self.study.name_edit.setPlaceholderText(default_name(candidate))
        self.plan_changed.emit(None if problems else candidate)

    def _values_field(self) -> dict[str, Field]:
        """Without a typed list, the range's last value carries the problems of the values."""
        if self.study.custom_values.text().strip():
            return {}
        return {"values": Field("Values", self.study.range_to, self._fields["values"].error, STUDY)}

    def _field_for(self, key: str) -> Field | None:
        return self._values_field().get(key) or self._fields.get(key)

    def _show_choices(self, plan: Plan) -> None:
        early_on = self.adv.early_stop.isChecked()
        self.adv.early_fraction.setEnabled(early_on)
        self.adv.early_min.setEnabled(early_on)
        self.study.show_range_for(plan.variable)
        choices = unavailable_choices(plan)
        self.study.direction.set_unavailable(choices["direction"])
        self.study.variable.set_unavailable(choices["variable"])

    # -- the plan --------------------------------------------------------------------------
    def build_candidate(self) -> tuple[Plan, list[tuple[str, str]]]:
        """The plan the form describes, even when it cannot run, with (field, sentence)
        problems."""
        # What is typed in a number field and is no value it takes comes first: the plan
        # holds its last value meanwhile, which was not typed.
        problems = [
            (key, problem)
            for key, field in self._fields.items()
            if field.control.isEnabled()
            and (problem := number_problem(field.control))
            and (key not in RANGE_KEYS or self.study.uses_range())
        ]
        values, values_problem = self.study.values()
        if values_problem:
            problems.append(("values", values_problem))
        adv = self.adv
        typed, typed_problems = adv.typed()
        problems += typed_problems
        problems += self.conditions_box.problems()
        plan = Plan(
            peer=replace(self.peer_row.peer(), echo_port=adv.echo_port.value()),
            engine=self.study.engine.currentData(),
            protocols=self.study.protocol.currentData(),
            ip_versions=self.study.ip_version.currentData(),
            direction=self.study.direction.currentData(),
            variable=self.study.variable.currentData(),
            values=tuple(values),
            repetitions=self.study.repetitions.value(),
            duration_s=self.study.duration.value(),
            metrics=tuple(m for m, box in self.study.metric_boxes.items() if box.isChecked()),
            **typed,
            **adv.number_values(),
            **adv.choice_values(),
            early_stop=adv.early(),
            **adv.flags(),
            name=self.study.name_edit.text().strip(),
            conditions=self.conditions(),
            assignment=self.assignment,
        )
        problems += plan_problems(plan)
        return plan, problems

    def build(self) -> tuple[Plan | None, list[tuple[str, str]]]:
        """The plan the form describes, or None with (field, sentence) problems."""
        plan, problems = self.build_candidate()
        return (None if problems else plan), problems

    def plan(self) -> Plan | None:
        return self.build()[0]

    def conditions(self) -> Conditions:
        return self.conditions_box.conditions()

    def first_problem(self) -> tuple[str, str, str] | None:
        """(field key, its label, the sentence) of the first thing to fix, or None."""
        for key, sentence in self._problems:
            field = self._field_for(key)
            if field is not None:
                return key, field.label, sentence
        if self._problems:
            key, sentence = self._problems[0]
            return key, key, sentence
        return None

    def focus_field(self, key: str) -> None:
        """Show the field's page, scroll it into view and put the cursor there."""
        field = self._field_for(key)
        if field is None:
            return
        self.pages.setCurrentIndex(field.page)
        area = self.pages.widget(field.page)
        if isinstance(area, QScrollArea):
            area.ensureWidgetVisible(field.control)
        field.control.setFocus()

    def set_plan(self, plan: Plan) -> None:
        """Fill every field from a plan (a preset, a stored session, the last plan used)."""
        self._building = True
        adv = self.adv
        try:
            self.peer_row.set_peer(plan.peer)
            for combo, data in (
                (self.study.engine, plan.engine),
                (self.study.protocol, plan.protocols),
                (self.study.ip_version, plan.ip_versions),
                (self.study.direction, plan.direction),
                (self.study.variable, plan.variable),
            ):
                index = combo.findData(data)
                if index >= 0:
                    combo.setCurrentIndex(index)
            self.study.custom_values.setText(", ".join(str(v) for v in plan.values))
            self.study.repetitions.setValue(plan.repetitions)
            self.study.duration.setValue(plan.duration_s)
            adv.set_numbers(plan)
            adv.set_choices(plan)
            adv.set_typed(plan)
            adv.echo_port.setValue(plan.peer.echo_port)
            for metric, box in self.study.metric_boxes.items():
                box.setChecked(metric in plan.metrics)
            adv.set_early(plan)
            adv.set_flags(plan)
            self.study.name_edit.setText(plan.name)
            self.conditions_box.set_conditions(plan.conditions)
        finally:
            self._building = False
        self._changed()

    @property
    def uses_this_computer(self) -> bool:
        return self.peer_row.is_this_computer
