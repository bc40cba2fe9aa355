"""Readable at 1280×800, as a person sees the window: the session view's chart keeps a good
share of its view with the results, findings and details to read below it, no legend over
the data, a series in one colour in every view, a one-point chart on a sensible axis, and the
Command field showing the plan on screen whatever changed it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.domain.net import IpVersion, Protocol
from app.domain.plan import Conditions, Peer, Plan, Security
from app.domain.records import RunMetrics, SessionStatus, utc_now
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.common.charts import SweepChart
from app.ui.main_window import MainWindow
from tests.ui.user import User, wait_for

VALUES = (128, 640, 1408)


def store_session(
    path: Path,
    name: str,
    protocols: tuple[Protocol, ...],
    *,
    when: str,
    security: Security = Security.OPEN,
    mbit: float = 47.0,
    repetitions: int = 3,
    values: tuple[int, ...] = VALUES,
) -> str:
    """A finished session of a 50 Mbit/s link: every series 45–50 Mbit/s, the curves near the
    top of the plot where a legend used to sit."""
    plan = Plan(
        peer=Peer("127.0.0.1", host6="::1"),
        protocols=protocols,
        ip_versions=(IpVersion.V4, IpVersion.V6),
        values=values,
        repetitions=repetitions,
        duration_s=1,
        name=name,
        conditions=Conditions(security=security),
    )
    with Database(path) as db:
        store = SessionStore(db)
        session_id = store.create_session(plan)
        for key in plan.run_keys():
            rate = (mbit + key.value_index + 0.3 * key.repetition) * 1e6
            store.add_run(
                session_id,
                key,
                float(plan.values[key.value_index]),
                metrics=RunMetrics(throughput_bps=rate, cpu_local_pct=20.0, cpu_remote_pct=30.0),
                started_at=utc_now(),
                elapsed_s=1.0,
                engine="iperf3",
            )
        store.finish(session_id, SessionStatus.COMPLETED, "")
        with db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET created_at = ?, started_at = ? WHERE id = ?",
                (when, when, session_id),
            )
    return session_id


def open_session(user: User, row: int, name: str) -> SweepChart:
    """Open the session in that row of the list, once the list shows it under that name."""
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) > row, 10, "the session list")
    wait_for(lambda: user.table_rows("Sessions")[row][1] == name, 10, f"{name!r} listed")
    user.click_row("Sessions", row)
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's table")
    wait_for(lambda: name in user.text("Session details"), 10, f"{name!r} on view")
    chart = user.find("Session throughput chart", SweepChart)
    chart.redraw()
    return chart


def laid_out(user: User, chart: SweepChart) -> bool:
    """The window has placed the session's header above the chart, none of it under it."""
    details = user.find("Session details")
    shown = User.on_screen(details)
    bottom = details.mapTo(details.window(), shown.bottomLeft()).y()
    top = chart.mapTo(chart.window(), chart.rect().topLeft()).y()
    return shown.height() > 0 and bottom < top


def legend_off_the_data(chart: SweepChart) -> None:
    """The legend shows, names every curve, and its rectangle on screen lies outside the plot
    area where the data is drawn."""
    legend = chart.legend
    assert legend.isVisible() and len(legend.items) == len(chart.series_names)
    plot, box = chart.plot_rect(), legend.sceneBoundingRect()
    assert not box.intersects(plot), (box, plot)
    assert box.top() >= plot.bottom()  # under the plot, inside the chart
    assert box.bottom() <= chart.height() + 1 and box.right() <= chart.width() + 1


def test_the_session_view_shares_its_height_between_chart_and_reading_at_1280x800(
    window: MainWindow, user: User
) -> None:
    assert (window.width(), window.height()) == (1280, 800)
    store_session(
        window.context.db_path,
        "lab link",
        (Protocol.TCP, Protocol.UDP),
        when="2025-03-01T10:00:00+00:00",
    )
    chart = open_session(user, 0, "lab link")
    view = user.find("Session view")
    wait_for(lambda: laid_out(user, chart), 5, "the header to sit above the chart")
    # The chart keeps a good share of the view; below it, the results to read.
    assert chart.height() >= 0.4 * view.height(), (chart.height(), view.height())
    header = user.text("Session details")
    assert "lab link" in header and "iperf3 · TCP/UDP" in header
    # The conditions and environment are a tab of the reading pane, not over the chart.
    assert "Conditions" not in header
    user.tab("Details")
    assert "Conditions: open" in user.text("Session conditions and environment")
    user.tab("Results")
    # Four series at 45–50 Mbit/s reach the top of the plot: no legend entry over them.
    assert len(chart.series_names) == 4
    legend_off_the_data(chart)


def colours(chart: SweepChart) -> dict[str, str]:
    chart.redraw()
    return {name: chart.curve_colour(name) or "" for name in chart.series_names}


def test_warnings_stand_above_the_header_and_leave_the_chart_its_share(
    window: MainWindow, user: User
) -> None:
    """Two runs a point: a warning stands above the header, read before any number."""
    store_session(
        window.context.db_path,
        "two runs",
        (Protocol.TCP, Protocol.UDP),
        when="2025-03-01T10:00:00+00:00",
        repetitions=2,
    )
    chart = open_session(user, 0, "two runs")
    view = user.find("Session view")
    wait_for(lambda: user.can_see("Session warnings"), 10, "the session's warnings")
    assert "fewer than 3" in user.text("Session warnings")
    wait_for(lambda: laid_out(user, chart), 5, "the warnings and header above the chart")
    assert chart.height() >= 0.4 * view.height(), (chart.height(), view.height())
    legend_off_the_data(chart)


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_series_keeps_its_colour_across_measure_sessions_and_compare(
    window: MainWindow, user: User
) -> None:
    # A real UDP-only sweep of one point: its one series is the first (and only) of its list.
    user.choose("Protocol", "UDP")
    user.type("Values list", "128")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the sweep")
    assert "completed" in user.text("Status")
    user.tab("Sweep")
    sweep = user.find("Sweep chart", SweepChart)
    measured = colours(sweep)
    (udp4,) = measured.values()
    # One point: the packet-size axis sits around it, never below zero; throughput from zero.
    (x_low, x_high), (y_low, y_high) = sweep.getPlotItem().vb.viewRange()
    assert 0 <= x_low < 128 < x_high and y_low == 0 < y_high
    assert sweep.getPlotItem().getAxis("bottom").range[0] >= 0
    legend_off_the_data(sweep)

    # A TCP and UDP session stored beside it: UDP · IPv4 is now its third series.
    store_session(
        window.context.db_path,
        "both",
        (Protocol.TCP, Protocol.UDP),
        when="2099-01-01T10:00:00+00:00",
        security=Security.WPA2,
    )
    user.tab("Sessions")
    user.click("Refresh")
    chart = open_session(user, 0, "both")  # newest first
    shown = colours(chart)
    assert shown["UDP · IPv4"] == udp4
    assert len(set(shown.values())) == 4  # four series, four colours
    tcp4 = shown["TCP · IPv4"]
    legend_off_the_data(chart)

    # Compare both: each curve in its series' colour, the compared session's dashed.
    user.tab("Sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    compared = user.find("Comparison chart", SweepChart)
    wait_for(lambda: compared.series_names, 10, "the comparison chart")
    drawn = colours(compared)
    for name, colour in drawn.items():
        series = " · ".join(name.split(" · ")[:2])
        assert colour == shown[series], (name, drawn)
    udp_curves = [name for name in drawn if name.startswith("UDP · IPv4")]
    assert len(udp_curves) == 2 and {drawn[n] for n in udp_curves} == {udp4}
    assert any(name.startswith("TCP · IPv4") and drawn[name] == tcp4 for name in drawn)
    legend_off_the_data(compared)
    # The Compare tab's page, once laid out with its warnings: at least half of it is the chart.
    page = window.tabs.currentWidget()
    wait_for(lambda: compared.height() >= page.height() / 2, 10, "the chart's half of the tab")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_the_command_shows_the_plan_on_screen(window: MainWindow, user: User) -> None:
    first = user.text("Command")
    assert "iperf3" in first
    # A preset on a form that cannot run: the previous engine's command must not stay.
    user.type("Peer", "-bad")
    user.menu("Presets", "802.11ac study: throughput, RTT and CPU")
    assert user.text("Engine") == "netperf"
    command = user.text("Command")
    assert "iperf3" not in command and command.startswith("No command yet: fix Peer first.")
    user.type("Peer", "This computer")
    assert "netperf" in user.text("Command") and "-H 127.0.0.1" in user.text("Command")
    user.menu("Presets", "Quick check")
    assert "iperf3" in user.text("Command") and "netperf" not in user.text("Command")
    # A preset chosen while a study runs: once it ends, the field shows that preset's plan,
    # not the last run's command.
    user.type("Values list", "1408")
    user.type("Runs per point", "1")
    user.type("Seconds per run", "2")
    user.click("Start")
    wait_for(lambda: "-l 1408" in user.text("Command") and window.measure.running, 30, "a run")
    user.menu("Presets", "802.11ac study: throughput, RTT and CPU")
    wait_for(lambda: not window.measure.running, 60, "the study")
    command = user.text("Command")
    assert "netperf" in command and "-m 128" in command, command
