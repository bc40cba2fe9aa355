"""The Measure tab's results table beside the form at 1280x800, as a person reads it: a study
of TCP and UDP with a link rate and working latency has more columns than the pane is wide;
the range (Min, Max) gives way rather than the last columns going out of view, the table says
so, Copy table still gives it, and a wider window shows it again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QApplication

from app.ui.common.results import GIVEN_WAY_TIP
from app.ui.main_window import MainWindow
from tests.ui.test_measure import plan_sweep
from tests.ui.test_room_at_1280x800 import every_column_in_view, readable_cells
from tests.ui.user import User, wait_for


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_every_column_but_the_range_stays_in_view_beside_the_form(
    window: MainWindow, user: User
) -> None:
    assert (window.width(), window.height()) == (1280, 800)
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, "1408", runs=2, seconds=1)
    user.choose("Medium", "Ethernet")
    user.type("Link rate", "1G")
    user.check("Working latency")
    user.click("Start")
    wait_for(lambda: window.measure.running, 20, "the sweep to start")
    wait_for(lambda: not window.measure.running, 120, "the sweep")
    assert "completed" in user.text("Status"), user.text("Log")
    table = user.find("Results", QAbstractItemView)
    headers = user.headers("Results")
    wanted = {"Retransmits", "Loss %", "Jitter ms", "Loaded latency ms", "Expected"}
    assert wanted <= set(headers), headers
    # Every column shown ends inside the pane, each title and figure whole.
    wait_for(lambda: every_column_in_view(table), 5, f"every column in view: {headers}")
    assert readable_cells(table) == []
    given_way = "Min" not in headers
    assert given_way == ("Max" not in headers)
    # Where the range gave way, the table says so; Copy table gives it all the same.
    assert (GIVEN_WAY_TIP in table.toolTip()) == given_way
    user.click_row("Results", 0)
    user.key(Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text().splitlines()
    titles = copied[0].split("\t")
    assert {"Min", "Max", "Std dev", *wanted} <= set(titles), titles
    assert len(copied) == 1 + len(user.table_rows("Results"))
    for line in copied[1:]:
        cells = dict(zip(titles, line.split("\t"), strict=True))
        assert float(cells["Min"]) <= float(cells["Max"]), cells
    # A wider window: the range comes back, and still every column is in view.
    window.resize(1920, 1080)
    QApplication.processEvents()
    wait_for(lambda: {"Min", "Max"} <= set(user.headers("Results")), 5, "the range again")
    assert GIVEN_WAY_TIP not in table.toolTip()
    wait_for(lambda: every_column_in_view(table), 5, "every column in view, wide")
