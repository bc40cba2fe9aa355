"""One stored session as it looked when it ran: its warnings, a header naming it, sweep charts
with the expected curves and the frame breakdown, and below them (a splitter the user moves,
kept across restarts) its results table, findings and details."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.analysis.compare import within_session
from app.analysis.context_checks import context_checks
from app.analysis.expectation import expected_curve
from app.analysis.latency_findings import session_findings
from app.analysis.points import PointSummary, point_summaries
from app.analysis.shares import link_shares
from app.domain.clock import step_sentence
from app.domain.plan import Metric, Plan
from app.domain.plan_fields import categories, x_of
from app.domain.records import RunRecord, SessionRecord
from app.study.frontdoor import FrontDoor
from app.study.sweep.describe import (
    describe_conditions,
    describe_environment,
    describe_latency,
    describe_plan,
    describe_security,
    local_time,
    reason_shown,
    variable_label,
)
from app.study.sweep.monitor_record import MonitorRecord
from app.ui.common.chart_style import series_style
from app.ui.common.charts import SweepChart, sweep_point
from app.ui.common.remembered import remember_splitter
from app.ui.common.share_chart import ShareChart
from app.ui.common.tabs import show_tab
from app.ui.common.warning_band import WarningBand
from app.ui.monitor.stored import StoredMonitor
from app.ui.sessions.frame_breakdown import FrameBreakdownPage
from app.ui.sessions.reading import SessionReading
from app.ui.sessions.session_exports import EXPORTS, can_compare_within

NO_SELECTION = "Select a session in the list to see its results."
#: The charts' share of the height they and the reading pane have, until the user moves it.
CHART_SHARE = 0.6
#: The charts' least height: low enough that a list the user makes long stays as long (the
#: view's least height would take from it), high enough for a plot with its axes.
CHART_MIN = 130


class SessionView(QWidget):
    """Read-only view of one session; show_session() draws it, clear() empties it. Its own
    buttons ask for its exports and for its series compared with each other."""

    export_asked = Signal(str)  # the export's key (session_exports.EXPORTS)
    compare_asked = Signal()  # the series within this session
    emptied = Signal(bool)  # True: no session on view, its message instead; False: one is

    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self._stack = QStackedWidget(self)
        self._placeholder = QLabel(NO_SELECTION)
        self._placeholder.setObjectName("session_view_placeholder")
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder.setWordWrap(True)
        self._stack.addWidget(self._placeholder)

        content = QWidget()
        self.header = QLabel()
        self.header.setObjectName("session_header")
        self.header.setAccessibleName("Session details")
        self.header.setWordWrap(True)  # a long status reason wraps at words, never cut
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.header.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # The context checks, above everything else: read before any number.
        self.warnings = WarningBand("Session warnings", "session_warnings")
        self.throughput_chart = SweepChart("Throughput (mean ± 1 SD)", "throughput", is_rate=True)
        self.rtt_chart = SweepChart("Round-trip time (mean ± 1 SD)", "RTT (ms)", is_rate=False)
        self.cpu_chart = SweepChart("CPU utilisation (mean ± 1 SD)", "CPU (%)", is_rate=False)
        self.latency_chart = SweepChart(
            "Working latency (median per run, mean ± 1 SD)", "latency (ms)", is_rate=False
        )
        self.tabs = QTabWidget()
        self.tabs.setObjectName("session_tabs")
        self.tabs.setAccessibleName("Session charts")
        for chart, title, name in (
            (self.throughput_chart, "Throughput", "Session throughput chart"),
            (self.rtt_chart, "RTT", "Session RTT chart"),
            (self.cpu_chart, "CPU", "Session CPU chart"),
            (self.latency_chart, "Latency", "Session latency chart"),
        ):
            chart.setMinimumHeight(CHART_MIN)
            chart.setAccessibleName(name)
            self.tabs.addTab(chart, title)
        self.share_chart = ShareChart()
        self.share_chart.setMinimumHeight(CHART_MIN)
        self.tabs.addTab(self.share_chart, "Share")
        self.frame_page = FrameBreakdownPage()
        self.frame_page.setObjectName("frame_breakdown")
        self.tabs.addTab(self.frame_page, "Frame breakdown")
        self.tabs.setTabToolTip(
            self.tabs.indexOf(self.frame_page),
            "One segment or datagram byte by byte: what each layer adds, and the goodput the "
            "link rate leaves.",
        )
        # A monitor's own page, its time chart with its gaps as shown live: after the sweep's
        # tabs, whose order is read by index.
        self.monitor_page = StoredMonitor(settings)
        self.tabs.addTab(self.monitor_page, "Over time")
        # Its least height said here, not taken from its tallest page (the monitor's): a
        # sweep's; a monitor's is its page's (_least_height()).
        self._least_height()
        self.reading = SessionReading(settings)
        self.table = self.reading.table
        self.body = QSplitter(Qt.Orientation.Vertical)
        self.body.setObjectName("session_body")
        self.body.addWidget(self.tabs)
        self.body.addWidget(self.reading)
        # In those shares at any height (the window grows or shrinks both alike), until the
        # user moves it; then where they left it, kept (remembered).
        share = round(100 * CHART_SHARE)
        self.body.setStretchFactor(0, share)
        self.body.setStretchFactor(1, 100 - share)
        self.body.setSizes([10 * share, 10 * (100 - share)])
        self.body.setChildrenCollapsible(False)
        self.reading.setMinimumHeight(90)
        remember_splitter(self.body, settings, "sessions/view")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        self.compare_button = QPushButton("Compare its series")
        self.compare_button.setObjectName("session_compare_within")
        self.compare_button.setToolTip(
            "This session's series against each other on the Compare tab, in pairs that differ "
            "in one way only (TCP against UDP at the same IP version, IPv4 against IPv6)."
        )
        self.compare_button.clicked.connect(lambda _checked=False: self.compare_asked.emit())
        top.addWidget(self.compare_button, 0, Qt.AlignmentFlag.AlignTop)
        self.export_buttons: dict[str, QPushButton] = {}
        for kind in EXPORTS:
            button = QPushButton(kind.button)
            button.setObjectName(f"session_export_{kind.key}")
            button.setToolTip(kind.tip)
            button.clicked.connect(lambda _checked=False, k=kind.key: self.export_asked.emit(k))
            top.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.export_buttons[kind.key] = button
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.warnings)
        layout.addLayout(top)
        layout.addWidget(self.body, 1)
        self._stack.addWidget(content)
        self.setAccessibleName("Session view")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._stack)
        self.session_id: str | None = None
        self.session_name = ""  # the name of the session on view, as the list shows it
        self.points: list[PointSummary] = []

    def _least_height(self, monitor: bool = False) -> None:
        """The charts' pane no lower than a sweep's charts need, or (a monitor) than its page
        needs for a plot to read at its whole height."""
        page = self.monitor_page.minimumSizeHint().height() if monitor else CHART_MIN
        self.tabs.setMinimumHeight(page + self.tabs.tabBar().sizeHint().height())

    @property
    def _charts(self) -> tuple[SweepChart, ...]:
        """The sweep charts, in the order of their tabs."""
        return (self.throughput_chart, self.rtt_chart, self.cpu_chart, self.latency_chart)

    @property
    def empty(self) -> bool:
        """Whether no session is on view (its message is, instead)."""
        return self._stack.currentIndex() == 0

    @property
    def message(self) -> str:
        """The text shown while no session is on view."""
        return self._placeholder.text()

    def clear(self, message: str = NO_SELECTION) -> None:
        self.session_id, self.session_name = None, ""
        self.points = []
        for chart in self._charts:
            chart.clear_points()
            chart.redraw()
        self.reading.clear()
        self.frame_page.clear()
        self.header.clear()
        self.warnings.clear()
        self._placeholder.setText(message)
        self._stack.setCurrentIndex(0)
        self.emptied.emit(True)

    def show_session(
        self,
        session: SessionRecord,
        runs: list[RunRecord],
        monitor: MonitorRecord | None = None,
    ) -> None:
        """A session as it ran; a monitor (read with its runs' intervals) as its time chart."""
        self.clear()
        self.session_id, self.session_name = session.id, session.name
        plan = session.plan
        self.compare_button.setEnabled(can_compare_within(session))
        if plan.is_monitor:
            self._show_monitor(session, runs, monitor or MonitorRecord(session, (), {}, {}))
            return
        self.points = point_summaries(plan, runs)
        # As its report and Compare its series say them, after its own results' sentences.
        compared = within_session(session, runs).findings
        self._show_text(session, runs, session_findings(plan, self.points), compared)
        x_label = variable_label(plan)
        self.table.set_value_header(x_label)
        for chart in self._charts:
            chart.set_x_label(x_label, categories(plan))
        for point in self.points:
            # Every planned point, one with no successful run too (n = 0): what its warning
            # names short of the runs planned is there to read.
            label = point.series.label
            self.table.update_point(
                label, point.value, point.metrics, point.expected_bps, point.share_applies
            )
            # The series' own colour; the peer's CPU and idle latency dashed.
            _plot(self.throughput_chart, plan, label, point, "throughput_bps")
            _plot(self.rtt_chart, plan, label, point, "rtt_ms")
            _plot(self.cpu_chart, plan, label, point, "cpu_local_pct")
            _plot(self.cpu_chart, plan, f"{label} · peer", point, "cpu_remote_pct", line=1)
            _plot(self.latency_chart, plan, f"{label} · loaded", point, "latency_ms")
            _plot(self.latency_chart, plan, f"{label} · idle", point, "latency_idle_ms", line=1)
        shown = [
            v for v in plan.values if any(p.value == v and (p.n or p.failed) for p in self.points)
        ]
        for series in plan.series:
            self.throughput_chart.set_expected(series.label, expected_curve(plan, series, shown))
        charts = self._charts
        visible = [chart.point_count() > 0 for chart in charts]
        if not any(visible):
            visible[0] = True  # an empty throughput chart says "nothing measured" plainly
        for index, chart in enumerate(charts):
            chart.redraw()
            show_tab(self.tabs, index, visible[index])
        show_tab(self.tabs, self.tabs.indexOf(self.monitor_page), False)
        self.reading.show_results(True)
        shares = link_shares(plan, runs)
        self.share_chart.set_shares(shares, x_label)
        share_tab = self.tabs.indexOf(self.share_chart)
        show_tab(self.tabs, share_tab, bool(shares))
        visible.append(bool(shares))
        frames = Metric.THROUGHPUT in plan.metrics
        if frames:
            self.frame_page.set_session(plan, self.points)
        show_tab(self.tabs, self.tabs.indexOf(self.frame_page), frames)
        visible.append(frames)
        current = self.tabs.currentIndex()
        if current >= len(visible) or not visible[current]:  # the monitor's page, perhaps
            self.tabs.setCurrentIndex(visible.index(True))
        self._least_height()
        self._stack.setCurrentIndex(1)
        self.emptied.emit(False)

    def _show_monitor(
        self, session: SessionRecord, runs: list[RunRecord], monitor: MonitorRecord
    ) -> None:
        """A monitor over time: its chart and figures, its header and warnings; no sweep
        charts or results table (a monitor has one point, its whole span)."""
        plan = session.plan
        finished = [r for r in runs if not r.partial]
        self.points = point_summaries(plan, finished)
        self._show_text(session, finished, session_findings(plan, self.points))
        self.monitor_page.set_monitor(monitor)
        page = self.tabs.indexOf(self.monitor_page)
        for index in range(self.tabs.count()):
            show_tab(self.tabs, index, index == page)
        self.tabs.setCurrentIndex(page)
        self._least_height(monitor=True)
        self.reading.show_results(False)
        self._stack.setCurrentIndex(1)
        self.emptied.emit(False)

    def _show_text(
        self,
        session: SessionRecord,
        runs: Sequence[RunRecord],
        findings: Sequence[str],
        compared: Sequence[str] = (),
    ) -> None:
        """Its header, warnings, findings (its own, then its series compared) and details."""
        self.header.setText(_header_text(session))
        self.warnings.show_warnings([w.sentence for w in context_checks(session, runs)])
        self.reading.show_findings(findings, compared)
        self.reading.show_details(_details(session, describe_latency(runs)))


def _plot(
    chart: SweepChart,
    plan: Plan,
    series: str,
    point: PointSummary,
    metric: str,
    line: int = 0,
) -> None:
    shown = sweep_point(x_of(plan, point.value), point.metrics.get(metric))  # none: a gap
    chart.set_point(series, shown, series_style(point.series, line))


def _header_text(session: SessionRecord) -> str:
    """Rich text, every stored string escaped: the name in bold, the peer, the status (with
    its reason) and when; then the plan and how many of its runs there are."""
    status = session.status_text
    reason = reason_shown(session.status_reason)
    if reason:
        status += f" ({reason})"
    first = (
        f" — peer {session.plan.peer.name or session.peer_host} — {status} — "
        f"{local_time(session.started_at or session.created_at)}"
    )
    plan = (
        f"{describe_plan(session.plan)} — runs {session.runs_done}/{session.total_runs}"
        + (f", {session.runs_failed} failed" if session.runs_failed else "")
        + (
            f", {session.runs_partial} unfinished or tried again (their samples are kept; "
            f"`linklab export --format samples` has them)"
            if session.runs_partial
            else ""
        )
    )
    name = html.escape(session.name or "Untitled session")
    return f"<b>{name}</b>{html.escape(first)}<br>{html.escape(plan)}"


def _details(session: SessionRecord, latency: str = "") -> list[str]:
    """The conditions (and where the security came from), how working latency was
    measured, the notes and the environment."""
    lines = [f"Conditions: {describe_conditions(session.conditions) or 'not stated'}"]
    security = describe_security(session.conditions, session.environment)
    if security:
        lines.append(security)  # stated, detected (by what), or why it is unknown
    if session.clock_step_s is not None:
        lines.append(step_sentence(session.clock_step_s))
    if latency:
        lines.append(latency)
    if session.conditions.notes:
        lines.append(f"Notes: {session.conditions.notes}")
    return lines + (
        describe_environment(session.environment) or ["No environment snapshot recorded."]
    )


#: What a session's view shows: its runs, and (a monitor) the monitor as stored.
ViewData = tuple[list[RunRecord], MonitorRecord | None]


def view_data(door: FrontDoor, session: SessionRecord) -> ViewData:
    """A session's runs, and a monitor's intervals and working latency too (its view is its
    time chart; a run a crash left unfinished kept its intervals, drawn too)."""
    if not session.plan.is_monitor:
        return door.sessions().runs(session.id), None
    monitor = door.sessions().monitor(session)
    return list(monitor.runs), monitor
