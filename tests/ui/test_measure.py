"""The Measure tab used as a person uses it: every control found by its label, driven by clicks
and keys, against real engines on the loopback — a sweep from the form to Sessions, Stop and
resume, closing mid-run, field errors, the peer check, and no display at all."""

from __future__ import annotations

import os
import subprocess
import sys

import psutil
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog

from app.domain.records import SessionStatus
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.conftest import ROOT_DIR, engine_children, free_port
from tests.ui.user import Unreachable, User, wait_for


def sessions(window: MainWindow) -> list:  # type: ignore[type-arg]
    if not window.context.db_path.exists():
        return []
    with Database(window.context.db_path, readonly=True) as db:
        return SessionStore(db).list_sessions()


def plan_sweep(user: User, values: str = "128, 1408", runs: int = 1, seconds: int = 1) -> None:
    user.type("Values list", values)
    user.type("Runs per point", str(runs))
    user.type("Seconds per run", str(seconds))


def watch_runs(user: User) -> list[tuple[str, str]]:
    """(live chart title, status bar) each time a new run shows on the live chart."""
    window = user.window
    assert isinstance(window, MainWindow)
    chart = user.find("Current run chart")
    seen: list[tuple[str, str]] = []

    def look() -> None:
        title = chart.getPlotItem().titleLabel.text  # type: ignore[attr-defined]
        if title != "Current run" and (not seen or seen[-1][0] != title):
            seen.append((title, window.status_label.text()))
        if window.measure.running or not seen:
            QTimer.singleShot(20, look)

    QTimer.singleShot(0, look)
    return seen


# Over 10 s: the newcomer's journey in the window: TCP and UDP over IPv4 and IPv6, real runs.
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_new_user_runs_tcp_and_udp_over_ipv4_and_ipv6(window: MainWindow, user: User) -> None:
    user.choose("Engine", "iperf3")
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4 and IPv6")
    user.choose("Direction", "Upload")
    plan_sweep(user, "256, 1408")
    user.type("Session name", "first lab")
    user.tab("Advanced")
    user.type("UDP bitrate", "200M")
    user.type("Tags", "open, room=B12")
    user.tab("Study")
    assert "8 runs" in user.text("Estimated time")
    seen = watch_runs(user)
    user.click("Start")
    assert window.measure.running
    assert user.find("Stop").isEnabled()
    wait_for(lambda: not window.measure.running, 90, "the sweep to finish")
    assert "completed" in user.text("Status")
    # The status bar named the run the live chart showed, run after run (never the last one).
    assert len(seen) >= 4
    for title, status in seen:
        assert status.startswith(title), (title, status)
    # Four series of two points each; UDP brings its loss and jitter columns, TCP its
    # retransmits (iperf3 reports them on Linux); RTT was not measured, so it has no column.
    rows = user.table_rows("Results")
    assert len(rows) == 8
    assert {r[0] for r in rows} == {"TCP · IPv4", "TCP · IPv6", "UDP · IPv4", "UDP · IPv6"}
    headers = user.headers("Results")
    assert {"Loss %", "Jitter ms", "Retransmits"} <= set(headers)
    assert "RTT ms" not in headers
    # The ports in use are shown, and LinkLab's own servers listen on the loopback only.
    port = int(user.text("iperf3 port"))
    addresses = {
        conn.laddr.ip
        for server in window.servers.loopback.servers
        for conn in psutil.Process(server.pid).net_connections(kind="tcp")  # type: ignore[arg-type]
        if conn.status == psutil.CONN_LISTEN
    }
    assert addresses == {"127.0.0.1", "::1"}
    assert port in {s.port for s in window.servers.loopback.servers}
    # The session is in Sessions under its name, and opens with the same numbers.
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5, "the session list")
    (row,) = user.table_rows("Sessions")
    assert row[1] == "first lab" and row[3] == "TCP/UDP" and row[4] == "IPv4/IPv6"
    assert row[5] == "open · room=B12" and row[6] == "completed" and row[7] == "8/8"
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 8, 5, "the session's table")
    assert user.table_rows("Session results") == rows
    (session,) = sessions(window)
    assert session.plan.bitrate_bps == 200_000_000
    assert session.plan.conditions.tags == (("open", ""), ("room", "B12"))


@pytest.mark.netperf
def test_netperf_sweep_with_rtt_downloads_refused(
    window: MainWindow, user: User, netperf_tool: object
) -> None:
    user.choose("Engine", "netperf")
    # netperf measures upload only here: the other directions cannot be chosen, saying why.
    with pytest.raises(Unreachable, match="netperf measures upload only"):
        user.choose("Direction", "Download")
    # iperf3's own options are greyed out with the reason, not silently dropped.
    user.tab("Advanced")
    bitrate = user.find("UDP bitrate")
    assert not bitrate.isEnabled() and "iperf3" in bitrate.toolTip()
    user.tab("Study")
    user.choose("Protocol", "TCP and UDP")
    user.check("RTT")
    plan_sweep(user, "1408")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the netperf sweep")
    assert "completed" in user.text("Status")
    assert "RTT ms" in user.headers("Results")
    assert len(user.table_rows("Results")) == 2
    (session,) = sessions(window)
    assert session.plan.engine.value == "netperf" and session.runs_done == 4


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_download_is_stored_as_download(window: MainWindow, user: User) -> None:
    user.choose("Direction", "Download")
    plan_sweep(user, "1408")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 30, "the run")
    assert "-R" in user.text("Command")
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5)
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Session details"), 5, "the session's view")
    assert " · download · " in user.text("Session details")
    user.tab("Details")
    # The environment snapshot's engines.
    assert "iperf3 3." in user.text("Session conditions and environment")


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_stop_mid_run_then_resume_from_sessions(window: MainWindow, user: User) -> None:
    plan_sweep(user, "1408", runs=2, seconds=30)
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 1, 15, "the first interval")  # type: ignore[attr-defined]
    # Stop ends the 30 s run in progress, not after it: seconds on a loaded machine at most.
    user.key(Qt.Key.Key_Escape)
    wait_for(lambda: not window.measure.running, 10, "Stop")
    assert not engine_children(clients_only=True)
    (session,) = sessions(window)
    assert session.status is SessionStatus.STOPPED and session.runs_done == 0
    # Resume: shorter runs would be another plan, so the stored plan runs as it was.
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 5)
    user.click_row("Sessions", 0)
    user.click("Resume")
    assert window.measure.running
    user.key(Qt.Key.Key_Escape)  # while this computer's servers start again
    wait_for(lambda: not window.measure.running, 10, "Stop")
    (session,) = sessions(window)
    assert session.status is SessionStatus.STOPPED


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_close_mid_run_asks_then_stops_cleanly(window: MainWindow, user: User) -> None:
    # The study must outlast the test's steps after its first saved run: asking, answering No,
    # asking again. On a busy computer the window's event loop falls behind the study (its
    # progress shows a run late, a dialog opens late), so two more runs of 6 s are left, not
    # the few seconds a quiet computer needs.
    plan_sweep(user, "128", runs=3, seconds=6)
    user.click("Start")
    wait_for(lambda: user.find("Progress").value() >= 1, 30, "a saved run")  # type: ignore[attr-defined]
    assert window.measure.running, "the study ended before the test could close the window"
    with user.answering(lambda dialog: dialog.click("No")):
        window.close()  # the title bar's close button
    assert window.isVisible() and window.measure.running
    with user.answering(lambda dialog: dialog.click("Yes")):
        window.close()
    wait_for(lambda: not window.isVisible(), 10)
    assert not engine_children()
    (session,) = sessions(window)
    # Stopped where it was, not run to the end of its three runs.
    assert session.status is SessionStatus.STOPPED and 1 <= session.runs_done < 3


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_window_already_shut_down_closes_without_asking(window: MainWindow, user: User) -> None:
    """Quitting LinkLab shuts the window down first (app.py, and the tests' teardown): a close
    after that must not ask "Stop the study?" of nobody."""
    plan_sweep(user, "1408", runs=1, seconds=30)
    user.click("Start")
    chart = user.find("Current run chart")
    wait_for(lambda: chart.point_count >= 1, 15, "the first interval")  # type: ignore[attr-defined]
    window.shutdown()
    with pytest.raises(AssertionError, match="never opened"):
        with user.answering(lambda dialog: dialog.click("No"), timeout=2):
            window.close()
    assert not window.isVisible()
    assert not engine_children()


def test_field_errors_say_what_to_fix_and_start_goes_there(window: MainWindow, user: User) -> None:
    user.choose("Protocol", "UDP")
    user.type("Values list", "8, 1408")
    error = "A UDP packet size must be between 16 and 65507 bytes."
    assert user.can_see(error)  # right below the field
    user.click("Start")
    assert not window.measure.running
    assert user.text("Status") == f"Fix Values list before starting: {error}"
    assert user.find("Values list").hasFocus()
    # A value on the Advanced page: Start opens that page at the field.
    user.type("Values list", "128, 1408")
    assert not user.can_see(error)
    user.tab("Advanced")
    user.type("TCP window", "lots")
    user.tab("Study")
    user.click("Start")
    assert "Fix TCP window before starting" in user.text("Status")
    assert user.find("TCP window").hasFocus()  # the Advanced page is open again
    user.type("TCP window", "")
    # A tag without '=' is a plain label, not an error.
    user.type("Tags", "open")
    assert "Tags" not in user.text("Status") and not window.measure.setup.problems_label.text()
    assert window.measure.setup.plan().conditions.tags == (("open", ""),)  # type: ignore[union-attr]


def test_the_wheel_scrolls_the_page_and_changes_nothing(window: MainWindow, user: User) -> None:
    window.resize(1024, 560)  # small enough that the Study page scrolls
    wait_for(lambda: window.height() <= 600, 2)
    scrollbar = window.measure.setup.pages.currentWidget().verticalScrollBar()  # type: ignore[attr-defined]
    assert scrollbar.maximum() > 0
    user.choose("Security", "WPA2")  # scrolled down to it
    user.type("Session name", "wheel")  # the focus is elsewhere now
    before = scrollbar.value()
    user.wheel("Security", 2)  # wheel up with the pointer over it
    assert user.text("Security") == "WPA2"
    assert scrollbar.value() < before  # the page scrolled instead
    user.type("Runs per point", "3")
    user.type("Values list", "128, 1408")
    before = scrollbar.value()
    user.wheel("Runs per point", -1)
    assert user.text("Runs per point") == "3"
    assert scrollbar.value() > before
    # With the focus in it, the wheel does change the value.
    user.type("Runs per point", "3")
    user.wheel("Runs per point", 1)
    assert user.text("Runs per point") == "4"


def test_an_unreachable_peer_is_reported_at_the_peer_and_not_remembered(
    window: MainWindow, user: User, iperf3_server_port: tuple[int, object]
) -> None:
    closed = free_port()
    user.type("Peer", "127.0.0.1")
    user.type("iperf3 port", str(closed))
    plan_sweep(user, "1408")
    user.click("Start")
    wait_for(lambda: "No iperf3 server answers" in user.text("Peer check"), 10, "the check")
    assert not window.measure.running and not sessions(window)
    assert f"127.0.0.1 port {closed} (refused)" in user.text("Status")
    assert "127.0.0.1" not in user.options("Peer")  # a wrong peer is not remembered
    # The right port: the check passes, the study runs, and the peer is remembered.
    port, _server = iperf3_server_port
    user.type("iperf3 port", str(port))
    user.click("Start")
    wait_for(lambda: window.measure.running or window.measure.worker is not None, 10)
    wait_for(lambda: not window.measure.running, 30, "the run")
    assert "completed" in user.text("Status")
    assert user.options("Peer")[1] == "127.0.0.1"
    assert window.context.peer_history()[0] == "127.0.0.1"


def test_check_peer_answers_without_blocking(
    window: MainWindow, user: User, iperf3_server_port: tuple[int, object]
) -> None:
    port, _server = iperf3_server_port
    user.type("Peer", "127.0.0.1")
    user.type("iperf3 port", str(port))
    user.click("Check peer")
    wait_for(lambda: "iperf3 answers" in user.text("Peer check"), 10, "the check")
    assert "round trip" in user.text("Peer check")


def test_help_guide_explains_the_controls(window: MainWindow, user: User) -> None:
    user.menu("Help", "LinkLab guide")
    guide = next(w for w in window.findChildren(QDialog) if w.objectName() == "guide")
    wait_for(guide.isVisible, 5)
    pages = User(guide).find("Guide pages")
    titles = [pages.item(row).text() for row in range(pages.count())]  # type: ignore[attr-defined]
    for words in ("The window", "Measuring against a second computer", "What the statistics mean"):
        assert words in titles
    guide.close()
    user.key(Qt.Key.Key_F1)
    wait_for(guide.isVisible, 5, "F1 to open the guide")


@pytest.mark.skipif(
    sys.platform != "linux", reason="only Linux can lack a display: elsewhere the window opens"
)
def test_no_display_is_one_sentence() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = subprocess.run(
        [sys.executable, "-m", "app"],
        cwd=ROOT_DIR,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("linklab: LinkLab found no display")
    assert "linklab run --peer HOST" in done.stderr
    assert "Traceback" not in done.stderr
