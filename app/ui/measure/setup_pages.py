"""The set-up form's two pages laid out: the Study page (the peer, what to measure, the
session) and the Advanced page, each control beside its label and registered as a field of the
form (its label, page and error line)."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.domain.plan import Metric
from app.domain.plan_fields import BY_KEY
from app.study.sweep.plan_checks import port_field_key
from app.ui.common.widgets import FieldError, with_error
from app.ui.measure.advanced_page import AdvancedControls
from app.ui.measure.conditions_box import ConditionsBox
from app.ui.measure.form_fields import ADVANCED, OTHER_LABELS, STUDY, Field, FormFields
from app.ui.measure.peer_row import LOCAL_NOTE, PeerRow
from app.ui.measure.study_page import StudyControls


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


def _label(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def _grid_field(
    form: FormFields,
    grid: QGridLayout,
    row: int,
    column: int,
    key: str,
    text: str,
    control: QWidget,
) -> None:
    grid.addWidget(_label(text, control), row, column)
    grid.addWidget(form.register(key, text, control, STUDY), row, column + 1)


def lay_out_study_page(
    form: FormFields, peer_row: PeerRow, study: StudyControls, conditions: ConditionsBox
) -> QWidget:
    """The Study page: the peer, what to measure and the session."""
    page = QWidget()
    outer = QVBoxLayout(page)
    outer.setContentsMargins(4, 4, 4, 4)
    peer_box = QGroupBox("Peer")
    peer_layout = QVBoxLayout(peer_box)
    peer_layout.addWidget(peer_row)
    peer_error = _PeerError(peer_row)
    form.fields["peer"] = Field("Peer", peer_row.host_combo, peer_error, STUDY)
    for port_key, spin in peer_row.ports.items():
        label = spin.accessibleName()
        form.fields[port_field_key(port_key)] = Field(label, spin, peer_error, STUDY)
    outer.addWidget(peer_box)
    outer.addWidget(_measure_group(form, study))
    outer.addWidget(_session_group(form, study, conditions))
    outer.addStretch(1)
    return page


def _measure_group(form: FormFields, study: StudyControls) -> QGroupBox:
    box = QGroupBox("What to measure")
    grid = QGridLayout(box)
    _grid_field(form, grid, 0, 0, "engine", "&Engine", study.engine)
    _grid_field(form, grid, 0, 2, "direction", "&Direction", study.direction)
    _grid_field(form, grid, 1, 0, "protocols", "Pro&tocol", study.protocol)
    _grid_field(form, grid, 1, 2, "ip_versions", "&IP version", study.ip_version)
    grid.addWidget(_label("S&weep", study.variable), 2, 0)
    grid.addWidget(form.register("variable", "Sweep", study.variable, STUDY), 2, 1, 1, 3)

    grid.addWidget(study.range_label, 3, 0)
    grid.addWidget(study.range_row, 3, 1, 1, 3)
    grid.addWidget(study.list_label, 4, 0)
    cell = form.register("values", "Values list", study.custom_values, STUDY)
    grid.addWidget(cell, 4, 1, 1, 3)
    grid.addWidget(study.values_count, 5, 1, 1, 3)
    values_error = form.fields["values"].error
    for key, text, spin in (
        ("range_from", "Values from", study.range_from),
        ("range_to", "Values to", study.range_to),
        ("range_step", "Values step", study.range_step),
    ):
        form.fields[key] = Field(text, spin, values_error, STUDY)

    _grid_field(form, grid, 6, 0, "repetitions", "&Runs per point", study.repetitions)
    _grid_field(form, grid, 6, 2, "duration", "Seconds per ru&n", study.duration)

    metrics = QHBoxLayout()
    metrics.setContentsMargins(0, 0, 0, 0)
    for check in study.metric_boxes.values():
        metrics.addWidget(check)
    metrics.addStretch(1)
    metrics_cell = QWidget()
    metrics_cell.setLayout(metrics)
    grid.addWidget(QLabel("Metrics"), 7, 0)
    grid.addWidget(form.register("metrics", "Metrics", metrics_cell, STUDY), 7, 1, 1, 3)
    metrics_error = form.fields["metrics"].error
    form.fields["metrics"].control = study.metric_boxes[Metric.THROUGHPUT]
    form.fields["rtt"] = Field("RTT", study.metric_boxes[Metric.RTT], metrics_error, STUDY)

    grid.addWidget(QLabel("Estimated time"), 8, 0)
    grid.addWidget(study.estimate, 8, 1, 1, 3)
    grid.setColumnStretch(1, 1)
    grid.setColumnStretch(3, 1)
    return box


def _session_group(form: FormFields, study: StudyControls, conditions: ConditionsBox) -> QGroupBox:
    box = QGroupBox("Session")
    grid = QGridLayout(box)
    grid.addWidget(_label("Session na&me", study.name_edit), 0, 0)
    grid.addWidget(form.register("name", "Session name", study.name_edit, STUDY), 0, 1, 1, 3)
    security, medium = conditions.security, conditions.medium
    grid.addWidget(_label("Se&curity", security), 1, 0)
    grid.addWidget(conditions.security_row(), 1, 1)
    grid.addWidget(_label("Medi&um", medium), 1, 2)
    grid.addWidget(medium, 1, 3)
    # Their errors under both, across the page: a sentence in the medium's half of the row
    # would take a line for every few words.
    for row, (key, label, control) in enumerate(
        (("security", "Security", security), ("medium", "Medium", medium)), start=2
    ):
        error = FieldError(key)
        form.add(key, label, control, error, STUDY)
        grid.addWidget(error, row, 1, 1, 3)
    # Under the security: what the Wi-Fi detection found, or why it could not.
    grid.addWidget(conditions.wifi_row(), 4, 1, 1, 3)
    link_rate = conditions.link_rate
    grid.addWidget(_label("Lin&k rate", link_rate), 5, 0)
    rate_error = FieldError("link_rate")
    form.fields["link_rate"] = Field("Link rate", link_rate, rate_error, STUDY)
    grid.addWidget(with_error(conditions.link_rate_row(), rate_error), 5, 1)
    grid.addWidget(conditions.detected_note, 6, 1, 1, 3)
    grid.setColumnStretch(1, 1)
    grid.setColumnStretch(3, 1)
    return box


def lay_out_advanced_page(
    form: FormFields, adv: AdvancedControls, conditions: ConditionsBox
) -> QWidget:
    """The Advanced page: the engine's settings, the sweep's order and pauses, early stop,
    the failures allowed, the frame overhead, tags and notes."""
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
        ("frame_overhead", conditions.frame_overhead),
        ("tags", conditions.tags),
        ("notes", conditions.notes),
    ):
        label = BY_KEY[key].label if key in BY_KEY else OTHER_LABELS[key]
        rows.append((_label(label, control), form.register(key, label, control, ADVANCED)))
    checks: list[tuple[QLabel | None, QWidget]] = [
        (None, form.register(key, box.text(), box, ADVANCED)) for key, box in adv.checks.items()
    ]
    early_error = FieldError("early_stop")
    form.fields["early_stop"] = Field(
        "Early-stop minimum runs", adv.early_min, early_error, ADVANCED
    )
    checks.append((None, with_error(adv.early_row(), early_error)))
    # The check boxes after the order, before the failures allowed, tags and notes.
    at = len(adv.run_controls) + 6  # after the seed and the echo port
    return adv.layout_page(rows[:at] + checks + rows[at:])
