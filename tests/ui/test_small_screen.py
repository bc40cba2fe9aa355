"""The window on a 1280x800 screen with a title bar and a taskbar (about 1280x720 usable):
it fits, its status bar shows, every tab's main controls are whole on screen, the Sessions
list shows four rows to choose from, and the Monitor's chart titles are never cut off."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QApplication, QWidget

from app.ui.common.saved import confirm_saved
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

USABLE = (1280, 720)

#: The controls a newcomer needs on each tab, by the names they read.
MAIN_CONTROLS = {
    "Measure": [
        "Peer",
        "Find computers",
        "Check peer",
        "Engine",
        "Direction",
        "Protocol",
        "IP version",
        "Sweep",
        "Values list",
        "Runs per point",
        "Seconds per run",
        "Command",
        "Start",
        "Stop",
    ],
    "Responsiveness": ["Responsiveness peer", "Start responsiveness test", "Stop test"],
    "Sessions": [
        "Search sessions",
        "Open",
        "Compare",
        "Delete…",
        "Export for another computer…",
        "Import…",
    ],
    "Compare": ["Baseline session", "Metric", "Chart PNG…", "Table CSV…", "PDF report…"],
    "Server": ["Start the iperf3 server", "Start the netserver", "Start the iperf 2 server"],
    "Class": ["Open class folder…", "Open live class…", "Students"],
    "Settings": ["Open folder"],
}


def whole_on_screen(user: User, widget: QWidget) -> bool:
    """Every pixel of the control inside the window and each pane holding it (a page that
    scrolls counts as showing what it scrolls to)."""
    user._reveal(widget)
    return user.on_screen(widget) == QRect(0, 0, widget.width(), widget.height())


def test_the_window_fits_1280x720_with_its_status_bar_and_every_main_control(
    window: MainWindow, user: User
) -> None:
    hint = window.minimumSizeHint()
    assert hint.width() <= USABLE[0] and hint.height() <= USABLE[1], hint
    window.resize(*USABLE)
    wait_for(lambda: window.size().toTuple() == USABLE, 5, "the window at 1280x720")
    status = user.find("Status")
    for tab, names in MAIN_CONTROLS.items():
        user.tab(tab)
        assert whole_on_screen(user, status) and status.height() > 0, tab
        bar = window.statusBar()
        assert bar.geometry().bottom() < window.height() and bar.isVisible()
        cut = [name for name in names if not whole_on_screen(user, user.find(name))]
        assert not cut, f"cut off on {tab} at 1280x720: {cut}"


def test_with_a_larger_system_font_the_window_still_fits_1280x720(
    qtbot, context: AppContext, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """12 pt, about what Windows' 125 % scaling gives its 9 pt interface font."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = app.font()
    larger = QFont(before)
    larger.setPointSizeF(12)
    app.setFont(larger)
    try:
        big = MainWindow(context, preset_dir=tmp_path / "presets")
        qtbot.addWidget(big, before_close_func=lambda w: w.shutdown())
        big.resize(*USABLE)
        big.show()
        qtbot.waitExposed(big)
        hint = big.minimumSizeHint()
        assert hint.width() <= USABLE[0] and hint.height() <= USABLE[1], hint
        user = User(big)
        for tab, names in MAIN_CONTROLS.items():
            user.tab(tab)
            assert whole_on_screen(user, user.find("Status")), tab
            cut = [name for name in names if not whole_on_screen(user, user.find(name))]
            assert not cut, f"cut off on {tab} at 1280x720 in 12 pt: {cut}"
        big.shutdown()
    finally:
        app.setFont(before)


def test_at_1280x720_the_sessions_list_shows_four_rows(
    window: MainWindow, user: User, context: AppContext
) -> None:
    db = Path(context.db_path)
    for day in range(1, 10):
        make_session(db, f"Lab session {day}", when=f"2025-03-0{day}T10:00:00+00:00")
    window.resize(*USABLE)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 9, 10, "the sessions")
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.can_see("Session details"), 10, "the session on view")
    table = user.find("Sessions", QAbstractItemView)
    row = table.visualRect(table.model().index(0, 0)).height()
    assert table.viewport().height() // row >= 4  # it showed 3½ before


def test_the_monitor_titles_are_shortened_never_cut(window: MainWindow, user: User) -> None:
    window.resize(*USABLE)
    user.tab("Monitor")
    user.check("Monitor working latency")
    chart = window.measure.monitor.chart
    chart.latency.setVisible(True)  # as Start monitor shows it with working latency on
    title = "Working latency · 12.5 % of probes lost, the peer's echo silent for a while"
    chart.latency.set_title(title)
    for width in (USABLE[0], window.minimumSizeHint().width()):
        window.resize(width, USABLE[1])
        wait_for(lambda w=width: window.width() == w, 5, "the window's width")
        wait_for(lambda: chart.latency.isVisible(), 5, "the latency plot")
        label = chart.latency.getPlotItem().titleLabel
        shown = label.item.toPlainText()
        drawn = label.item.mapRectToScene(label.item.boundingRect())
        assert 0 <= drawn.left() and drawn.right() <= chart.latency.width() + 1, (width, shown)
        assert shown == title or (shown.endswith("…") and title.startswith(shown[:-1]))
        assert len(shown) > 10, shown  # still says what the chart is


def test_a_saved_file_with_a_long_path_is_confirmed_without_widening_the_window(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    window.resize(*USABLE)
    before = window.minimumSizeHint().width()
    deep = tmp_path.joinpath(*(["a folder with a rather long name for the lab"] * 6))
    path = deep / "comparison of open and WPA2 over IPv4 and IPv6, room B12.csv"
    user.tab("Compare")  # the notice is shown on the tab it was saved from
    confirm_saved(window.compare_tab, path)
    notice = user.find("Saved files")
    assert whole_on_screen(user, notice) and whole_on_screen(user, user.find("Open folder"))
    assert path.name in notice.toolTip() and str(path.parent) in notice.toolTip()
    assert notice.text().startswith("Saved comparison") and "…" in notice.text()  # shortened
    assert window.minimumSizeHint().width() == before and window.width() == USABLE[0]
    user.click("Close saved notice")
    assert not user.can_see("Saved files")
