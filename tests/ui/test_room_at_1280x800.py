"""Room to read at 1280×800, as a person sees the window: the Sessions list, a session's
results, findings and details, Compare's findings and the Measure tab's results each show
whole rows and lines, none cut and none pushed sideways out of view; a long status sentence
wraps at its words; and the panes a person moves stay where they were left after LinkLab is
closed and opened again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGraphicsItem,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QSplitter,
    QTabBar,
    QTextBrowser,
    QToolButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.domain.net import Protocol
from app.domain.plan import Security
from app.engine.process.servers import LocalServer
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.testbed import NeighbourBed
from tests.ui.conftest import SHAPED_MBIT
from tests.ui.journey import choose_the_neighbour
from tests.ui.test_measure import plan_sweep
from tests.ui.test_monitor import charted, figures, stored_plot_tabs
from tests.ui.test_readable import store_session
from tests.ui.user import User, wait_for

SIZES = (128, 384, 640, 896, 1152, 1408)
SESSIONS = 15


def store_sessions(path: Path) -> None:
    """Fifteen sessions of four series over six sizes, three runs each: 24 result rows."""
    for day in range(1, SESSIONS + 1):
        store_session(
            path,
            f"Lab session {day}",
            (Protocol.TCP, Protocol.UDP),
            when=f"2025-03-{day:02d}T10:00:00+00:00",
            security=Security.WPA2 if day % 2 else Security.OPEN,
            values=SIZES,
        )


def whole_rows(view: QAbstractItemView) -> int:
    """How many rows a person sees whole in the table, none cut at its bottom."""
    area = view.viewport().rect()
    model = view.model()
    shown = 0
    for row in range(model.rowCount()):
        rect = view.visualRect(model.index(row, 0))
        shown += area.top() <= rect.top() and rect.bottom() <= area.bottom()
    return shown


def text_lines(text: QTextBrowser) -> int:
    """How many lines of text its pane has room for."""
    return text.viewport().height() // text.fontMetrics().lineSpacing()


def all_shown(text: QTextBrowser) -> bool:
    """Its whole text in view: nothing to scroll to."""
    return text.verticalScrollBar().maximum() == 0


def whole_on_screen(user: User, widget: QWidget) -> bool:
    return user.on_screen(widget) == QRect(0, 0, widget.width(), widget.height())


def label_whole(label: QLabel) -> bool:
    """Every line of its wrapped text inside it: no line cut off at its bottom."""
    needed = label.fontMetrics().boundingRect(
        0, 0, label.contentsRect().width(), 1 << 20, Qt.TextFlag.TextWordWrap, label.text()
    )
    return needed.height() <= label.contentsRect().height()


def open_first(user: User) -> None:
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == SESSIONS, 10, "the sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 24, 10, "the session's table")


def test_at_1280x800_with_nothing_open_the_list_takes_the_room(
    window: MainWindow, user: User
) -> None:
    store_sessions(window.context.db_path)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == SESSIONS, 10, "the sessions")
    listed = user.find("Sessions", QAbstractItemView)
    # Nothing open: every one of the 15 sessions in view, the sentence below in one line.
    wait_for(lambda: whole_rows(listed) == SESSIONS, 5, f"15 rows: {whole_rows(listed)}")
    assert "Select a session in the list to see its results." in user.visible_text()
    assert not user.can_see("Session view")
    # One clicked: its view takes the room below a list of a few rows, the sentence gone.
    user.click_row("Sessions", 2)
    wait_for(lambda: len(user.table_rows("Session results")) == 24, 10, "the session's table")
    view = user.find("Session view")
    assert view.isVisible() and view.height() >= 0.5 * window.height(), view.height()
    assert 5 <= whole_rows(listed) < SESSIONS
    assert "Select a session in the list" not in user.visible_text()


def test_at_1280x800_a_session_and_a_comparison_read_in_whole_rows_and_lines(
    window: MainWindow, user: User
) -> None:
    assert (window.width(), window.height()) == (1280, 800)
    store_sessions(window.context.db_path)
    open_first(user)
    # The list: more than four rows to choose from (it showed 4 of 15).
    assert whole_rows(user.find("Sessions", QAbstractItemView)) >= 5
    # The session's results: more than three of its 24 rows, beside a chart that keeps its
    # share of the view.
    results = user.find("Session results", QAbstractItemView)
    assert whole_rows(results) >= 5, whole_rows(results)
    assert results.horizontalScrollBar().maximum() == 0  # every column in view
    view = user.find("Session view")
    chart = user.find("Session throughput chart")
    assert chart.height() >= 0.4 * view.height(), (chart.height(), view.height())
    # Its name, status and plan whole above the chart.
    details = user.find("Session details", QLabel)
    assert whole_on_screen(user, details) and label_whole(details)
    assert "Lab session 15" in details.text() and "runs 72/72" in details.text()
    # Its findings: a pane of their own with room for lines to read.
    user.tab("Findings")
    findings = user.find("Session findings", QTextBrowser)
    assert text_lines(findings) >= 8, text_lines(findings)
    # Its conditions and environment, whole: nothing to scroll.
    user.tab("Details")
    about = user.find("Session conditions and environment", QTextBrowser)
    assert "Conditions: WPA2" in about.toPlainText() and all_shown(about)

    # Two sessions compared: the chart keeps half of the tab, the findings about ten lines.
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 4, 10, "the four pairs")
    page = window.tabs.currentWidget()
    compared = user.find("Comparison chart")
    wait_for(lambda: compared.height() >= page.height() / 2, 10, "the chart's half of the tab")
    pairs = user.find("Pairs compared", QAbstractItemView)
    assert whole_rows(pairs) == 4  # on one line above the chart, none scrolled away
    assert whole_rows(user.find("Differences", QAbstractItemView)) >= 5
    user.tab("Findings")
    said = user.find("Findings", QTextBrowser)
    assert text_lines(said) >= 9, text_lines(said)


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_at_1280x800_the_measure_results_fit_and_a_long_status_wraps_at_its_words(
    window: MainWindow, user: User, iperf3_server_port: tuple[int, LocalServer]
) -> None:
    # TCP and UDP: retransmits, loss, jitter and datagrams out of order, each a column.
    user.choose("Protocol", "TCP and UDP")
    plan_sweep(user, "1408", runs=1, seconds=1)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the sweep")
    assert "completed" in user.text("Status")
    table = user.find("Results", QAbstractItemView)
    headers = user.headers("Results")
    assert {"Retransmits", "Loss %", "Jitter ms", "Out of order"} <= set(headers), headers
    header = table.horizontalHeader()  # type: ignore[attr-defined]
    assert table.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways to
    last = max(c for c in range(header.count()) if not header.isSectionHidden(c))
    assert header.sectionViewportPosition(last) + header.sectionSize(last) <= (
        table.viewport().width()
    )
    # A server that stops after the first run: the sentence the session ends with is long,
    # and wraps at its words in the status bar, every word shown.
    port, server = iperf3_server_port
    user.type("Peer", "127.0.0.1")
    user.type("iperf3 port", str(port))
    user.choose("Protocol", "TCP")
    plan_sweep(user, "1408", runs=3, seconds=1)
    user.tab("Advanced")
    user.type("Pause between runs", "2")
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the sweep to start")
    wait_for(lambda: [r[2] for r in user.table_rows("Results")] == ["1"], 60, "the first run")
    server.stop()
    wait_for(lambda: not window.measure.running, 60, "the sweep to end")
    status = user.find("Status", QLabel)
    said = status.text()
    assert "completed with failures. 2 of 3 runs failed. The first failure:" in said, said
    metrics = status.fontMetrics()
    assert metrics.horizontalAdvance(said) > status.width()  # longer than the window is wide
    wait_for(
        lambda: whole_on_screen(user, status) and label_whole(status),
        5,
        f"the status bar to show every line of {said!r}",
    )
    assert status.height() >= 2 * metrics.lineSpacing()  # wrapped onto lines, not cut


def every_column_in_view(table: QAbstractItemView) -> bool:
    """No column to scroll sideways to: the last one ends inside the table."""
    header = table.horizontalHeader()  # type: ignore[attr-defined]
    last = max(c for c in range(header.count()) if not header.isSectionHidden(c))
    right = header.sectionViewportPosition(last) + header.sectionSize(last)
    return table.horizontalScrollBar().maximum() == 0 and right <= table.viewport().width()


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_at_1280x800_a_tcp_study_with_a_link_rate_shows_every_column(
    window: MainWindow, user: User, context: AppContext, shaped_neighbour: NeighbourBed
) -> None:
    """Across a shaped link with its rate stated and working latency measured, three runs a
    point: the spread, the range, the retransmits, the three latencies, the expected goodput
    and the share of it reached, all in view, each column as wide as its title and figures.
    As found: "Of expected %" and the latency columns were cut off to the right."""
    choose_the_neighbour(user, context, shaped_neighbour)
    user.choose("Protocol", "TCP")
    plan_sweep(user, "1024, 1408", runs=3, seconds=2)
    user.choose("Medium", "Ethernet")
    user.type("Link rate", f"{SHAPED_MBIT}M")
    user.check("Working latency")
    user.tab("Advanced")
    user.type("Frame overhead (bytes)", "14")  # the shaper counts the Ethernet header
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: window.measure.running, 20, "the sweep to start")
    wait_for(lambda: not window.measure.running, 120, "the sweep")
    assert "completed" in user.text("Status"), user.text("Log")
    headers = user.headers("Results")
    wanted = {"Std dev", "Retransmits", "Expected", "Of expected %", "Loaded p90 ms"}
    assert wanted <= set(headers), headers
    rows = user.table_rows("Results")
    assert len(rows) == 2 and all(row[headers.index("n")] == "3" for row in rows)
    assert all(0 < float(row[headers.index("Of expected %")]) < 110 for row in rows), rows
    table = user.find("Results", QAbstractItemView)
    assert every_column_in_view(table), (rows, table.viewport().width())
    assert readable_cells(table) == []
    # Each row's figures in the unit its mean gives, written once.
    for row in rows:
        unit = row[headers.index("Mean")].split()[1]
        assert unit.endswith("bit/s"), row
        for name in ("Std dev", "Min", "Max", "95 % CI ±"):
            float(row[headers.index(name)])  # a number, in the mean's unit


def readable_cells(table: QAbstractItemView) -> list[str]:
    """The header titles and cells whose text is wider than its column: elided, unread."""
    header = table.horizontalHeader()  # type: ignore[attr-defined]
    model, metrics = table.model(), table.fontMetrics()
    cut = []
    for column in range(model.columnCount()):
        if header.isSectionHidden(column):
            continue
        title = str(model.headerData(column, Qt.Orientation.Horizontal))
        if header.sectionSize(column) < header.sectionSizeFromContents(column).width():
            cut.append(title)
        for row in range(model.rowCount()):
            text = str(model.index(row, column).data())
            if metrics.horizontalAdvance(text) > table.visualRect(model.index(row, column)).width():
                cut.append(text)
    return cut


def test_at_1280x800_the_differences_of_two_sessions_show_every_column_whole(
    window: MainWindow, user: User
) -> None:
    """Two sessions named as a class names them, compared: the series, the interval of each
    difference and the verdict under "Significant (α = 0.05)" all in view, none elided."""
    for day, name in ((1, "Evening at home, Wi-Fi"), (2, "Morning at home, Wi-Fi")):
        store_session(
            window.context.db_path,
            name,
            (Protocol.TCP, Protocol.UDP),
            when=f"2025-03-0{day}T10:00:00+00:00",
            mbit=4700.0 + 300 * day,  # Gbit/s means, differences in Mbit/s
            values=(128, 1408),
        )
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    names = [row[user.headers("Sessions").index("Name")] for row in user.table_rows("Sessions")]
    user.click_row("Sessions", names.index("Evening at home, Wi-Fi"))
    morning = names.index("Morning at home, Wi-Fi")
    user.click_row("Sessions", morning, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 4, 10, "the four pairs")
    headers = user.headers("Differences")
    assert headers[-1] == "Significant (α = 0.05)", headers
    rows = user.table_rows("Differences")
    assert len(rows) == 8 and {row[-1] for row in rows} <= {"yes", "no"}, rows
    assert any("(Morning at home, Wi-Fi)" in row[0] for row in rows), rows
    table = user.find("Differences", QAbstractItemView)
    assert every_column_in_view(table), (headers, table.viewport().width())
    assert readable_cells(table) == []


def sizes(window: MainWindow) -> dict[str, list[int]]:
    return {
        name: window.findChild(QSplitter, name).sizes()  # type: ignore[union-attr]
        for name in ("sessions_splitter", "session_body", "measure_splitter", "compare_splitter")
    }


@pytest.fixture
def reopened(qtbot: QtBot, context: AppContext, tmp_path: Path) -> Iterator[object]:
    """Open LinkLab's window again on the same settings (the test closes the first)."""
    opened: list[MainWindow] = []

    def open_again() -> MainWindow:
        win = MainWindow(context, preset_dir=tmp_path / "presets")
        qtbot.addWidget(win, before_close_func=lambda w: w.shutdown())
        win.resize(1280, 800)  # as the fixture's window: the offscreen screen keeps no place
        win.show()
        qtbot.waitExposed(win)
        opened.append(win)
        return win

    yield open_again
    for win in opened:
        win.shutdown()


def test_the_panes_stay_where_the_user_left_them_after_closing_and_opening_again(
    window: MainWindow, user: User, reopened: object
) -> None:
    store_sessions(window.context.db_path)
    open_first(user)
    before = sizes(window)
    user.drag_edge("Sessions", 120)  # a longer list
    user.drag_edge("Session throughput chart", -60)  # more of the results below the chart
    user.tab("Details")
    user.tab("Measure")
    user.drag_edge("Peer", -30)  # a narrower form, wider results
    user.tab("Sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 4, 10, "the comparison")
    user.drag_edge("Comparison chart", -50)  # more of the tables and findings
    moved = sizes(window)
    for name in moved:
        assert moved[name] != before[name], name
    assert moved["sessions_splitter"][0] >= before["sessions_splitter"][0] + 100
    window.close()
    wait_for(lambda: not window.isVisible(), 10, "the window to close")

    again: MainWindow = reopened()  # type: ignore[operator]
    person = User(again)
    person.tab("Sessions")
    wait_for(lambda: len(person.table_rows("Sessions")) == SESSIONS, 10, "the sessions")
    person.click_row("Sessions", 0)
    # The tab last chosen below the chart: the session's details, not its results.
    wait_for(
        lambda: "Conditions:" in person.text("Session conditions and environment"),
        10,
        "the session's details",
    )
    assert not person.can_see("Session results")
    person.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    person.click("Compare")
    wait_for(lambda: len(person.table_rows("Pairs compared")) == 4, 10, "the comparison")

    #: How far each splitter may be from where it was left. The Compare tab's comes back up
    #: to 5 px lower on some runs (a reflow after its pairs arrive, not yet found); its default
    #: lies 50 px away, so the position remembered is still what this tells apart.
    slack = {"compare_splitter": 8}

    def as_left() -> bool:
        """Every splitter where it was (within a pixel or two), once the window is laid out."""
        now = sizes(again)
        return all(
            abs(a - b) <= slack.get(name, 2)
            for name in now
            for a, b in zip(now[name], moved[name], strict=True)
        )

    wait_for(as_left, 5, f"the panes where they were left: {moved}")


READING_TABS = ["Results", "Findings", "Details"]


def reading_bar(user: User) -> QTabBar:
    """The tab bar on screen whose tabs read Results, Findings and Details."""
    (bar,) = [
        bar
        for bar in user.window.findChildren(QTabBar)
        if user.shown(bar)
        and [bar.tabText(i) for i in range(bar.count()) if bar.isTabVisible(i)] == READING_TABS
    ]
    return bar


def cut_tabs(user: User) -> list[str]:
    """The reading tabs not whole in view (cut by the bar's edge, or scrolled out), and the
    bar's scroll arrows if they show."""
    bar = reading_bar(user)
    seen = bar.rect().intersected(user.on_screen(bar))
    cut = [bar.tabText(i) for i in range(bar.count()) if not seen.contains(bar.tabRect(i))]
    arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
    return cut + (["scroll arrows"] if arrows else [])


def test_at_1280x800_the_reading_tabs_stay_whole_after_switching_and_refreshing(
    window: MainWindow, user: User
) -> None:
    """As found: after another session was chosen or Refresh pressed, the Results, Findings
    and Details bar was about 140 px wide, with scroll arrows over "dings | Details"."""
    store_sessions(window.context.db_path)
    open_first(user)
    assert cut_tabs(user) == []
    for row, reading in ((1, "Findings"), (2, "Details"), (3, "Results")):
        user.click_row("Sessions", row)
        name = f"Lab session {SESSIONS - row}"  # newest first
        wait_for(lambda n=name: n in user.text("Session details"), 10, name)
        wait_for(lambda: not window.sessions.reading, 10, name)
        assert cut_tabs(user) == [], f"after choosing row {row}"
        user.tab(reading)
        user.click("Refresh")
        wait_for(lambda: not window.sessions.reading, 10, "the list read again")
        assert cut_tabs(user) == [], f"after Refresh on {reading}"
        for text in READING_TABS:
            user.tab(text)
            assert cut_tabs(user) == [], f"after opening {text}"


def test_tabs_are_shown_and_hidden_only_through_show_tab() -> None:
    """Qt's setTabVisible() called with a tab's own state clears a hidden bar's pending
    layout (app.ui.common.tabs): every tab is shown or hidden through show_tab()."""
    app = Path(__file__).resolve().parents[2] / "app"
    callers = [
        str(path.relative_to(app))
        for path in app.rglob("*.py")
        if ".setTabVisible(" in path.read_text(encoding="utf-8")
    ]
    assert callers == [str(Path("ui", "common", "tabs.py"))]


#: The stored monitor's plots by the names a screen reader reads, each on a tab of its own.
MONITOR_PLOTS = ("Monitor throughput chart", "Monitor loss chart", "Monitor latency chart")


def inside(plot: QGraphicsView, item: QGraphicsItem) -> bool:
    """The item drawn wholly inside the plot's own area (its widget clips the rest): a text's
    glyphs, its document's margins aside."""
    rect = item.boundingRect()
    if isinstance(item, QGraphicsTextItem):
        margin = item.document().documentMargin()
        rect = rect.adjusted(margin, margin, -margin, -margin)
    drawn = plot.mapFromScene(item.mapRectToScene(rect)).boundingRect()
    # A pixel or two of a box past the edge is its line's leading, not a glyph cut.
    return plot.viewport().rect().adjusted(-2, -2, 2, 2).contains(drawn)


def readable(user: User, name: str) -> list[str]:
    """What is not readable of the plot on view: a plot too low, its axis labels or legend
    cut by its edges."""
    plot = user.find(name, QGraphicsView)
    item = plot.getPlotItem()  # type: ignore[attr-defined]
    problems = []
    if plot.height() < 120 or item.getViewBox().height() < 100:
        problems.append(f"{plot.height()} px high, {item.getViewBox().height():.0f} px of data")
    for side in ("left", "bottom"):
        label = item.getAxis(side).label
        if not inside(plot, label):
            problems.append(f"the {side} axis label {label.toPlainText()!r} cut")
    if item.legend.isVisible() and not inside(plot, item.legend):
        problems.append("the legend cut")
    return problems


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_at_1280x800_a_reopened_monitor_reads_each_plot_at_its_height(
    window: MainWindow, user: User
) -> None:
    """As found: reopened at 1280×800, a monitor's three stacked plots were a throughput chart
    with a single tick and two of no height, their axis labels run together ("ransmitput
    (Mt"), its figures' table scrolled sideways ("Latenc"). Each plot now has a tab and the
    pane's height, and the pane keeps that height when the findings below are made taller."""
    user.tab("Monitor")
    user.check("Monitor working latency")
    user.click("Start monitor")
    wait_for(lambda: charted(user) >= 4, 30, "four intervals charted")
    wait_for(lambda: "Latency" in figures(user), 10, "the working latency")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 15, "the monitor to stop")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the monitor in Sessions")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Stored monitor chart"), 10, "the stored monitor")
    tabs = stored_plot_tabs(user)
    assert tabs[:2] == ["Throughput", "TCP retransmits"], tabs
    assert tabs[2].startswith("Working latency · "), tabs
    for attempt in ("as it opens", "with the findings pane made taller"):
        for tab, name in zip(tabs, MONITOR_PLOTS, strict=True):
            user.tab(tab)
            assert readable(user, name) == [], f"{tab} {attempt}"
        figures_table = user.find("Stored monitor figures", QAbstractItemView)
        assert figures_table.horizontalScrollBar().maximum() == 0, attempt  # no column cut
        assert whole_rows(figures_table) == 4, attempt  # last, mean, min and max
        user.drag_edge("Session charts", -300)  # the findings below given more room
