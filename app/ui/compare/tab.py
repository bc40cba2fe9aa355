"""The Compare tab: sessions compared like with like against a baseline session the user picks
(or, as a separate choice, the series within one session), the confounds in a banner, the
pairs to show, and what is drawn from the comparison: the pairs overlaid in shared colours
(chart.py), the difference table with Welch's test and Holm's correction, the standard
deviations and findings (tables.py), and the exports (exports.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.analysis.compare import (
    LEVELS_WHY,
    METRIC_INFO,
    Comparison,
    Mode,
    SeriesData,
    compare,
    measured_metrics,
    offered_metrics,
    series_data,
)
from app.analysis.context_checks import ContextWarning, context_checks
from app.analysis.shares import PointShares, link_shares
from app.domain.errors import LinkLabError
from app.domain.records import SessionRecord
from app.ui.common.background import Background
from app.ui.common.charts import SweepChart, x_title
from app.ui.common.name_columns import NameColumns
from app.ui.common.remembered import remember_splitter
from app.ui.common.saved import confirm_saved
from app.ui.common.share_chart import ShareChart
from app.ui.common.tabs import show_tab
from app.ui.common.warning_band import WarningBand
from app.ui.common.widgets import ComboBox, accessible, compact_rows
from app.ui.common.wrapped_header import WrappedHeader
from app.ui.compare.chart import draw_comparison
from app.ui.compare.exports import EXPORTS, ask_export, write_export
from app.ui.compare.metric_list import offer
from app.ui.compare.pair_list import PairList
from app.ui.compare.tables import fill_tables
from app.ui.context import AppContext

#: Its tooltip (LEVELS_WHY) says why each row has a level of its own.
INTERVAL_HEADER = "CI of the difference at its Holm step's level"
DIFFERENCE_HEADERS = [
    "Series",
    "Against",
    "Value",
    "Baseline mean",
    "Mean",
    "Difference",
    "%",
    INTERVAL_HEADER,
    "p (Welch)",
    "p (Holm)",
    "Significant (α = 0.05)",
]
#: The background read: sessions, series, shares, x label, context checks, metrics measured.
Read = tuple[
    list[SessionRecord],
    list[SeriesData],
    list[PointShares],
    str,
    list[ContextWarning],
    dict[str, frozenset[str]],
]
WARNING_STYLE = (
    "QLabel { background-color: #fff4dc; color: #000; border: 2px solid #E69F00; padding: 6px; }"
)


def unpaired_text(comparison: Comparison | None) -> str:
    """'Unpaired: TCP · IPv6, UDP · IPv6 (lab A) — no series …': each series once, its
    session's name once for all its series; '' for none."""
    if comparison is None or not comparison.unpaired:
        return ""
    by_session: dict[str, list[str]] = {}
    for curve in comparison.unpaired:
        session = curve.session.name or curve.session.short_id
        by_session.setdefault(session, []).append(curve.label.removesuffix(f" ({session})"))
    names = [f"{', '.join(labels)} ({session})" for session, labels in by_session.items()]
    why = (
        "no series differing in one way only to compare it with"
        if comparison.mode is Mode.WITHIN
        else "no series of the same protocol, IP version and direction to compare"
    )
    return f"Unpaired: {'; '.join(names)} — {why}."


class CompareTab(QWidget):
    status_message = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.session_ids: list[str] = []
        self.items: list[SeriesData] = []
        self.sessions: list[SessionRecord] = []
        self.checks: list[ContextWarning] = []  # the sessions' context checks
        self.measured: dict[str, frozenset[str]] = {}  # per series, the metrics it reports
        self.comparison: Comparison | None = None
        self._compared_ids: list[str] = []  # the sessions last read, oldest first
        self._reader = Background(self)
        self.empty = QLabel("Select two or more sessions in the Sessions tab and press Compare.")
        self.empty.setObjectName("compare_empty")
        self.baseline = ComboBox()
        self.baseline.setObjectName("compare_baseline")
        accessible(self.baseline, "Baseline session")
        self.baseline.setToolTip(
            "The session every other one is compared with, series by series: TCP·IPv4 "
            "against its TCP·IPv4, UDP·IPv4 against its UDP·IPv4."
        )
        self.within = QCheckBox("Compare the series within one session")
        accessible(self.within, "Compare the series within one session")
        self.within.setToolTip(
            "TCP against UDP, IPv4 against IPv6 in the session chosen on the left, in pairs that "
            "differ in one way only, instead of sessions against each other."
        )
        self.metric_box = ComboBox()
        self.metric_box.setObjectName("compare_metric")
        accessible(self.metric_box, "Metric")
        for name, (label, unit, _) in METRIC_INFO.items():
            self.metric_box.addItem(f"{label} ({unit})", name)
        self.metric_box.setToolTip("What to compare.")
        self.spread = ComboBox()
        self.spread.setObjectName("compare_spread")
        accessible(self.spread, "Error bars")
        self.spread.addItem("95 % confidence interval", "ci")
        self.spread.addItem("±1 standard deviation", "sd")
        self.spread.setToolTip("What the error bars show.")
        self.baseline_label = QLabel("Baseline session")
        self.baseline_label.setBuddy(self.baseline)
        controls = QHBoxLayout()
        controls.addWidget(self.baseline_label)
        controls.addWidget(self.baseline, 1)
        controls.addWidget(self.within)
        for caption, widget in (("Metric", self.metric_box), ("Error bars", self.spread)):
            buddy = QLabel(caption)
            buddy.setBuddy(widget)
            controls.addWidget(buddy)
            controls.addWidget(widget)
        exports = QHBoxLayout()
        exports.addStretch(1)
        self.export_buttons = {}
        for key, text, tip in EXPORTS:
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setObjectName(f"export_{key}")
            button.clicked.connect(lambda _=False, k=key: self.export(k))
            exports.addWidget(button)
            self.export_buttons[key] = button
        self.warnings = WarningBand("Comparison warnings", "compare_warnings")
        self.pairs = PairList()
        self.pairs.setObjectName("compare_pairs")
        accessible(self.pairs, "Pairs compared")
        self.pairs.setToolTip("Untick a pair to hide its curves on the chart.")
        # The series left without a partner, each named once, wrapped: never a line to scroll.
        self.unpaired = QLabel()
        self.unpaired.setObjectName("compare_unpaired")
        accessible(self.unpaired, "Unpaired series")
        self.unpaired.setWordWrap(True)
        self.unpaired.setVisible(False)
        self.chart = SweepChart("Comparison", "throughput", is_rate=True)
        self.chart.setObjectName("compare_chart")
        self.chart.setAccessibleName("Comparison chart")
        self.differences = QTableWidget(0, len(DIFFERENCE_HEADERS))
        self.differences.setObjectName("difference_table")
        self.differences.setAccessibleName("Differences")
        # Its long titles on two lines, so every column fits a 1280-px window: on one line
        # the interval's and the verdict's titles pushed the last column out of view.
        self.differences.setHorizontalHeader(WrappedHeader(self.differences))
        self.differences.setHorizontalHeaderLabels(DIFFERENCE_HEADERS)
        levels = self.differences.horizontalHeaderItem(DIFFERENCE_HEADERS.index(INTERVAL_HEADER))
        if levels is not None:
            levels.setToolTip(LEVELS_WHY)
        self.std_table = QTableWidget(0, 0)
        self.std_table.setObjectName("std_table")
        self.std_table.setAccessibleName("Standard deviations")
        for table in (self.differences, self.std_table):
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().setVisible(False)
            compact_rows(table)
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.setAlternatingRowColors(True)
        # The series' names give way to the figures, so no figure is cut at 1280 px.
        self._names = NameColumns(self.differences, (0, 1))
        self.findings = QTextBrowser()
        self.findings.setObjectName("findings")
        self.findings.setAccessibleName("Findings")
        self.findings.setOpenLinks(False)
        tables = QTabWidget()
        tables.addTab(self.differences, "Differences")
        tables.addTab(self.std_table, "Standard deviations")
        tables.addTab(self.findings, "Findings")
        # Sessions whose series ran at the same time: how they divided the link.
        self.share_chart = ShareChart()
        self.share_chart.setObjectName("compare_share_chart")
        tables.addTab(self.share_chart, "Share of the link")
        self.tables = tables
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        # The pairs and the unpaired line close above the chart: the room is the chart's,
        # which keeps half of the tab beside a band of warnings and five differences.
        top_layout.setSpacing(2)
        top_layout.addWidget(self.pairs)
        top_layout.addWidget(self.unpaired)
        top_layout.addWidget(self.chart, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("compare_splitter")
        splitter.addWidget(top)
        splitter.addWidget(tables)
        # The chart has the larger share and the tables and findings room to be read in, at
        # any height (both grow alike), until the user moves it: then as they left it, kept.
        splitter.setStretchFactor(0, 70)
        splitter.setStretchFactor(1, 30)
        splitter.setSizes([700, 300])
        splitter.setChildrenCollapsible(False)
        remember_splitter(splitter, context.settings, "compare/tables")
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addLayout(controls)
        layout.addWidget(self.warnings)
        layout.addWidget(splitter, 1)
        layout.addLayout(exports)
        self.metric_box.currentIndexChanged.connect(self._reload)
        self.baseline.currentIndexChanged.connect(self._recompute)
        self.within.toggled.connect(self._within_toggled)
        self.spread.currentIndexChanged.connect(self._draw)
        self.pairs.itemChanged.connect(lambda _item: self._draw())
        self._set_enabled(False)

    def _set_enabled(self, enabled: bool) -> None:
        for widget in (
            self.metric_box,
            self.baseline,
            self.within,
            self.spread,
            *self.export_buttons.values(),
        ):
            widget.setEnabled(enabled)
        self.empty.setVisible(not enabled)

    # -- loading (in the background) -------------------------------------------------------
    @property
    def reading(self) -> bool:
        return self._reader.busy

    def load_sessions(self, session_ids: list[str]) -> None:
        self.session_ids = list(session_ids)
        self._reload()

    def forget_sessions(self, session_ids: list[str]) -> None:
        """Sessions deleted: compared no more (what is left is compared again)."""
        if any(sid in self.session_ids for sid in session_ids):
            self.load_sessions([sid for sid in self.session_ids if sid not in session_ids])

    def _reload(self) -> None:
        """Read the sessions' series in the background; drawn when they arrive."""
        metric = self.metric_box.currentData()
        stored = self.context.door().sessions()
        session_ids = list(self.session_ids)

        def read() -> Read:
            # Oldest first: the session measured first ("before") is the default baseline.
            sessions = sorted((stored.get(sid) for sid in session_ids), key=lambda s: s.created_at)
            items: list[SeriesData] = []
            shares: list[PointShares] = []
            context: list[ContextWarning] = []
            measured: dict[str, frozenset[str]] = {}
            x_label = ""
            for session in sessions:
                runs = stored.runs(session.id)
                items += series_data(session, runs, metric)
                measured.update(measured_metrics(session, runs))
                context += context_checks(session, runs)
                if session.plan.concurrent and not shares:
                    shares = link_shares(session.plan, runs)
                    x_label = x_title(session.plan.variable)
            return sessions, items, shares, x_label, context, measured

        self._reader.run(read, self._loaded, self.status_message.emit)

    def _loaded(
        self,
        result: Read,
    ) -> None:
        self.sessions, self.items, shares, x_label, self.checks, self.measured = result
        self.share_chart.set_shares(shares, x_label)
        show_tab(self.tables, self.tables.indexOf(self.share_chart), bool(shares))
        previous = self.baseline.currentData()
        self.baseline.blockSignals(True)
        self.baseline.clear()
        for session in self.sessions:
            self.baseline.addItem(session.name or session.short_id, session.id)
        index = self.baseline.findData(previous)
        self.baseline.setCurrentIndex(max(index, 0))
        self.baseline.blockSignals(False)
        same = [s.id for s in self.sessions] == self._compared_ids
        self._compared_ids = [s.id for s in self.sessions]
        self.within.blockSignals(True)
        # One session: its series, always; the same sessions read again (another metric):
        # as the user left it.
        self.within.setChecked(len(self.sessions) == 1 or (same and self.within.isChecked()))
        self.within.blockSignals(False)
        self._name_baseline()
        self._recompute()

    def _name_baseline(self) -> None:
        """The session list's label says what it chooses: the baseline, or the one session
        whose series are compared."""
        self.baseline_label.setText("Session" if self.within.isChecked() else "Baseline session")

    def _within_toggled(self) -> None:
        self._name_baseline()
        self._recompute()

    # -- comparing ---------------------------------------------------------------------------
    def _recompute(self) -> None:
        chosen = self.baseline.currentData()
        self.comparison = None
        within = self.within.isChecked()
        mine = [i for i in self.items if i.session.id == chosen] if within else self.items
        mode = Mode.WITHIN if within else Mode.SESSIONS
        # Only what both sides of a pair measured; another metric shown is read again.
        offered = offered_metrics(mine, self.measured, mode, chosen)
        if self.items and not offer(self.metric_box, offered):
            self._reload()
            return
        metric = self.metric_box.currentData()
        if within:
            if len(mine) >= 2:
                self.comparison = compare(mine, metric, mode=Mode.WITHIN, context=self.checks)
            elif self.items:
                self.status_message.emit("This session has one series: nothing to compare it with.")
        elif len(self.sessions) >= 2:
            self.comparison = compare(
                self.items,
                metric,
                mode=Mode.SESSIONS,
                baseline_session=chosen,
                context=self.checks,
            )
        self._set_enabled(bool(self.items))
        for button in self.export_buttons.values():
            button.setEnabled(self.comparison is not None)
        self._fill_pairs()
        self._draw()
        self._fill_tables()

    def _fill_pairs(self) -> None:
        comparison = self.comparison
        self.pairs.blockSignals(True)
        self.pairs.clear()
        if comparison is not None:
            for pair in comparison.pairs:
                entry = QListWidgetItem(f"{pair.other.label}  ↔  {pair.baseline.label}")
                entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                entry.setCheckState(Qt.CheckState.Checked)
                self.pairs.addItem(entry)
        self.pairs.blockSignals(False)
        self.unpaired.setText(unpaired_text(comparison))
        self.unpaired.setVisible(bool(self.unpaired.text()))
        self.pairs.fit()
        said = comparison.warnings if comparison is not None else []
        self.warnings.show_warnings(said)

    def _shown_labels(self) -> set[str]:
        comparison = self.comparison
        if comparison is None:
            return set()
        shown = {c.label for c in comparison.unpaired}
        for index, pair in enumerate(comparison.pairs):
            entry = self.pairs.item(index)
            if entry is None or entry.checkState() == Qt.CheckState.Checked:
                shown |= {pair.baseline.label, pair.other.label}
        return shown

    # -- showing ---------------------------------------------------------------------------
    def _draw(self) -> None:
        draw_comparison(
            self.chart,
            self.comparison,
            self.metric_box.currentData(),
            use_ci=self.spread.currentData() == "ci",
            shown=self._shown_labels(),
        )

    def _fill_tables(self) -> None:
        fill_tables(self.differences, self.std_table, self.findings, self.comparison)
        self._names.fit()

    # -- exports ---------------------------------------------------------------------------
    def export(self, kind: str) -> None:
        if self.comparison is None:
            return
        asked = ask_export(self, self.context.settings, kind)
        if asked:
            path, size = asked
            self.export_to(kind, path, png_size=size)

    def export_to(self, kind: str, path: Path, png_size: tuple[int, int] = (1200, 700)) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        try:
            write_export(comparison, self.context.door(), kind, path, png_size)
        except (OSError, LinkLabError) as err:
            self.status_message.emit(getattr(err, "sentence", f"Cannot write {path}: {err}."))
            return
        self.status_message.emit(f"Saved {path.name}.")
        confirm_saved(self, path)
