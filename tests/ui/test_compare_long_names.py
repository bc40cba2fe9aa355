"""The Compare tab at 1280x720 with long session names: the legend shortens each name (whole
in its tooltip) and keeps to a few rows, so the plot keeps most of the chart's height; the
"Unpaired" note wraps, names each series once and needs no horizontal scrolling; at 1280x800
the Differences table gives its name columns only the room its figures leave."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QAbstractScrollArea, QLabel, QTableWidget

from app.domain.net import IpVersion
from app.ui.common.name_columns import LEAST_PX, share
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import under_wine
from tests.ui.test_sessions_tab import make_session
from tests.ui.user import User, wait_for

USABLE = (1280, 720)
LONG_A = "Room B12 laptop to the lab server over the building's wired network, before the change"
LONG_B = "Room B12 laptop to the lab server over the building's wired network, after the change"


def compare_two(
    window: MainWindow,
    user: User,
    context: AppContext,
    first: tuple[str, tuple[IpVersion, ...]],
    second: tuple[str, tuple[IpVersion, ...]],
    size: tuple[int, int],
) -> None:
    """Two sessions stored (name, IP versions), the window at `size`, both selected in
    Sessions and Compare pressed."""
    db = Path(context.db_path)
    for (name, versions), when in zip((first, second), ("2025-03-01", "2025-03-02"), strict=True):
        make_session(db, name, when=f"{when}T10:00:00+00:00", ip_versions=versions)
    window.resize(*size)
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "the sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")


@pytest.mark.skipif(
    under_wine(),
    reason="Wine lays the list out with font metrics of its own, wider than Windows' and Linux'",
)
def test_long_names_leave_the_plot_most_of_the_chart(
    window: MainWindow, user: User, context: AppContext
) -> None:
    both = (IpVersion.V4, IpVersion.V6)
    # The second IPv4 only: its IPv6 series unpaired.
    compare_two(window, user, context, (LONG_A, both), (LONG_B, (IpVersion.V4,)), USABLE)
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    paired = [row[0] for row in user.table_rows("Pairs compared") if "↔" in row[0]]
    assert len(paired) == 2  # TCP · IPv4 and UDP · IPv4 of the two sessions
    chart = window.compare_tab.chart
    chart.redraw()
    wait_for(lambda: chart.legend.isVisible(), 5, "the legend")
    # Every curve is in the legend, shortened, its whole name in its tooltip.
    labels = [label for _sample, label in chart.legend.items]
    assert len(labels) == 6
    tips = sorted(label.toolTip() for label in labels)
    assert sorted(chart.series_names) == tips
    assert any("…" in label.text for label in labels)
    wait_for(
        lambda: chart.plot_rect().height() >= 0.5 * chart.height(),
        5,
        f"the plot at half the chart: {chart.plot_rect().height()} of {chart.height()}",
    )
    legend = chart.legend.sceneBoundingRect()
    assert legend.height() <= 0.25 * chart.height(), (legend.height(), chart.height())
    assert legend.right() <= chart.width() + 1
    # The unpaired series are said once each, wrapped, without scrolling sideways.
    note = user.find("Unpaired series", QLabel)
    assert note.isVisible() and note.wordWrap()
    text = note.text()
    assert text.count(LONG_A) == 1 and LONG_B not in text, text
    assert text.startswith(f"Unpaired: TCP · IPv6, UDP · IPv6 ({LONG_A})"), text
    assert note.width() <= window.compare_tab.width()
    pairs = user.find("Pairs compared", QAbstractItemView)
    assert isinstance(pairs, QAbstractScrollArea)
    assert pairs.horizontalScrollBar().maximum() == 0
    assert all("Unpaired" not in row[0] for row in user.table_rows("Pairs compared"))


VERY_LONG_A = "Lab 2, group 4: the access point by the window of room B12, open network, before"
VERY_LONG_B = "Lab 2, group 4: the access point by the window of room B12, open network, after"


@pytest.mark.skipif(
    under_wine(),
    reason="Wine lays the table out with font metrics of its own, wider than Windows' and Linux'",
)
def test_long_names_give_way_to_the_figures_at_1280x800(
    window: MainWindow, user: User, context: AppContext
) -> None:
    v4 = (IpVersion.V4,)
    compare_two(window, user, context, (VERY_LONG_A, v4), (VERY_LONG_B, v4), (1280, 800))
    wait_for(lambda: user.table_rows("Differences"), 10, "the differences")
    table = user.find("Differences", QTableWidget)
    wait_for(
        lambda: table.horizontalScrollBar().maximum() == 0,
        5,
        f"no sideways scrolling: {table.horizontalScrollBar().maximum()} px too wide",
    )
    header = table.horizontalHeader()
    for column in range(2, table.columnCount()):  # every figure whole
        assert header.sectionSize(column) >= table.sizeHintForColumn(column), column
    names = [table.item(row, column) for row in range(table.rowCount()) for column in (0, 1)]
    assert all(item is not None for item in names)
    # The names are cut in their columns (they would not fit) and whole in their tooltips.
    for column in (0, 1):
        assert header.sectionSize(column) < table.sizeHintForColumn(column)
        assert header.sectionSize(column) >= LEAST_PX
    tips = {item.toolTip() for item in names if item is not None}
    assert any(VERY_LONG_A in tip for tip in tips) and any(VERY_LONG_B in tip for tip in tips)
    assert all(item.toolTip() == item.text() for item in names if item is not None)
    assert table.textElideMode() is Qt.TextElideMode.ElideMiddle
    # A wider window gives the names their room back.
    window.resize(2400, 900)
    wait_for(
        lambda: header.sectionSize(0) >= table.sizeHintForColumn(0),
        5,
        f"the name whole: {header.sectionSize(0)} of {table.sizeHintForColumn(0)} px",
    )


def test_share_gives_each_name_what_it_wants_or_an_even_part() -> None:
    assert share(500, [100, 200]) == [100, 200]  # all fit
    assert share(300, [100, 400]) == [100, 200]  # the short one keeps its want
    assert share(300, [400, 400]) == [150, 150]
    assert share(10, [400, 400]) == [LEAST_PX, LEAST_PX]  # never below the least
    assert share(10, [40, 400]) == [40, LEAST_PX]  # nor above a want below the least
    assert share(-50, [400]) == [LEAST_PX]
