"""What a study draws on the Measure tab as its events arrive: the current run's chart with
its working latency under it, the sweep's charts by point (throughput with the expected
goodput, RTT, CPU, working latency) on tabs beside it, and the results table."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from app.analysis.expectation import expected_at, expected_curve, on_loopback
from app.domain.plan import Metric, Plan
from app.domain.plan_fields import VARIABLE_LABELS, categories, point_text, x_of
from app.study.sweep.events import (
    LatencyProbed,
    PointUpdated,
    RunStarted,
    SampleArrived,
    SamplesRevised,
)
from app.ui.common.chart_style import series_style
from app.ui.common.charts import SweepChart, sweep_point, x_title
from app.ui.common.latency_chart import LatencyChart
from app.ui.common.live_chart import LiveChart
from app.ui.common.results import ResultsTable
from app.ui.common.tabs import show_tab
from app.ui.measure.run_text import series_name

#: What a chart by point says until its first point: when it comes.
COMING = "Each point appears here once its first run has ended."


class StudyCharts:
    """The charts (`tabs`, a tab each) and the results table (`table`) of the study on the
    Measure tab, each drawn from the study's events."""

    def __init__(self) -> None:
        self.live_chart = LiveChart()
        self.live_chart.setObjectName("live_chart")
        self.live_chart.setAccessibleName("Current run chart")
        self.latency_chart = LatencyChart()  # working latency: the probes, under the live chart
        self.latency_chart.setObjectName("latency_chart")
        self.latency_chart.setAccessibleName("Latency chart")
        self.latency_chart.setVisible(False)
        current = QWidget()
        current_layout = QVBoxLayout(current)
        current_layout.setContentsMargins(0, 0, 0, 0)
        current_layout.addWidget(self.live_chart, 3)
        current_layout.addWidget(self.latency_chart, 2)
        self.sweep_chart = SweepChart(
            "Throughput by point (mean ± 1 SD)", "throughput", is_rate=True
        )
        self.sweep_chart.setObjectName("sweep_chart")
        self.sweep_chart.setAccessibleName("Sweep chart")
        self.rtt_chart = SweepChart("Round-trip time (mean ± 1 SD)", "RTT (ms)", is_rate=False)
        self.cpu_chart = SweepChart("CPU on this computer (mean ± 1 SD)", "CPU (%)", is_rate=False)
        self.latency_sweep = SweepChart(
            "Working latency by point (median per run, mean ± 1 SD)", "latency (ms)", is_rate=False
        )
        for chart in self.sweep_charts:
            chart.set_empty_note(COMING)
        for chart, name in (
            (self.rtt_chart, "RTT chart"),
            (self.cpu_chart, "CPU chart"),
            (self.latency_sweep, "Working latency by point"),
        ):
            chart.setAccessibleName(name)
        self.tabs = QTabWidget()
        self.tabs.addTab(current, "Current run")
        self.tabs.addTab(self.sweep_chart, "Sweep")
        self.tabs.addTab(self.rtt_chart, "RTT")
        self.tabs.addTab(self.cpu_chart, "CPU")
        self.tabs.addTab(self.latency_sweep, "Latency")
        self.table = ResultsTable(narrow=True)  # beside the form
        self.table.setObjectName("results_table")
        self.table.setAccessibleName("Results")

    @property
    def sweep_charts(self) -> list[SweepChart]:
        """The charts by point, in their tabs' order."""
        return [self.sweep_chart, self.rtt_chart, self.cpu_chart, self.latency_sweep]

    @property
    def _by_metric(self) -> tuple[tuple[SweepChart, Metric], ...]:
        """The charts shown only where their metric is measured, with it."""
        return (
            (self.rtt_chart, Metric.RTT),
            (self.cpu_chart, Metric.CPU),
            (self.latency_sweep, Metric.LATENCY),
        )

    def preview(self, plan: Plan | None) -> None:
        """The form's plan, not yet started: a tab for each metric it measures, and for any
        chart that still shows the last study's points; a form that cannot run yet changes
        nothing (a field half typed)."""
        if plan is None:
            return
        for chart, metric in self._by_metric:
            shown = metric in plan.metrics or chart.point_count() > 0
            show_tab(self.tabs, self.tabs.indexOf(chart), shown)

    def begin(self, plan: Plan) -> None:
        """A study of the plan begins: the last one's points go, each chart takes the plan's
        swept variable, and the throughput chart each series' yardstick (drawn from its first
        point on)."""
        for chart in self.sweep_charts:
            chart.clear_points()
            chart.set_empty_note(COMING)
        if Metric.THROUGHPUT not in plan.metrics:
            self.sweep_chart.set_empty_note(
                "This plan measures round-trip time only: its points are on the RTT tab."
            )
        # A metric the plan does not measure has no tab (a blank chart would say nothing; the
        # charts were just cleared); should a run give it all the same, its tab comes with
        # its first point.
        self.preview(plan)
        self.latency_chart.reset()
        self.latency_chart.setVisible(Metric.LATENCY in plan.metrics)
        for chart in self.sweep_charts:
            chart.set_x_label(x_title(plan.variable), categories(plan))
        for series in plan.series:
            curve = expected_curve(plan, series, plan.values)
            self.sweep_chart.set_expected(series_name(plan, series), curve)
        self.table.clear_rows()
        self.table.set_value_header(VARIABLE_LABELS[plan.variable][0])

    def run_started(self, plan: Plan, event: RunStarted) -> str:
        """The current run's chart is the new run's; returns its title."""
        title = (
            f"{series_name(plan, event.key.series)} · {point_text(plan.variable, event.value)}"
            f" · run {event.key.repetition}/{plan.repetitions}"
        )
        self.live_chart.reset(title, event.key)
        self.latency_chart.reset()
        return title

    def sample(self, event: SampleArrived) -> None:
        self.live_chart.add_sample(event.sample)
        sample = event.sample
        if sample.rtt_ms is not None and self.latency_chart.isVisible():
            self.latency_chart.add_probes("kernel", [sample.end_s], [sample.rtt_ms])

    def revised(self, event: SamplesRevised) -> None:
        self.live_chart.revise(event.key, event.samples)

    def probed(self, event: LatencyProbed) -> None:
        self.latency_chart.add_probes(event.phase, event.times_s, event.rtts_ms)

    def point(self, plan: Plan, event: PointUpdated) -> None:
        """A point's summary so far: on each chart by point, and in the results table."""
        name, style = series_name(plan, event.series), series_style(event.series)
        x = x_of(plan, event.value)
        for chart, metric in (
            (self.sweep_chart, "throughput_bps"),
            (self.rtt_chart, "rtt_ms"),
            (self.cpu_chart, "cpu_local_pct"),
        ):
            chart.set_point(name, sweep_point(x, event.metrics.get(metric)), style)
        for line, (metric, words) in enumerate(
            (("latency_ms", "loaded"), ("latency_idle_ms", "idle"))
        ):
            point = sweep_point(x, event.metrics.get(metric))
            self.latency_sweep.set_point(
                f"{name} · {words}", point, series_style(event.series, line)
            )
        for chart, _ in self._by_metric:
            if chart.point_count():
                show_tab(self.tabs, self.tabs.indexOf(chart), True)
        found = expected_at(plan, event.series, event.value)
        expected = found.expected_bps if found is not None else None
        self.table.update_point(name, event.value, event.metrics, expected, not on_loopback(plan))
