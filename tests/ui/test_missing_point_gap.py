"""A point with no successful run is a gap in every chart of its session, never a straight
line through it: a sweep whose peer's server was down at its middle point (all its runs
failed), seen in the Measure tab's Sweep chart as it ran, in the stored session's chart, and
in the chart of its HTML report (opened and read by its pixels), its table saying n = 0
there and its warning naming it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Series
from app.engine.drivers.iperf3.server import iperf3_server
from app.engine.process.servers import ServerOptions
from app.engine.process.tools import Tool
from app.ui.common.chart_style import series_colour
from app.ui.common.charts import SweepChart
from app.ui.main_window import MainWindow
from tests.artifacts import colour_columns, html_images
from tests.conftest import free_port
from tests.sentences import read_few
from tests.ui.journey import save_as
from tests.ui.shown_sentences import shown_warnings
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

SIZES = ("128", "640", "1408")
TCP4 = Series(Protocol.TCP, IpVersion.V4)


def widest_gap(columns: np.ndarray) -> float:
    """The widest stretch without the colour between its first and last column, as a share of
    that span (0: a line drawn all the way)."""
    assert columns.size >= 2, "the curve is not drawn"
    return float(np.diff(columns).max() - 1) / float(columns[-1] - columns[0])


def the_gap(chart: SweepChart) -> list[float]:
    (series,) = chart.series_names
    assert chart.point_count(series) == 2
    return chart.gaps(series)


def test_a_point_with_no_successful_run_is_a_gap_everywhere(
    window: MainWindow, user: User, iperf3_tool: Tool, tmp_path: Path
) -> None:
    port = free_port()
    server = iperf3_server(iperf3_tool, ServerOptions(port))
    server.start()
    try:
        user.type("Peer", "127.0.0.1")
        user.type("iperf3 port", str(port))
        user.choose("Protocol", "TCP")
        user.choose("IP version", "IPv4")
        plan_sweep(user, ", ".join(SIZES), runs=1, seconds=1)
        user.tab("Advanced")
        user.type("Pause between runs", "3")  # the server goes and comes back between runs
        user.tab("Study")
        user.type("Session name", "server down at 640 B")
        user.click("Start")
        progress = user.find("Progress")
        wait_for(lambda: progress.value() >= 1, 60, "128 B measured")  # type: ignore[attr-defined]
        server.stop()
        wait_for(lambda: "Error:" in user.text("Log"), 60, "the run at 640 B to fail")
        server = iperf3_server(iperf3_tool, ServerOptions(port))
        server.start()
        wait_for(lambda: not window.measure.running, 60, "the sweep to end")
    finally:
        server.stop()
    assert "completed with failures" in user.text("Status"), user.text("Log")

    # As it ran: 640 B is in the table with n = 0, and a gap in the Sweep chart.
    live = {row[1]: row[2] for row in user.table_rows("Results")}
    assert live == {"128": "1", "640": "0", "1408": "1"}
    user.tab("Sweep")
    assert the_gap(user.find("Sweep chart", SweepChart)) == [640.0]

    # Stored: the same gap, its warning naming 640 B (0 of 1).
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's table")
    assert the_gap(user.find("Session throughput chart", SweepChart)) == [640.0]
    (said,) = [s for s in map(read_few, shown_warnings(user.text("Session warnings"))) if s]
    assert (640.0, 0, 1) in said.short

    # Its HTML report's chart: the curve breaks between 128 B and 1408 B.
    page = tmp_path / "report.html"
    with user.answering(save_as(page)):
        user.click("Export HTML…")
    wait_for(page.exists, 60, page.name)
    chart = html_images(page)[0]
    assert widest_gap(colour_columns(chart, series_colour(TCP4))) > 0.25
