"""The controls of the Study page: what every study needs, as a person chooses it."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QWidget

from app.domain.net import DIRECTION_WORDS, IpVersion, Protocol
from app.domain.plan import SWEEPS, Metric, Variable
from app.domain.plan_fields import SWEPT, VARIABLE_LABELS, Kind, categorical, swept_names
from app.domain.units import parse_rate, parse_size
from app.engine.drivers import registry
from app.ui.common.widgets import _combo, _spin, accessible


class StudyControls:
    """Engine, direction, protocol, IP version, the sweep and its values, runs, seconds,
    metrics, the estimate and the session name; the set-up form lays them out."""

    def __init__(self) -> None:
        self.engine = _combo(
            [(d.label, d.engine) for d in registry.DRIVERS.values()],
            "Which engine runs the tests. "
            + "; ".join(d.about for d in registry.DRIVERS.values())
            + ".",
        )
        self.direction = _combo(
            [(words, direction) for direction, words in DIRECTION_WORDS.items()],
            f"Which way the data flows: {registry.phrase('direction')}.",
        )
        self.protocol = _combo(
            [
                ("TCP", (Protocol.TCP,)),
                ("UDP", (Protocol.UDP,)),
                ("TCP and UDP", (Protocol.TCP, Protocol.UDP)),
            ],
            registry.phrased("TCP ({tcp}) or UDP ({udp}); both makes two series in one session."),
        )
        self.ip_version = _combo(
            [
                ("IPv4", (IpVersion.V4,)),
                ("IPv6", (IpVersion.V6,)),
                ("IPv4 and IPv6", (IpVersion.V4, IpVersion.V6)),
            ],
            f"The IP version ({registry.phrase('ip_version')}); both makes a series for each.",
        )
        self.variable = _combo(
            [(VARIABLE_LABELS[v][0], v) for v in SWEEPS],
            "What changes from point to point of the sweep: the packet "
            f"size ({registry.phrase('length')}) by default.",
        )
        self.range_from = _spin(0, 999_999_999, 128, "The first value of the sweep.")
        self.range_to = _spin(1, 999_999_999, 1408, "The last value of the sweep.")
        self.range_step = _spin(0, 999_999_999, 256, "The step between values (0: doubling).")
        self.custom_values = QLineEdit()
        self.custom_values.setObjectName("custom_values")
        self.custom_values.setPlaceholderText("or a list: 128, 384, 1408")
        self.custom_values.setToolTip(
            "A list of values instead of the range (sizes accept K and M, bitrates M and G)."
        )
        accessible(self.custom_values, "Values list")
        self.range_row = QWidget()  # hidden for a sweep of names: they have no range
        row = QHBoxLayout(self.range_row)
        row.setContentsMargins(0, 0, 0, 0)
        for text, spin in (
            ("from", self.range_from),
            ("to", self.range_to),
            ("step", self.range_step),
        ):
            accessible(spin, f"Values {text}")
            spin.setMinimumWidth(70)
            label = QLabel(text)
            label.setBuddy(spin)
            row.addWidget(label)
            row.addWidget(spin, 1)
        self.range_label = QLabel("Values")
        self.list_label = QLabel("or &list")
        self.list_label.setBuddy(self.custom_values)
        self.values_count = QLabel()
        self.values_count.setObjectName("values_count")
        self.repetitions = _spin(
            1,
            1000,
            3,
            "How many runs per point: the mean and standard deviation are computed over these.",
        )
        self.repetitions.setObjectName("repetitions")
        longest = registry.widest("duration_s")
        self.duration = _spin(
            int(longest.low),
            int(longest.high),
            10,
            f"Seconds per run ({registry.phrase('duration')}).",
            " s",
        )
        self.duration.setObjectName("duration")
        self.metric_boxes: dict[Metric, QCheckBox] = {}
        for metric, text, tip in (
            (
                Metric.THROUGHPUT,
                "Throughput",
                registry.phrased("Bulk-transfer tests ({throughput})."),
            ),
            (Metric.RTT, "RTT", registry.phrased("Round-trip time from {rtt}.")),
            (Metric.CPU, "CPU", registry.phrased("CPU use on both ends ({cpu:; }).")),
            (
                Metric.LATENCY,
                "Working latency",
                "How responsive the link stays under load: LinkLab probes the peer on a flow "
                "of its own for 2 s before each run (idle) and during it (loaded), through "
                "LinkLab's latency responder there (linklab serve), else by TCP connection "
                "time; the method is said in the log and kept with each run.",
            ),
        ):
            check = QCheckBox(text)
            check.setToolTip(tip)
            accessible(check, text)
            check.setChecked(metric in (Metric.THROUGHPUT, Metric.CPU))
            self.metric_boxes[metric] = check
        self.estimate = QLabel()
        self.estimate.setObjectName("estimate")
        accessible(self.estimate, "Estimated time")
        #: The variable whose values the list and the range hold, and what they held for each
        #: variable left since (a list, the range): a variable chosen again gets it back.
        self._variable: Variable | None = None
        self._kept: dict[Variable, tuple[str, tuple[int, int, int]]] = {}
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("session_name")
        self.name_edit.setToolTip(
            "The name to find the session by in Sessions and Compare; left empty, LinkLab "
            "names it after what it measures."
        )

    def show_range_for(self, variable: Variable) -> None:
        """From, to and step for a variable of numbers; a sweep of names has only its list."""
        named = categorical(variable)
        self.range_label.setVisible(not named)
        self.range_row.setVisible(not named)
        self.list_label.setText("&Values" if named else "or &list")

    def uses_range(self) -> bool:
        """Whether the sweep's values are the range's (no list typed, a variable of numbers)."""
        variable = self.variable.currentData()
        return not categorical(variable) and not self.custom_values.text().strip()

    def fill_range(self, variable: Variable) -> None:
        """The values of a newly chosen variable: what the list and the range held when it was
        last chosen; else for a sweep of names its examples in the list, for one of numbers
        its starting range (a list of numbers typed before choosing it stays, a list of names
        goes: they are no values of it)."""
        before = self._variable
        if variable is before:
            return
        spins = (self.range_from, self.range_to, self.range_step)
        text = self.custom_values.text()
        if before is not None:
            start, stop, step = (spin.value() for spin in spins)
            self._kept[before] = (text, (start, stop, step))
        self._variable = variable
        named = categorical(variable)
        if named:
            text = ", ".join(SWEPT[variable].examples)
        elif before is not None and categorical(before):
            text = ""
        text, numbers = self._kept.get(variable) or (text, SWEPT[variable].sweep_range)
        self.custom_values.setText(text)
        if not named:  # names have no range
            for spin, number in zip(spins, numbers, strict=True):
                spin.setValue(number)

    def values(self) -> tuple[list[int | str], str]:
        """The values of the sweep (the list when one is typed, else the range) or a reason."""
        variable = self.variable.currentData()
        text = self.custom_values.text().strip()
        if categorical(variable):
            try:
                names: list[int | str] = [*swept_names(variable, text)]
                return names, "" if text else "Type the names to compare."
            except ValueError as err:
                return [], f"{str(err)[:1].upper()}{str(err)[1:]}."
        parse = parse_rate if SWEPT[variable].kind is Kind.RATE else parse_size
        if text:
            try:
                return [parse(p) for p in text.replace(";", ",").split(",") if p.strip()], ""
            except ValueError:
                return [], "The list of values must be numbers separated by commas."
        start, stop, step = (s.value() for s in (self.range_from, self.range_to, self.range_step))
        if stop < start:
            return [], "The last value must not be smaller than the first."
        values: list[int | str] = []
        value = start
        while value <= stop and len(values) <= 1000:
            values.append(value)
            value = value * 2 if step == 0 else value + step
            if value == 0:
                break  # doubling from 0 goes nowhere
        return values, ""
