"""The Advanced page of the set-up form: every plan setting that is not on the Study page."""

from __future__ import annotations

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
from app.domain.plan_fields import BY_KEY, PLAN_FIELDS, Kind, parse_names
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
#: The engine settings given by name (a congestion control, a DSCP mark): each a text field
#: made from its row of the field table, its placeholder and tooltip from there.
NAMED = tuple(f for f in PLAN_FIELDS if f.kind is Kind.NAME and f.run)


class AdvancedControls:
    """The controls of the Advanced page; the set-up form registers and lays them out."""

    def __init__(self, conditions: ConditionsBox) -> None:
        self.length = QLineEdit()
        self.length.setPlaceholderText("engine default")
        self.length.setToolTip(
            "The packet (write) size held fixed while something else is swept (iperf3 -l, "
            "netperf -m), e.g. 1408 or 64K."
        )
        self.window = QLineEdit()
        self.window.setPlaceholderText("system default")
        self.window.setToolTip("TCP window / socket buffer size (iperf3 -w), e.g. 64K.")
        self.names: dict[str, QLineEdit] = {}
        for field in NAMED:
            edit = QLineEdit()
            edit.setPlaceholderText(field.placeholder)
            edit.setToolTip(field.tip)
            self.names[field.key] = edit
        streams = drivers.widest("parallel")
        self.parallel: SpinBox = _spin(
            int(streams.low), int(streams.high), 1, "Parallel streams per run (iperf3 -P)."
        )
        self.bitrate = QLineEdit("0")
        self.bitrate.setToolTip(
            "UDP target bitrate (iperf3 -b): 0 sends as fast as possible, e.g. 30M for 30 Mbit/s."
        )
        self.omit: SpinBox = _spin(
            0, 600, 0, "Warm-up seconds left out of the results (iperf3 -O).", " s"
        )
        self.interval: DoubleSpinBox = _double(
            0.1, 60, 1.0, "How often the engine reports (iperf3 -i, netperf -D).", " s"
        )
        self.pause: DoubleSpinBox = _double(
            0, 3600, 0, "A pause between runs, to let the link settle.", " s"
        )
        self.order: ValueCombo = _combo(
            [
                ("Sequential", Order.SEQUENTIAL),
                ("Interleaved across series", Order.INTERLEAVED),
                ("Shuffled", Order.SHUFFLED),
            ],
            "The order of runs: interleaved alternates the series run by run, "
            "so drift in the link hits every series alike.",
        )
        self.seed: SpinBox = _spin(
            0,
            2**31 - 1,
            0,
            "The seed of the shuffled order: the same seed gives the same order again.",
        )
        self.concurrent = QCheckBox("Run the series at the same time")
        self.concurrent.setObjectName("concurrent")
        self.concurrent.setToolTip(
            "TCP and UDP (or IPv4 and IPv6) share the link at once, each against its own "
            "iperf3 server on consecutive ports (linklab serve --count 2 on the peer): shows "
            "how the link is divided."
        )
        clocks = BY_KEY["clocks_synchronised"]
        self.clocks_synchronised = QCheckBox(clocks.label)
        self.clocks_synchronised.setObjectName("clocks_synchronised")
        self.clocks_synchronised.setToolTip(clocks.tip)
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
        self.max_failures: SpinBox = _spin(
            1,
            1000,
            5,
            "After this many failed runs in a row the session stops (a peer that went away).",
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

    def named(self) -> tuple[dict[str, str | None], list[tuple[str, str]]]:
        """The settings given by name, by the plan's attribute (None: left empty), and a
        (key, sentence) problem for each that is no such name."""
        values: dict[str, str | None] = {}
        problems: list[tuple[str, str]] = []
        for field in NAMED:
            text = self.names[field.key].text().strip()
            values[field.name] = None
            if not text:
                continue
            try:
                names = parse_names(text)
                if len(names) != 1:
                    raise ValueError(f"write one {field.words}")
                values[field.name] = field.parse(names[0]) if field.parse else names[0]
            except ValueError as err:
                problems.append((field.key, f"{str(err)[:1].upper()}{str(err)[1:]}, or clear it."))
        return values, problems

    def set_named(self, plan: Plan) -> None:
        for field in NAMED:
            self.names[field.key].setText(getattr(plan, field.name) or "")

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
