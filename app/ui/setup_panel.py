"""The set-up form: peer, what to measure, advanced settings and conditions, turned into a Plan.

Every field says in its tooltip what it changes in the engine; an invalid value is marked at
the field with the reason, and the plan is None until everything is valid.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.models import Direction, IpVersion, Protocol
from app.study.plan import (
    VARIABLE_LABELS,
    Conditions,
    EarlyStop,
    Engine,
    Metric,
    Order,
    Plan,
    Variable,
)
from app.ui.conditions_box import ConditionsBox
from app.ui.peer_row import PeerRow
from app.ui.widgets import _combo, _spin, duration_text, parse_tags
from app.units import parse_rate, parse_size

_INVALID_STYLE = "border: 2px solid #D55E00;"

#: Default sweep per variable: (from, to, step).
DEFAULT_RANGES = {
    Variable.LENGTH: (128, 1408, 256),
    Variable.DURATION: (10, 60, 10),
    Variable.WINDOW: (2048, 524288, 0),  # step 0: doubling
    Variable.PARALLEL: (1, 8, 1),
    Variable.BITRATE: (10_000_000, 100_000_000, 10_000_000),
    Variable.LOSS: (0, 25, 5),
}


class SetupPanel(QWidget):
    """Emits plan_changed(Plan | None) whenever a field changes."""

    plan_changed = Signal(object)

    def __init__(self, history: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._building = True
        self._tips: dict[int, str] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.peer_row = PeerRow(history)
        layout.addWidget(self._peer_group())
        layout.addWidget(self._measure_group())
        layout.addWidget(self._advanced_group())
        layout.addWidget(self._conditions_group())
        self.problems_label = QLabel()
        self.problems_label.setObjectName("problems")
        self.problems_label.setWordWrap(True)
        self.problems_label.setStyleSheet("color: #D55E00;")
        layout.addWidget(self.problems_label)
        layout.addStretch(1)
        self._building = False
        self._fill_range(Variable.LENGTH)
        self._changed()

    # -- building the form -----------------------------------------------------------------
    def _peer_group(self) -> QGroupBox:
        box = QGroupBox("Peer")
        form = QFormLayout(box)
        form.addRow(self.peer_row)
        self.peer_row.changed.connect(self._changed)
        return box

    def _measure_group(self) -> QGroupBox:
        box = QGroupBox("What to measure")
        form = QFormLayout(box)
        self.engine = _combo(
            [("iperf3", Engine.IPERF3), ("netperf", Engine.NETPERF)],
            "Which engine runs the tests. iperf3 measures throughput (and "
            "jitter and loss for UDP); netperf also measures round-trip time.",
        )
        self.protocol = _combo(
            [
                ("TCP", (Protocol.TCP,)),
                ("UDP", (Protocol.UDP,)),
                ("TCP and UDP", (Protocol.TCP, Protocol.UDP)),
            ],
            "TCP (iperf3 default) or UDP (iperf3 -u); both makes two series in one session.",
        )
        self.ip_version = _combo(
            [
                ("IPv4", (IpVersion.V4,)),
                ("IPv6", (IpVersion.V6,)),
                ("IPv4 and IPv6", (IpVersion.V4, IpVersion.V6)),
            ],
            "The IP version (iperf3 -4 / -6); both makes a series for each.",
        )
        self.direction = _combo(
            [
                ("Upload (this computer sends)", Direction.UP),
                ("Download (the peer sends)", Direction.DOWN),
                ("Both at once", Direction.BIDIR),
            ],
            "Which way the data flows: upload is iperf3's default, download adds -R, both "
            "at once adds --bidir.",
        )
        self.variable = _combo(
            [(VARIABLE_LABELS[v][0], v) for v in Variable],
            "What changes from point to point of the sweep: the packet "
            "size (iperf3 -l, netperf -m) by default.",
        )
        self.range_from = _spin(0, 999_999_999, 128, "The first value of the sweep.")
        self.range_to = _spin(1, 999_999_999, 1408, "The last value of the sweep.")
        self.range_step = _spin(0, 999_999_999, 256, "The step between values (0: doubling).")
        for spin in (self.range_from, self.range_to, self.range_step):
            spin.setMinimumWidth(60)
            spin.setMaximumWidth(120)
        row = QHBoxLayout()
        for label, spin in (
            ("from", self.range_from),
            ("to", self.range_to),
            ("step", self.range_step),
        ):
            row.addWidget(QLabel(label))
            row.addWidget(spin, 1)
        form.addRow(self.variable)
        form.addRow("Values", row)
        self.custom_values = QLineEdit()
        self.custom_values.setPlaceholderText("or a list: 128, 384, 1408")
        self.custom_values.setToolTip(
            "A list of values instead of the range (sizes accept K and M, bitrates accept M and G)."
        )
        self.custom_values.setObjectName("custom_values")
        form.addRow("", self.custom_values)
        self.values_count = QLabel()
        self.values_count.setObjectName("values_count")
        form.addRow("", self.values_count)
        self.repetitions = _spin(
            1,
            1000,
            3,
            "How many runs per point: the mean and standard deviation are computed over these.",
        )
        self.repetitions.setObjectName("repetitions")
        self.duration = _spin(1, 3600, 10, "Seconds per run (iperf3 -t, netperf -l).", " s")
        self.duration.setObjectName("duration")
        form.addRow("Runs per point", self.repetitions)
        form.addRow("Seconds per run", self.duration)
        metrics = QHBoxLayout()
        self.metric_boxes = {}
        for metric, text, tip in (
            (Metric.THROUGHPUT, "Throughput", "Bulk-transfer tests (iperf3, netperf *_STREAM)."),
            (
                Metric.RTT,
                "RTT",
                "Round-trip time from netperf's request/response tests "
                "(TCP_RR, UDP_RR): needs the netperf engine.",
            ),
            (Metric.CPU, "CPU", "CPU use on both ends (iperf3 reports it; netperf -c -C)."),
        ):
            check = QCheckBox(text)
            check.setToolTip(tip)
            check.setChecked(metric is not Metric.RTT)
            metrics.addWidget(check)
            self.metric_boxes[metric] = check
        metrics.addStretch(1)
        form.addRow("Metrics", metrics)
        self.estimate = QLabel()
        self.estimate.setObjectName("estimate")
        form.addRow("Estimated time", self.estimate)
        for widget in (self.engine, self.protocol, self.ip_version, self.direction):
            widget.currentIndexChanged.connect(self._changed)
        self.variable.currentIndexChanged.connect(self._variable_changed)
        for spin in (
            self.range_from,
            self.range_to,
            self.range_step,
            self.repetitions,
            self.duration,
        ):
            spin.valueChanged.connect(self._changed)
        self.custom_values.textChanged.connect(self._changed)
        for check in self.metric_boxes.values():
            check.toggled.connect(self._changed)
        return box

    def _advanced_group(self) -> QWidget:
        holder = QWidget()
        outer = QVBoxLayout(holder)
        outer.setContentsMargins(0, 0, 0, 0)
        self.advanced_toggle = QToolButton()
        self.advanced_toggle.setText("Advanced")
        self.advanced_toggle.setCheckable(True)
        self.advanced_toggle.setToolButtonStyle(
            self.advanced_toggle.toolButtonStyle().ToolButtonTextBesideIcon
        )
        self.advanced_toggle.setArrowType(self.advanced_toggle.arrowType().RightArrow)
        self.advanced_toggle.setToolTip(
            "Window, parallel streams, UDP bitrate, warm-up, pause, order and early stop."
        )
        outer.addWidget(self.advanced_toggle)
        self.advanced = QGroupBox()
        self.advanced.setVisible(False)
        form = QFormLayout(self.advanced)
        self.window_edit = QLineEdit()
        self.window_edit.setPlaceholderText("system default")
        self.window_edit.setToolTip("TCP window / socket buffer size (iperf3 -w), e.g. 64K.")
        self.parallel = _spin(1, 128, 1, "Parallel streams (iperf3 -P).")
        self.bitrate = QLineEdit("0")
        self.bitrate.setToolTip(
            "UDP target bitrate (iperf3 -b): 0 sends as fast as possible, e.g. 30M for 30 Mbit/s."
        )
        self.omit = _spin(0, 600, 0, "Warm-up seconds left out of the results (iperf3 -O).", " s")
        self.pause = QDoubleSpinBox()
        self.pause.setRange(0, 3600)
        self.pause.setSuffix(" s")
        self.pause.setToolTip("A pause between runs, to let the link settle.")
        self.order = _combo(
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
            "iperf3 server on consecutive ports (linklab serve --count 2 on the peer): shows "
            "how the link is divided."
        )
        self.early_stop = QCheckBox("Stop a point early when precise enough")
        self.early_stop.setToolTip(
            "Stop repeating a point once its 95 % confidence interval "
            "is within the chosen share of the mean."
        )
        self.early_fraction = QDoubleSpinBox()
        self.early_fraction.setRange(0.1, 50)
        self.early_fraction.setValue(2.0)
        self.early_fraction.setSuffix(" % of the mean")
        self.early_fraction.setToolTip("The confidence-interval target for early stop.")
        self.early_min = _spin(2, 1000, 5, "Runs a point always gets before it may stop early.")
        form.addRow("TCP window", self.window_edit)
        form.addRow("Parallel streams", self.parallel)
        form.addRow("UDP bitrate", self.bitrate)
        form.addRow("Warm-up (omit)", self.omit)
        form.addRow("Pause between runs", self.pause)
        form.addRow("Order", self.order)
        form.addRow(self.concurrent)
        form.addRow(self.early_stop)
        early = QHBoxLayout()
        early.addWidget(self.early_fraction, 1)
        early.addWidget(QLabel("after at least"))
        early.addWidget(self.early_min)
        early.addWidget(QLabel("runs"))
        form.addRow("", early)
        outer.addWidget(self.advanced)
        self.advanced_toggle.toggled.connect(self._toggle_advanced)
        for edit in (self.window_edit, self.bitrate):
            edit.textChanged.connect(self._changed)
        for spin in (self.parallel, self.omit, self.early_min):
            spin.valueChanged.connect(self._changed)
        for dspin in (self.pause, self.early_fraction):
            dspin.valueChanged.connect(self._changed)
        self.order.currentIndexChanged.connect(self._changed)
        self.early_stop.toggled.connect(self._changed)
        self.concurrent.toggled.connect(self._changed)
        return holder

    def _conditions_group(self) -> QGroupBox:
        self.conditions_box = ConditionsBox()
        self.conditions_box.changed.connect(self._changed)
        # The tag field is marked at the field like every other problem.
        self.tags = self.conditions_box.tags
        return self.conditions_box

    def _toggle_advanced(self, shown: bool) -> None:
        self.advanced.setVisible(shown)
        arrow = self.advanced_toggle.arrowType()
        self.advanced_toggle.setArrowType(arrow.DownArrow if shown else arrow.RightArrow)

    def _variable_changed(self) -> None:
        self._fill_range(self.variable.currentData())
        self._changed()

    def _fill_range(self, variable: Variable) -> None:
        start, stop, step = DEFAULT_RANGES[variable]
        building, self._building = self._building, True
        self.range_from.setValue(start)
        self.range_to.setValue(stop)
        self.range_step.setValue(step)
        self._building = building

    def set_detected_security(self, value: str) -> None:
        """Pre-fill the security from Wi-Fi detection, unless the user already chose one."""
        self.conditions_box.set_detected_security(value)

    def _values(self) -> tuple[list[int], str]:
        variable = self.variable.currentData()
        text = self.custom_values.text().strip()
        parse = parse_rate if variable is Variable.BITRATE else parse_size
        if text:
            try:
                return [parse(p) for p in text.replace(";", ",").split(",") if p.strip()], ""
            except ValueError:
                return [], "The list of values must be numbers separated by commas."
        start, stop, step = (s.value() for s in (self.range_from, self.range_to, self.range_step))
        if stop < start:
            return [], "The last value must not be smaller than the first."
        values: list[int] = []
        value = start
        while value <= stop and len(values) <= 1000:
            values.append(value)
            value = value * 2 if step == 0 else value + step
        return values, ""

    def _changed(self) -> None:
        if self._building:
            return
        plan, problems = self.build()
        fields = self._fields()
        for widget in fields.values():
            # Each field's own tooltip comes back once its problem is gone.
            original = self._tips.setdefault(id(widget), widget.toolTip())
            widget.setStyleSheet("")
            widget.setToolTip(original)
        texts = []
        for field, sentence in problems:
            marked = fields.get(field)
            if marked is not None:
                marked.setStyleSheet(_INVALID_STYLE)
                marked.setToolTip(sentence)
            texts.append(sentence)
        self.problems_label.setText("\n".join(dict.fromkeys(texts)))
        values, _ = self._values()
        self.values_count.setText(
            f"{len(values)} value{'s' if len(values) != 1 else ''}: "
            + ", ".join(f"{v:g}" for v in values[:8])
            + (" …" if len(values) > 8 else "")
        )
        if plan is not None:
            self.estimate.setText(
                duration_text(plan.estimated_seconds()) + f" for {plan.total_runs} runs"
            )
        else:
            self.estimate.setText("—")
        self.plan_changed.emit(plan)

    def _fields(self) -> dict[str, QWidget]:
        return {
            "peer": self.peer_row.host_edit,
            "port": self.peer_row.host_edit,
            "values": self.custom_values if self.custom_values.text().strip() else self.range_to,
            "repetitions": self.repetitions,
            "duration": self.duration,
            "omit": self.omit,
            "window": self.window_edit,
            "parallel": self.parallel,
            "bitrate": self.bitrate,
            "metrics": self.metric_boxes[Metric.RTT],
            "variable": self.variable,
            "direction": self.direction,
            "pause": self.pause,
            "early_stop": self.early_min,
            "concurrent": self.concurrent,
        }

    # -- the plan --------------------------------------------------------------------------
    def build(self) -> tuple[Plan | None, list[tuple[str, str]]]:
        """The plan the form describes, or None with (field, sentence) problems."""
        problems: list[tuple[str, str]] = []
        values, values_problem = self._values()
        if values_problem:
            problems.append(("values", values_problem))
        window = None
        if self.window_edit.text().strip():
            try:
                window = parse_size(self.window_edit.text())
            except ValueError:
                problems.append(("window", "The window must be a size such as 64K or 262144."))
        try:
            bitrate = parse_rate(self.bitrate.text() or "0")
        except ValueError:
            problems.append(("bitrate", "The bitrate must be a rate such as 0, 30M or 1G."))
            bitrate = 0
        _, tag_problem = parse_tags(self.tags.text())
        if tag_problem:
            problems.append(("tags", tag_problem))
        early = None
        if self.early_stop.isChecked():
            early = EarlyStop(self.early_fraction.value() / 100, self.early_min.value())
        plan = Plan(
            peer=self.peer_row.peer(),
            engine=self.engine.currentData(),
            protocols=self.protocol.currentData(),
            ip_versions=self.ip_version.currentData(),
            direction=self.direction.currentData(),
            variable=self.variable.currentData(),
            values=tuple(values),
            repetitions=self.repetitions.value(),
            duration_s=self.duration.value(),
            omit_s=self.omit.value(),
            pause_s=self.pause.value(),
            order=self.order.currentData(),
            metrics=tuple(m for m, box in self.metric_boxes.items() if box.isChecked()),
            window=window,
            parallel=self.parallel.value(),
            bitrate_bps=bitrate,
            early_stop=early,
            concurrent=self.concurrent.isChecked(),
            conditions=self.conditions(),
        )
        problems += plan.problems()
        return (None if problems else plan), problems

    def plan(self) -> Plan | None:
        return self.build()[0]

    def conditions(self) -> Conditions:
        return self.conditions_box.conditions()

    def set_plan(self, plan: Plan) -> None:
        """Fill the form from a plan (a preset, or the last plan used)."""
        self._building = True
        try:
            self.peer_row.set_peer(plan.peer)
            for combo, data in (
                (self.engine, plan.engine),
                (self.protocol, plan.protocols),
                (self.ip_version, plan.ip_versions),
                (self.direction, plan.direction),
                (self.variable, plan.variable),
                (self.order, plan.order),
            ):
                index = combo.findData(data)
                if index >= 0:
                    combo.setCurrentIndex(index)
            self.custom_values.setText(", ".join(str(v) for v in plan.values))
            self.repetitions.setValue(plan.repetitions)
            self.duration.setValue(plan.duration_s)
            self.omit.setValue(plan.omit_s)
            self.pause.setValue(plan.pause_s)
            self.parallel.setValue(plan.parallel)
            self.window_edit.setText(str(plan.window) if plan.window else "")
            self.bitrate.setText(str(plan.bitrate_bps))
            for metric, box in self.metric_boxes.items():
                box.setChecked(metric in plan.metrics)
            self.early_stop.setChecked(plan.early_stop is not None)
            self.concurrent.setChecked(plan.concurrent)
            if plan.early_stop is not None:
                self.early_fraction.setValue(plan.early_stop.relative_ci * 100)
                self.early_min.setValue(plan.early_stop.min_runs)
            self.conditions_box.set_conditions(plan.conditions)
        finally:
            self._building = False
        self._changed()

    @property
    def uses_this_computer(self) -> bool:
        return self.peer_row.is_this_computer
