"""The set-up form: every setting of a plan on two pages, Study and Advanced, turned into a Plan.

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
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.domain.plan import Assignment, Conditions, Metric, Plan, Variable
from app.domain.plan_fields import BY_KEY, value_word
from app.study.sweep.applicability import inapplicable, unavailable_choices
from app.study.sweep.describe import default_name, duration_text
from app.study.sweep.plan_checks import plan_problems, port_field_key
from app.ui.common.widgets import (
    ERROR_COLOUR,
    FieldError,
    number_problem,
    scroll_page,
    with_error,
)
from app.ui.measure.advanced_page import AdvancedControls
from app.ui.measure.conditions_box import ConditionsBox
from app.ui.measure.form_fields import ADVANCED, OTHER_LABELS, PAGE_NAMES, STUDY, Field, FormFields
from app.ui.measure.peer_row import LOCAL_NOTE, PeerRow
from app.ui.measure.study_page import StudyControls

#: The range's fields: their values are the sweep's only while no list is typed.
RANGE_KEYS = ("range_from", "range_to", "range_step")


class _PeerError:
    """The peer's problems go to the line under the peer field, where Check peer answers."""

    def __init__(self, row: PeerRow) -> None:
        self._row = row
        self._shown = False

    def show_problem(self, sentence: str) -> None:
        if sentence:
            self._row.show_problem(sentence)
        elif self._shown:
            self._row.show_note(LOCAL_NOTE if self._row.is_this_computer else "")
        self._shown = bool(sentence)


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
        self.pages.addTab(scroll_page(self._study_page()), PAGE_NAMES[STUDY])
        self.pages.addTab(scroll_page(self._advanced_page()), PAGE_NAMES[ADVANCED])
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

    # -- building the form -----------------------------------------------------------------
    def _register(self, key: str, label: str, control: QWidget, page: int) -> QWidget:
        return self.form.register(key, label, control, page)

    def _label(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    def _grid_field(
        self, grid: QGridLayout, row: int, column: int, key: str, text: str, control: QWidget
    ) -> None:
        grid.addWidget(self._label(text, control), row, column)
        grid.addWidget(self._register(key, text, control, STUDY), row, column + 1)

    def _study_page(self) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        outer.setContentsMargins(4, 4, 4, 4)
        peer_box = QGroupBox("Peer")
        peer_layout = QVBoxLayout(peer_box)
        peer_layout.addWidget(self.peer_row)
        peer_error = _PeerError(self.peer_row)
        self._fields["peer"] = Field("Peer", self.peer_row.host_combo, peer_error, STUDY)
        for port_key, spin in self.peer_row.ports.items():
            label = spin.accessibleName()
            self._fields[port_field_key(port_key)] = Field(label, spin, peer_error, STUDY)
        outer.addWidget(peer_box)
        outer.addWidget(self._measure_group())
        outer.addWidget(self._session_group())
        outer.addStretch(1)
        return page

    def _measure_group(self) -> QGroupBox:
        box = QGroupBox("What to measure")
        grid = QGridLayout(box)
        self._grid_field(grid, 0, 0, "engine", "&Engine", self.study.engine)
        self._grid_field(grid, 0, 2, "direction", "&Direction", self.study.direction)
        self._grid_field(grid, 1, 0, "protocols", "Pro&tocol", self.study.protocol)
        self._grid_field(grid, 1, 2, "ip_versions", "&IP version", self.study.ip_version)
        grid.addWidget(self._label("S&weep", self.study.variable), 2, 0)
        grid.addWidget(self._register("variable", "Sweep", self.study.variable, STUDY), 2, 1, 1, 3)

        grid.addWidget(self.study.range_label, 3, 0)
        grid.addWidget(self.study.range_row, 3, 1, 1, 3)
        grid.addWidget(self.study.list_label, 4, 0)
        cell = self._register("values", "Values list", self.study.custom_values, STUDY)
        grid.addWidget(cell, 4, 1, 1, 3)
        grid.addWidget(self.study.values_count, 5, 1, 1, 3)
        values_error = self._fields["values"].error
        for key, text, spin in (
            ("range_from", "Values from", self.study.range_from),
            ("range_to", "Values to", self.study.range_to),
            ("range_step", "Values step", self.study.range_step),
        ):
            self._fields[key] = Field(text, spin, values_error, STUDY)

        self._grid_field(grid, 6, 0, "repetitions", "&Runs per point", self.study.repetitions)
        self._grid_field(grid, 6, 2, "duration", "Seconds per ru&n", self.study.duration)

        metrics = QHBoxLayout()
        metrics.setContentsMargins(0, 0, 0, 0)
        for check in self.study.metric_boxes.values():
            metrics.addWidget(check)
        metrics.addStretch(1)
        metrics_cell = QWidget()
        metrics_cell.setLayout(metrics)
        grid.addWidget(QLabel("Metrics"), 7, 0)
        grid.addWidget(self._register("metrics", "Metrics", metrics_cell, STUDY), 7, 1, 1, 3)
        metrics_error = self._fields["metrics"].error
        self._fields["metrics"].control = self.study.metric_boxes[Metric.THROUGHPUT]
        self._fields["rtt"] = Field(
            "RTT", self.study.metric_boxes[Metric.RTT], metrics_error, STUDY
        )

        grid.addWidget(QLabel("Estimated time"), 8, 0)
        grid.addWidget(self.study.estimate, 8, 1, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        return box

    def _session_group(self) -> QGroupBox:
        box = QGroupBox("Session")
        grid = QGridLayout(box)
        grid.addWidget(self._label("Session na&me", self.study.name_edit), 0, 0)
        grid.addWidget(
            self._register("name", "Session name", self.study.name_edit, STUDY), 0, 1, 1, 3
        )
        security = self.conditions_box.security
        grid.addWidget(self._label("Se&curity", security), 1, 0)
        error = FieldError("security")
        self._fields["security"] = Field("Security", security, error, STUDY)
        grid.addWidget(with_error(self.conditions_box.security_row(), error), 1, 1)
        self._grid_field(grid, 1, 2, "medium", "Medi&um", self.conditions_box.medium)
        # Under the security: what the Wi-Fi detection found, or why it could not.
        grid.addWidget(self.conditions_box.wifi_row(), 2, 1, 1, 3)
        link_rate = self.conditions_box.link_rate
        grid.addWidget(self._label("Lin&k rate", link_rate), 3, 0)
        rate_error = FieldError("link_rate")
        self._fields["link_rate"] = Field("Link rate", link_rate, rate_error, STUDY)
        grid.addWidget(with_error(self.conditions_box.link_rate_row(), rate_error), 3, 1)
        grid.addWidget(self.conditions_box.detected_note, 4, 1, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        return box

    def _advanced_page(self) -> QWidget:
        adv = self.adv
        rows: list[tuple[QLabel | None, QWidget]] = []
        for key, control in (
            *adv.run_controls.items(),
            ("omit", adv.numbers["omit"]),
            ("interval", adv.numbers["interval"]),
            ("pause", adv.numbers["pause"]),
            ("order", adv.order),
            ("seed", adv.numbers["seed"]),
            ("echo_port", adv.echo_port),
            ("max_consecutive_failures", adv.numbers["max_consecutive_failures"]),
            ("frame_overhead", self.conditions_box.frame_overhead),
            ("tags", self.tags),
            ("notes", self.conditions_box.notes),
        ):
            label = BY_KEY[key].label if key in BY_KEY else OTHER_LABELS[key]
            rows.append(
                (self._label(label, control), self._register(key, label, control, ADVANCED))
            )
        checks: list[tuple[QLabel | None, QWidget]] = [
            (None, self._register(key, box.text(), box, ADVANCED))
            for key, box in adv.checks.items()
        ]
        early_error = FieldError("early_stop")
        self._fields["early_stop"] = Field(
            "Early-stop minimum runs", adv.early_min, early_error, ADVANCED
        )
        checks.append((None, with_error(adv.early_row(), early_error)))
        # The check boxes after the order, before the failures allowed, tags and notes.
        at = len(adv.run_controls) + 6  # after the seed and the echo port
        return adv.layout_page(rows[:at] + checks + rows[at:])

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
            f"{len(values)} value{'s' if len(values) != 1 else ''}: "
            + ", ".join(value_word(v) for v in values[:8])
            + (" …" if len(values) > 8 else "")
        )
        self.study.estimate.setText(
            f"{duration_text(candidate.estimated_seconds())} for {candidate.total_runs} runs"
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
