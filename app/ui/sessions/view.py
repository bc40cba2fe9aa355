"""One stored session as it looked when it ran: header (with how close it came to the expected
goodput), sweep charts with the expected curves, the frame breakdown and the results table."""

from __future__ import annotations

import html

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

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
    variable_label,
)
from app.study.sweep.monitor_record import MonitorRecord
from app.ui.common.chart_style import series_style
from app.ui.common.charts import SweepChart, SweepPoint
from app.ui.common.results import ResultsTable
from app.ui.common.share_chart import ShareChart
from app.ui.common.warning_band import BAND_LINES, WarningBand
from app.ui.monitor.stored import StoredMonitor
from app.ui.sessions.frame_breakdown import FrameBreakdownPage
from app.ui.sessions.session_exports import EXPORTS, can_compare_within

NO_SELECTION = "Select a session in the list to see its results."
#: The details shown at most this many lines tall; more scrolls.
HEADER_LINES = 6
DETAILS_KEY = "view/session_details"


class SessionView(QWidget):
    """Read-only view of one session; show_session() draws it, clear() empties it. Its own
    buttons ask for its exports and for its series compared with each other."""

    export_asked = Signal(str)  # the export's key (session_exports.EXPORTS)
    compare_asked = Signal()  # the series within this session

    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self._stack = QStackedWidget(self)
        self._placeholder = QLabel(NO_SELECTION)
        self._placeholder.setObjectName("session_view_placeholder")
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder.setWordWrap(True)
        self._stack.addWidget(self._placeholder)

        content = QWidget()
        self._settings = settings
        self._header_html = ""
        self.header = QLabel()
        self.header.setObjectName("session_header")
        self.header.setAccessibleName("Session details")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The context checks, above everything else: read before any number.
        self.warnings = WarningBand("Session warnings", "session_warnings")
        self.header.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # Long details scroll in a band of a few lines: the chart keeps most of the height.
        self.header_area = QScrollArea()
        self.header_area.setObjectName("session_header_area")
        self.header_area.setWidget(self.header)
        self.header_area.setWidgetResizable(True)
        self.header_area.setFrameShape(QFrame.Shape.NoFrame)
        self.header_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.header_area.viewport().setAutoFillBackground(False)
        self.header.setAutoFillBackground(False)  # on the window's background, as before
        self.details_button = QToolButton()
        self.details_button.setObjectName("session_details_toggle")
        self.details_button.setCheckable(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setToolTip(
            "Show or hide the session's plan, conditions, environment and findings; "
            "LinkLab remembers the choice."
        )
        self.details_button.setChecked(_remembered(settings))
        self.details_button.toggled.connect(self._details_toggled)
        self.throughput_chart = SweepChart("Throughput (mean ± 1 SD)", "throughput", is_rate=True)
        self.rtt_chart = SweepChart("Round-trip time (mean ± 1 SD)", "RTT (ms)", is_rate=False)
        self.cpu_chart = SweepChart("CPU utilisation (mean ± 1 SD)", "CPU (%)", is_rate=False)
        self.latency_chart = SweepChart(
            "Working latency (median per run, mean ± 1 SD)", "latency (ms)", is_rate=False
        )
        self.tabs = QTabWidget()
        self.tabs.setObjectName("session_tabs")
        for chart, title, name in (
            (self.throughput_chart, "Throughput", "Session throughput chart"),
            (self.rtt_chart, "RTT", "Session RTT chart"),
            (self.cpu_chart, "CPU", "Session CPU chart"),
            (self.latency_chart, "Latency", "Session latency chart"),
        ):
            chart.setMinimumHeight(180)
            chart.setAccessibleName(name)
            self.tabs.addTab(chart, title)
        self.share_chart = ShareChart()
        self.share_chart.setMinimumHeight(180)
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
        self.table = ResultsTable()
        self.table.setObjectName("session_results")
        self.table.setAccessibleName("Session results")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tabs)
        splitter.addWidget(self.table)
        # The chart first: room the window or the folded details give goes to it.
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setSizes([460, 110])
        splitter.setChildrenCollapsible(False)
        self.table.setMinimumHeight(90)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header_area, 1)
        top.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
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
        layout.addWidget(self.warnings)  # outside the fold: read before any number
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._stack.addWidget(content)
        self.setAccessibleName("Session view")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._stack)
        self.session_id: str | None = None
        self.points: list[PointSummary] = []
        self._details_toggled(self.details_button.isChecked())

    # -- the session's text: its first line always, the rest when the details are open ------
    @property
    def details_shown(self) -> bool:
        return self.details_button.isChecked()

    def _details_toggled(self, shown: bool) -> None:
        self.details_button.setText("Hide details" if shown else "Show details")
        self.details_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        if self._settings is not None:
            self._settings.setValue(DETAILS_KEY, shown)
        self._show_header()

    def _show_header(self) -> None:
        first, _, _rest = self._header_html.partition("<br>")
        self.warnings.set_folded(not self.details_shown)
        if self.details_shown:
            self.header.setText(self._header_html)
        else:  # folded: the first line, and how many warnings wait behind Show details
            note = self.warnings.summary()
            self.header.setText(f"{first} — <b>{html.escape(note)}</b>" if note else first)
        self._fit_header()

    def _fit_header(self) -> None:
        """The band is as tall as the text, up to HEADER_LINES lines (then it scrolls)."""
        width = max(self.header_area.width(), 200)
        lines = HEADER_LINES if self.details_shown else 1
        if self.details_shown and self.warnings.sentences:
            # The warnings' band takes its lines from the details': together they stay within
            # what the details alone may take, so the chart keeps its share.
            lines = max(2, HEADER_LINES - BAND_LINES)
        cap = self.header.fontMetrics().lineSpacing() * lines + 6
        self.header_area.setFixedHeight(min(self.header.heightForWidth(width) + 2, cap))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_header()

    @property
    def _charts(self) -> tuple[SweepChart, ...]:
        """The sweep charts, in the order of their tabs."""
        return (self.throughput_chart, self.rtt_chart, self.cpu_chart, self.latency_chart)

    @property
    def message(self) -> str:
        """The text shown while no session is on view."""
        return self._placeholder.text()

    def clear(self, message: str = NO_SELECTION) -> None:
        self.session_id = None
        self.points = []
        for chart in self._charts:
            chart.clear_points()
            chart.redraw()
        self.table.clear_rows()
        self.frame_page.clear()
        self._header_html = ""
        self.header.clear()
        self.warnings.clear()
        self._placeholder.setText(message)
        self._stack.setCurrentIndex(0)

    def show_session(
        self,
        session: SessionRecord,
        runs: list[RunRecord],
        monitor: MonitorRecord | None = None,
    ) -> None:
        """A session as it ran; a monitor (read with its runs' intervals) as its time chart."""
        self.clear()
        self.session_id = session.id
        plan = session.plan
        self.compare_button.setEnabled(can_compare_within(session))
        if plan.is_monitor:
            self._show_monitor(session, runs, monitor or MonitorRecord(session, (), {}, {}))
            return
        self.points = point_summaries(plan, runs)
        self._header_html = _header_text(
            session, session_findings(plan, self.points), describe_latency(runs)
        )
        self.warnings.show_warnings([w.sentence for w in context_checks(session, runs)])
        x_label = variable_label(plan)
        self.table.set_value_header(x_label)
        for chart in self._charts:
            chart.set_x_label(x_label, categories(plan))
        for point in self.points:
            if point.n == 0 and point.failed == 0:
                continue  # not measured yet (a stopped or interrupted session)
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
            self.tabs.setTabVisible(index, visible[index])
        self.tabs.setTabVisible(self.tabs.indexOf(self.monitor_page), False)
        self.table.setVisible(True)
        shares = link_shares(plan, runs)
        self.share_chart.set_shares(shares, x_label)
        share_tab = self.tabs.indexOf(self.share_chart)
        self.tabs.setTabVisible(share_tab, bool(shares))
        visible.append(bool(shares))
        frames = Metric.THROUGHPUT in plan.metrics
        if frames:
            self.frame_page.set_session(plan, self.points)
        self.tabs.setTabVisible(self.tabs.indexOf(self.frame_page), frames)
        visible.append(frames)
        current = self.tabs.currentIndex()
        if current >= len(visible) or not visible[current]:  # the monitor's page, perhaps
            self.tabs.setCurrentIndex(visible.index(True))
        self._stack.setCurrentIndex(1)
        self._show_header()

    def _show_monitor(
        self, session: SessionRecord, runs: list[RunRecord], monitor: MonitorRecord
    ) -> None:
        """A monitor over time: its chart and figures, its header and warnings; no sweep
        charts or results table (a monitor has one point, its whole span)."""
        plan = session.plan
        finished = [r for r in runs if not r.partial]
        self.points = point_summaries(plan, finished)
        self._header_html = _header_text(
            session, session_findings(plan, self.points), describe_latency(finished)
        )
        self.warnings.show_warnings([w.sentence for w in context_checks(session, finished)])
        self.monitor_page.set_monitor(monitor)
        page = self.tabs.indexOf(self.monitor_page)
        for index in range(self.tabs.count()):
            self.tabs.setTabVisible(index, index == page)
        self.tabs.setCurrentIndex(page)
        self.table.setVisible(False)
        self._stack.setCurrentIndex(1)
        self._show_header()


def _remembered(settings: QSettings | None) -> bool:
    """Whether the details were open when the user last chose (open the first time)."""
    if settings is None:
        return True
    return str(settings.value(DETAILS_KEY, "true")).lower() in ("true", "1")


def _plot(
    chart: SweepChart,
    plan: Plan,
    series: str,
    point: PointSummary,
    metric: str,
    line: int = 0,
) -> None:
    summary = point.metrics[metric]
    if summary.n == 0 or summary.mean is None:
        return
    shown = SweepPoint(x_of(plan, point.value), summary.mean, summary.std or 0.0)
    chart.set_point(series, shown, series_style(point.series, line))


def _header_text(session: SessionRecord, findings: list[str], latency: str = "") -> str:
    """Rich text: the name in bold, every stored string escaped; how working latency was
    measured; then how close each series came to the expected goodput."""
    status = session.status_text
    if session.status_reason:
        status += f" ({session.status_reason})"
    first = (
        f" — peer {session.plan.peer.name or session.peer_host} — {status} — "
        f"{local_time(session.started_at or session.created_at)}"
    )
    lines = [
        f"{describe_plan(session.plan)} — runs {session.runs_done}/{session.total_runs}"
        + (f", {session.runs_failed} failed" if session.runs_failed else "")
        + (
            f", {session.runs_partial} unfinished or tried again (their samples are kept; "
            f"`linklab export --format samples` has them)"
            if session.runs_partial
            else ""
        ),
        f"Conditions: {describe_conditions(session.conditions) or 'not stated'}",
    ]
    security = describe_security(session.conditions, session.environment)
    if security:
        lines.append(security)  # stated, detected (by what), or why it is unknown
    if session.clock_step_s is not None:
        lines.append(step_sentence(session.clock_step_s))
    if latency:
        lines.append(latency)  # how working latency was measured
    if session.conditions.notes:
        lines.append(f"Notes: {session.conditions.notes}")
    lines += describe_environment(session.environment) or ["No environment snapshot recorded."]
    lines += findings
    name = html.escape(session.name or "Untitled session")
    rest = [html.escape(line) for line in lines]
    return "<br>".join([f"<b>{name}</b>{html.escape(first)}", *rest])


#: What a session's view shows: its runs, and (a monitor) the monitor as stored.
ViewData = tuple[list[RunRecord], MonitorRecord | None]


def view_data(door: FrontDoor, session: SessionRecord) -> ViewData:
    """A session's runs, and a monitor's intervals and working latency too (its view is its
    time chart; a run a crash left unfinished kept its intervals, drawn too)."""
    if not session.plan.is_monitor:
        return door.runs(session.id), None
    monitor = door.monitor(session)
    return list(monitor.runs), monitor
