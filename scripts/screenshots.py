"""`make screenshots`: every view of the README, reached by clicking through the window as a
person does (tests/ui/user.py: controls found by their labels, driven by clicks and keys)
against LinkLab's own local servers, saved at 1280x800 and 1920x1080 into docs/screenshots/.

Two real sweeps are measured on the loopback (TCP and UDP over IPv4 and IPv6, stated as an open
and a WPA2 link), compared, and exported as an HTML report, which headless Chromium renders
for the report's picture; a run with working latency shows the live latency chart; a third
sweep states a link rate, for the expected goodput curve and the frame breakdown. Uses the
display it is given, else a virtual X server (Xvfb), else Qt's offscreen platform."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.ui.user import User

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SIZES = [(1280, 800), (1920, 1080)]
MONITOR_S = 150  # the monitor's picture after two and a half minutes
#: The loopback has no link rate of its own: one stated near what this computer's loopback
#: carries puts the expected curve where it reads beside the measured ones.
LINK_RATE = "5G"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sys.path.insert(0, str(ROOT))


def virtual_display() -> subprocess.Popen[bytes] | None:
    if os.environ.get("DISPLAY") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if shutil.which("Xvfb") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return None
    display = ":97"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    os.environ["DISPLAY"] = display
    return xvfb


def main() -> int:
    xvfb = virtual_display()
    try:
        if sys.argv[1:] == ["discovery"]:  # that picture alone, while working on it
            return shoot(only_discovery=True)
        if sys.argv[1:] == ["monitor"]:  # the monitor's picture alone (minutes)
            return shoot(only_monitor=True)
        if sys.argv[1:] == ["found"]:  # a found computer chosen, and the window at 1280x720
            return shoot(only_found=True)
        if sys.argv[1:] == ["exports"]:  # a sweep's exported chart and report pages alone
            return shoot(only_exports=True)
        if sys.argv[1:] == ["stored-monitor"]:  # a stored monitor in Sessions, its report
            return shoot(only_stored_monitor=True)
        if sys.argv[1:] == ["wifi"]:  # the conditions area when Windows refuses the Wi-Fi
            return shoot(only_wifi=True)
        if sys.argv[1:] == ["typed"]:  # a number typed that no port is, marked, alone
            return shoot(only_typed=True)
        if sys.argv[1:] == ["damaged"]:  # a session that cannot be read; a file not SQLite
            return shoot_damaged()
        if sys.argv[1:] == ["held-server"]:  # the Server tab after a held server (15 s)
            return shoot(only_held_server=True)
        if sys.argv[1:] == ["sessions"]:  # the two sweeps' Sessions and Compare at 1280x800
            return shoot(only_sessions=True)
        return shoot()
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(5)


def render_report(page: Path, shot: Path, profile: Path) -> None:
    """The HTML report as a browser shows it, 1280 px wide."""
    if CHROMIUM is None:
        print("Chromium is missing (scripts/ensure-desktop.sh --with-screenshots installs it)")
        return
    from tests.artifacts import html_screenshot

    html_screenshot(page, shot, profile, "1280,1800")
    print(f"wrote {shot.relative_to(ROOT)}")


def open_class(user: User, folder: Path) -> None:
    """A class's hand-ins of the student lab opened in the Class tab, the packet-loss step
    charted. The hand-ins are stored, not measured: a class's runs take hours."""
    from app.study.lab.exercises import find_ready
    from tests.ui.class_handins import Student, write_class
    from tests.ui.user import wait_for

    lab = find_ready("student-lab")
    steps = len(lab.steps)
    handins = folder / "Lab 2 hand-ins"
    students = [
        Student("Ana Souza", "G1", steps, 1.0),
        Student("Ben Okafor", "G1", steps, 0.86),
        Student("Chen Wei", "G2", steps - 1, 1.1),
        Student("Dana Kowalski", "G2", steps, copy_of="Ana Souza"),
    ]
    write_class(handins, folder / "laptops", lab, students)
    user.tab("Class")

    def choose(dialog: User) -> None:
        dialog.type("Directory", str(handins))
        dialog.click("Choose")

    with user.answering(choose):
        user.click("Open class folder…")
    wait_for(lambda: len(user.table_rows("Students")) == len(students), 30, "the class")
    user.choose("Step", lab.steps[2].title)


def shoot(
    only_discovery: bool = False,
    only_monitor: bool = False,
    only_found: bool = False,
    only_exports: bool = False,
    only_stored_monitor: bool = False,
    only_wifi: bool = False,
    only_typed: bool = False,
    only_held_server: bool = False,
    only_sessions: bool = False,
) -> int:
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtWidgets import QApplication, QWidget

    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow
    from tests.ui.user import User, wait_for

    app = QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="linklab-shots-"))
    context = AppContext(
        QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
        db_path=folder / "linklab.sqlite3",
    )
    window = MainWindow(context, preset_dir=folder / "presets")
    window.show()
    user = User(window)
    if "--only-class" in sys.argv:  # the Class tab's two pictures, in seconds
        window.resize(*SIZES[0])
        open_class(user, folder)
        _save(app, window, "class-1280x800.png")
        shoot_live_class(user, folder, lambda name: _save(app, window, name))
        window.shutdown()
        return 0
    if "--only-together" in sys.argv:  # a class measuring together (root: a minute)
        window.resize(*SIZES[0])
        shoot_together(user, folder, lambda name: _save(app, window, name))
        window.shutdown()
        return 0

    def save(name: str) -> None:
        if only_sessions and not name.startswith(("sessions-", "compare-")):
            return  # the Measure pictures of these sweeps are the full run's
        for _ in range(10):
            app.processEvents()
            time.sleep(0.03)
        path = OUT / name
        window.grab().save(str(path))
        print(f"wrote {path.relative_to(ROOT)}")

    def resize(width: int, height: int) -> None:
        window.resize(width, height)
        wait_for(lambda: window.width() == width, 5, "the window size")

    if only_wifi:
        resize(*SIZES[0])
        shoot_wifi_refused(user, window, save)
        window.shutdown()
        return 0
    if only_stored_monitor:
        resize(*SIZES[0])
        shoot_stored_monitor(user, window, save, folder)
        window.shutdown()
        return 0
    if only_typed:
        resize(*SIZES[0])
        shoot_typed_port(user, save)
        window.shutdown()
        return 0
    if only_held_server:
        resize(*SIZES[0])
        shoot_held_server(user, save)
        window.shutdown()
        return 0
    if only_exports:
        resize(*SIZES[0])
        shoot_exports(user, window, folder, save)
        window.shutdown()
        return 0
    if only_discovery or only_monitor:
        resize(*SIZES[0])
        (shoot_discovery if only_discovery else shoot_monitor)(user, window, save)
        window.shutdown()
        return 0
    if only_found:
        resize(*SIZES[0])
        shoot_discovery(user, window, save)
        shoot_small_screen(user, window, folder, save)
        window.shutdown()
        return 0
    if "--only-marks" in sys.argv:  # the DSCP sweep's and the out-of-order pictures alone
        resize(*SIZES[0])
        shoot_dscp(user, window, save)
        shoot_out_of_order(user, window, save)
        window.shutdown()
        return 0
    if "--only-responsiveness" in sys.argv:  # the Responsiveness pictures alone
        resize(*SIZES[0])
        shoot_responsiveness(user, window, save)
        shoot_responsiveness_history(user, window, save)
        window.shutdown()
        return 0

    security = {0: ("open (no security)", "Open, TCP+UDP"), 1: ("WPA2", "WPA2, TCP+UDP")}
    # The two sweeps, the second at 1920x1080 (its pictures at that size); only the Sessions
    # and Compare pictures: both at 1280x800.
    sizes = [SIZES[0], SIZES[0]] if only_sessions else SIZES
    for number, (width, height) in enumerate(sizes):
        resize(width, height)
        user.tab("Measure")
        user.tab("Study")
        user.choose("Engine", "iperf3")
        user.choose("Protocol", "TCP and UDP")
        user.choose("IP version", "IPv4 and IPv6")
        user.choose("Direction", "Upload")
        user.choose("Sweep", "Packet size")
        user.type("Values list", "128, 384, 640, 896, 1152, 1408")
        user.type("Runs per point", "2")
        user.type("Seconds per run", "2")
        stated, name = security[number]
        user.type("Session name", name)
        # Both stated as one Wi-Fi medium: WPA2 protects Wi-Fi frames only (stated over
        # Ethernet, Start is refused at the field), and the pair differs in security alone.
        user.choose("Medium", "802.11ac")
        user.choose("Security", stated)
        user.tab("Advanced")
        # The second session sends UDP faster: the comparison warns that they differ in it.
        user.type("UDP bitrate", "800M" if number == 0 else "900M")
        user.type("Tags", "room=B12, os=Debian 12")
        save(f"measure-advanced-{width}x{height}.png")
        user.tab("Study")
        user.tab("Current run")
        save(f"measure-setup-{width}x{height}.png")
        user.click("Start")
        # Live: a few points in, during a run with some intervals on the live chart.
        progress, chart = user.find("Progress"), user.find("Current run chart")

        def some_points(progress: QWidget = progress, chart: QWidget = chart) -> bool:
            return bool(progress.value() >= 9 and chart.point_count >= 1)  # type: ignore[attr-defined]

        wait_for(some_points, 300, "a few points")
        user.tab("Sweep")
        save(f"measure-live-{width}x{height}.png")
        user.tab("Current run")
        # Runs last 2 s: the run charted may end (and the next start empty) while the view is
        # saved; save again until the picture was taken with an interval on the chart.
        for _ in range(10):
            wait_for(lambda c=chart: c.point_count >= 1, 60, "an interval of the current run")  # type: ignore[attr-defined,misc]
            save(f"measure-current-run-{width}x{height}.png")
            if chart.point_count >= 1:  # type: ignore[attr-defined]
                break
        wait_for(lambda: not window.measure.running, 600, "the sweep to finish")
        user.tab("Sweep")
        save(f"measure-done-{width}x{height}.png")
        user.tab("Sessions")
        count = number + 1
        wait_for(lambda n=count: len(user.table_rows("Sessions")) == n, 10, "the session")
        user.click_row("Sessions", 0)
        wait_for(lambda: user.table_rows("Session results"), 10, "the session's table")
        if number == 0:  # its findings, on the tab beside its results
            user.tab("Findings")
            save(f"sessions-findings-{width}x{height}.png")
            user.tab("Results")
        if not (only_sessions and number):  # the subset's second sweep: for Compare only
            save(f"sessions-{width}x{height}.png")
        user.tab("Server")
        save(f"server-{width}x{height}.png")
        user.tab("Settings")
        save(f"settings-{width}x{height}.png")
    # A field error, as Start shows it.
    resize(*SIZES[0])
    user.tab("Measure")
    user.choose("Protocol", "UDP")
    user.type("Values list", "8, 1408")
    user.click("Start")
    save("measure-error-1280x800.png")
    user.type("Values list", "128, 1408")
    shoot_typed_port(user, save)
    # A preset: what it changed and how long it takes.
    user.menu("Presets", "Lab 1: TCP vs UDP over run duration")
    save("measure-preset-1280x800.png")
    # Both sessions compared, then the HTML report, exported with the button.
    user.tab("Sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(user.table_rows("Pairs compared")) >= 4, 30, "the comparison")
    wait_for(lambda: user.can_see("Comparison warnings"), 10, "the warning banner")
    for width, height in SIZES:
        resize(width, height)
        save(f"compare-{width}x{height}.png")
    resize(*SIZES[0])
    user.tab("Findings")  # the comparison's sentences, on the tab beside its tables
    save("compare-findings-1280x800.png")
    user.tab("Differences")
    if only_sessions:
        window.shutdown()
        return 0
    report = folder / "report.html"

    def save_report(dialog: User) -> None:
        dialog.type("File name", str(report))
        dialog.click("Save")

    with user.answering(save_report):
        user.click("HTML report…")
    wait_for(report.exists, 30, "the report")
    render_report(report, OUT / "report-1280.png", folder / "chromium")
    # Another variable swept with the packet size held fixed (Advanced page).
    resize(*SIZES[0])
    user.tab("Measure")
    user.tab("Study")
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    user.choose("Sweep", "Parallel streams")
    user.type("Values list", "1, 2, 4, 8")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "2")
    user.type("Session name", "Parallel streams at 1408 B")
    user.tab("Advanced")
    user.type("Packet size (when not swept)", "1408")
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, "the parallel-streams sweep")
    user.tab("Sweep")
    save("measure-parallel-1280x800.png")
    shoot_dscp(user, window, save)
    shoot_out_of_order(user, window, save)
    shoot_working_latency(user, window, save)
    expected_goodput(window, user, save)
    shoot_exercise(user, window, folder, save)
    shoot_responsiveness(user, window, save)
    shoot_responsiveness_history(user, window, save)
    shoot_discovery(user, window, save)
    shoot_small_screen(user, window, folder, save)
    shoot_monitor(user, window, save)
    shoot_exports(user, window, folder, save)
    shoot_stored_monitor(user, window, save, folder)
    shoot_wifi_refused(user, window, save)
    open_class(user, folder)
    save("class-1280x800.png")
    shoot_live_class(user, folder, save)
    shoot_together(user, folder, save)
    window.shutdown()
    window.deleteLater()
    app.processEvents()
    shutil.rmtree(folder, ignore_errors=True)
    return 0


class RefusingWifi:
    """What Windows 11 (24H2 and later) answers with location access off: the adapter is an
    IEEE 802.11 one, and WlanQueryInterface returns error 5. This machine has no Windows, so
    the Native Wifi API's answer stands in for the picture."""

    def reading(self, interface: str) -> Any:
        from app.study.host.wifi_reading import WifiReading, WifiState

        source = "Native Wifi API, WlanQueryInterface"
        return WifiReading(
            WifiState.REFUSED_LOCATION, source, interface, detail="error 5", wireless=True
        )

    def survey(self) -> list[Any]:
        return [self.reading("Wi-Fi")]


def shoot_wifi_refused(user: Any, window: Any, save: Any) -> None:
    """The Study page when Windows refuses to let LinkLab read the Wi-Fi: the sentence under
    the security and the button that opens Windows' location settings."""
    from PySide6.QtWidgets import QApplication

    from app.study.host.wifi_query import WifiTools
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    window.context.wifi = WifiTools(
        runner=lambda argv: None, system="Windows", native=lambda: RefusingWifi()
    )
    user.tab("Measure")
    user.tab("Study")
    user.type("Peer", "This computer")
    user.choose("Security", "unknown")
    window.measure.detection.detect(window.measure.setup.peer_row.peer().host)
    wait_for(lambda: user.can_see("Open location settings"), 15, "the location refusal")
    for _ in range(5):  # the page lays the sentence out before it can be scrolled to
        QApplication.processEvents()
        time.sleep(0.05)
    user._reveal(user.find("Open location settings"))  # scrolled to, as a person would
    save("measure-wifi-location-refused-1280x800.png")


def shoot_damaged() -> int:
    """The Sessions list beside a session whose plan cannot be read (selected: what cannot be
    read, and what to do, in place of its view) and one whose name is damaged; then the
    banner and Start for a database file that is not SQLite at all."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.ui.context import AppContext
    from app.ui.main_window import MainWindow
    from tests.store.test_damaged_rows import DAMAGED_PART, UNREADABLE, _damage, _make
    from tests.ui.user import User, wait_for

    app = QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="linklab-shots-"))
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    ids = _make(folder / "linklab.sqlite3")
    _damage(folder / "linklab.sqlite3", ids["damaged"], UNREADABLE["duration_s is text"][0])
    _damage(folder / "linklab.sqlite3", ids["last"], DAMAGED_PART["a name of bytes"][0])
    notes = folder / "notes.sqlite3"
    notes.write_text("Lab notes, not a database.\n" * 200, encoding="utf-8")
    for db, tab, name in (
        (folder / "linklab.sqlite3", "Sessions", "sessions-unreadable-1280x800.png"),
        (notes, "Measure", "database-not-sqlite-1280x800.png"),
    ):
        window = MainWindow(AppContext(settings, db_path=db), preset_dir=folder / "presets")
        window.resize(*SIZES[0])
        window.show()
        user = User(window)
        user.tab(tab)
        if tab == "Sessions":
            wait_for(lambda u=user: len(u.table_rows("Sessions")) == 3, 15, "the sessions")
            row = [r[6] for r in user.table_rows("Sessions")].index("cannot be read")
            user.click_row("Sessions", row)
        else:
            wait_for(lambda u=user: u.can_see("Database problem"), 15, "the banner")
        _save(app, window, name)
        window.shutdown()
        window.close()
    return 0


def _save(app: Any, window: Any, name: str) -> None:
    for _ in range(10):
        app.processEvents()
        time.sleep(0.03)
    path = OUT / name
    window.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


def shoot_held_server(user: Any, save: Any) -> None:
    """The Server tab once a client held its iperf3 server without progress and LinkLab
    started it again: the log says which client, and what fixes it for good."""
    from app.engine.lan.netinfo import free_port
    from app.engine.process.servers import EXPOSED_STALL_TIMEOUT_S
    from tests.held_client import holding
    from tests.ui.user import wait_for

    user.tab("Server")
    port = free_port(0)
    user.type("iperf3 server port", str(port))
    user.click("Start the iperf3 server")
    wait_for(lambda: "Listening on port" in user.text("iperf3 server status"), 10, "the server")
    with holding(port):
        restarted = EXPOSED_STALL_TIMEOUT_S + 20
        wait_for(lambda: "was held for" in user.text("Server log"), restarted, "the restart")
    save("server-held-1280x800.png")
    user.click("Stop the iperf3 server")


def shoot_live_class(user: Any, folder: Path, save: Any) -> None:
    """The Class tab collecting live: Collect live on, four students' stations sending their
    runs of "What does WPA2 cost?" over HTTP as they end, the table following by itself."""
    import json

    from app.store.db import Database
    from app.study.lab.class_http import call
    from app.study.lab.class_push import station_pushes
    from app.study.lab.exercises import find_ready
    from tests.conftest import free_port
    from tests.ui.class_handins import Student, _measure
    from tests.ui.user import wait_for

    exercise = find_ready("open-vs-wpa2")
    students = [
        Student("Ana Souza", "G1", 2, 1.0),
        Student("Ben Okafor", "G1", 2, 0.86),
        Student("Chen Wei", "G2", 1, 1.1),
        Student("Dana Kowalski", "G2", 2, 0.93),
    ]
    user.tab("Class")
    user.type("Collector port", str(free_port()))
    user.check("Collect live")
    wait_for(lambda: "Students send to" in user.text("Collector address"), 10, "the collector")
    window = user.window
    collector = window.class_tab.live.collector
    url = f"http://127.0.0.1:{collector.port}"
    for student in students:
        db = folder / "stations" / f"{student.name}.sqlite3"
        db.parent.mkdir(parents=True, exist_ok=True)
        _measure(db, exercise, student)
        with Database(db, readonly=True) as database:
            for item in station_pushes(database, exercise, student.name, set()):
                call(url, collector.token, "/v1/push", json.dumps(item.document).encode())
    wait_for(
        lambda: (
            "live from" in user.text("Class") and len(user.table_rows("Students")) == len(students)
        ),
        10,
        "the live class",
    )
    user.choose("Step", exercise.steps[1].title)
    save("class-live-1280x800.png")
    user.check("Collect live", False)


def shoot_together(user: Any, folder: Path, save: Any) -> None:
    """The Class tab's Together page: six stations of a lab in network namespaces behind one
    shared 24 Mbit/s link (station 6's own link at 2 Mbit/s), each alone first, then two
    rounds together started with Start together; the curves, the index and each share."""
    import re
    import signal
    from dataclasses import replace

    from app.domain.collector import Collector as CollectorAddress
    from app.study.lab.exercises import write_exercise
    from tests.classlive import short_exercise
    from tests.conftest import free_port
    from tests.testbed import ClassBed, unavailable_reason
    from tests.togetherbed import start_pool, start_stations
    from tests.ui.user import wait_for

    if (reason := unavailable_reason()) is not None:
        print(f"skipped the Together picture: {reason}")
        return
    window = user.window
    with ClassBed(6) as bed:
        bed.set_bottleneck(24)
        bed.set_access(6, 2.0)
        user.tab("Class")
        port = free_port()
        user.type("Collector port", str(port))
        user.check("Collect live")
        wait_for(lambda: "Students send to" in user.text("Collector address"), 10, "the address")
        token = re.search(r"token (\S+)", user.text("Collector address")).group(1)  # type: ignore[union-attr]
        url = f"http://{bed.HERE4}:{port}"
        exercise = write_exercise(
            folder / "together.linklab-exercise",
            replace(short_exercise(), collector=CollectorAddress(url, token)),
        )
        instructor = window.context.db_path.with_name("instructor.token")
        pool = start_pool(bed, url, instructor, folder / "pool.log")
        stations = start_stations(bed, exercise, folder)
        try:
            user.tab("Together")
            wait_for(lambda: "6 stations waiting" in user.text("Stations waiting"), 90, "stations")
            user.type("Seconds a round", "3")
            user.type("Rounds", "2")
            user.check("Each station alone first")
            user.click("Start together")
            wait_for(lambda: "over 2 rounds" in user.text("Fairness index"), 120, "the rounds")
            save("class-together-1280x800.png")
        finally:
            for proc in [*stations, pool]:
                proc.send_signal(signal.SIGTERM)
            for proc in [*stations, pool]:
                proc.wait(timeout=30)
            user.tab("Class")
            user.check("Collect live", False)


def shoot_dscp(user: Any, window: Any, save: Any) -> None:
    """A sweep over the Wi-Fi access categories on this computer: "DSCP / access category"
    chosen under Sweep, the Command preview giving iperf3 the first one's mark (-S), and the
    finished sweep's chart naming each category along its x axis."""
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    close_exercise(user)
    user.tab("Measure")
    user.tab("Advanced")  # no packet size held (an earlier picture's): -S shows in full
    if user.find("Packet size (when not swept)").isEnabled():
        user.type("Packet size (when not swept)", "")
    user.tab("Study")
    user.type("Peer", "This computer")
    user.choose("Engine", "iperf3")
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4 and IPv6")
    user.choose("Direction", "Upload")
    user.choose("Sweep", "DSCP / access category")
    user.type("Values list", "BK, BE, VI, VO")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", "Wi-Fi access categories")
    user.tab("Sweep")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, "the DSCP sweep")
    save("measure-dscp-1280x800.png")


def shoot_out_of_order(user: Any, window: Any, save: Any) -> None:
    """A UDP study's session in Sessions, its results table with the Out of order column:
    measured across a link of its own that sends a fifth of the datagrams through a slower
    queue, so that later ones overtake them (network namespaces, as the tests build; needs
    root and nftables), else on this computer's loopback, where none arrive out of order."""
    from tests.testbed import ROOT as TREE
    from tests.testbed import Bed, TestBed
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    close_exercise(user)
    name = "UDP across a link that reorders"
    spec = Bed(needs=("nft",))
    reason = spec.unavailable()
    if reason is None:
        with spec.build() as bed:
            assert isinstance(bed, TestBed)
            bed.start_server(5201, "--no-echo")
            bed.set_reorder(20)
            peer = ["--peer", TestBed.B4, "--port", "5201"]
            traffic = ["--protocol", "udp", "--ip", "4", "--direction", "up", "--bitrate", "20M"]
            points = ["--sizes", "600,1000,1400", "--runs", "3", "--duration", "2"]
            stored = ["--name", name, "--db", str(window.context.db_path)]
            argv = bed.linklab(bed.a, "run", *peer, *traffic, *points, *stored)
            subprocess.run(argv, cwd=TREE, check=True, capture_output=True, timeout=300)
        user.tab("Measure")  # Sessions reads the database again when it is opened
    else:
        print(f"measured on the loopback, where nothing is reordered: {reason}")
        user.tab("Measure")
        user.tab("Study")
        user.type("Peer", "This computer")
        user.choose("Protocol", "UDP")
        user.choose("IP version", "IPv4")
        user.choose("Sweep", "Packet size")
        user.type("Values list", "600, 1000, 1400")
        user.type("Runs per point", "3")
        user.type("Seconds per run", "2")
        user.type("Session name", name)
        user.tab("Advanced")
        user.type("UDP bitrate", "20M")
        user.tab("Study")
        user.click("Start")
        wait_for(lambda: not window.measure.running, 120, "the UDP study")
    user.tab("Sessions")
    wait_for(lambda: any(r[1] == name for r in user.table_rows("Sessions")), 10, "the session")
    row = next(i for i, r in enumerate(user.table_rows("Sessions")) if r[1] == name)
    user.click_row("Sessions", row)
    wait_for(lambda: user.table_rows("Session results"), 10, "the session's results")
    save("sessions-out-of-order-1280x800.png")


def shoot_working_latency(user: Any, window: Any, save: Any) -> None:
    """A run with Working latency ticked against this computer: the live latency chart (idle
    probes before the run, loaded ones during it) under the throughput of the run in
    progress."""
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    user.tab("Measure")
    user.tab("Study")
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4")
    user.choose("Sweep", "Packet size")
    user.type("Values list", "1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "6")
    user.type("Session name", "Working latency, this computer")
    user.check("Working latency")
    user.tab("Current run")
    user.click("Start")
    wait_for(lambda: user.can_see("Latency chart"), 10, "the latency chart")
    chart = user.find("Latency chart")
    # A few seconds under load: the loaded curve well along beside the idle one.
    wait_for(lambda: chart.median("loaded") is not None and chart.point_count >= 400, 60, "probes")
    save("measure-latency-1280x800.png")
    wait_for(lambda: not window.measure.running, 120, "the working-latency run")
    user.check("Working latency", False)  # the later sweeps measure throughput only


def close_exercise(user: Any) -> None:
    """The exercise an earlier picture opened closed: the form the user had, not its steps."""
    from tests.ui.user import Unreachable

    try:
        user.tab("Exercise")  # shown while an exercise is open
    except Unreachable:
        return
    if user.can_see("Close exercise"):
        user.click("Close exercise")


def shoot_monitor(user: Any, window: Any, save: Any) -> None:
    """Measure › Monitor against this computer after a few minutes: TCP upload with working
    latency, the last three minutes charted beside the figures since the start."""
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    close_exercise(user)
    user.tab("Measure")
    user.tab("Monitor")
    user.check("Monitor working latency")  # TCP upload, as the monitor starts
    user.type("Show the last", "3", enter=True)  # the minutes the picture covers
    user.click("Start monitor")
    wait_for(lambda: "Monitoring" in user.text("Monitor status"), 30, "the monitor to start")
    end = time.monotonic() + MONITOR_S  # the window stays live while the minutes go by
    wait_for(lambda: time.monotonic() >= end, MONITOR_S + 5, "minutes of monitoring")
    save("monitor-1280x800.png")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 30, "the monitor to stop")
    user.check("Monitor working latency", False)


def shoot_typed_port(user: Any, save: Any) -> None:
    """A port typed with a letter in it, kept as typed and marked, and Start saying which field
    to fix; the peer and its port as they were afterwards."""
    user.tab("Measure")
    peer = user.text("Peer")
    user.type("Peer", "192.0.2.10")
    port = user.text("iperf3 port")
    user.type("iperf3 port", "52O1")
    user.click("Start")
    save("measure-typed-port-1280x800.png")
    user.type("iperf3 port", port)
    user.type("Peer", peer)


def shoot_stored_monitor(user: Any, window: Any, save: Any, folder: Path) -> None:
    """Sessions with a stored monitor open: a minute of monitoring this computer with working
    latency, its server stopped for a quarter of a minute in the middle, shown over time with
    the gap, as live; then its HTML report, exported with the button, as a browser shows it."""
    from tests.ui.journey import save_as
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    user.tab("Measure")
    user.tab("Monitor")
    user.check("Monitor working latency")
    user.click("Start monitor")
    wait_for(lambda: "Monitoring" in user.text("Monitor status"), 30, "the monitor to start")
    end = time.monotonic() + 25
    wait_for(lambda: time.monotonic() >= end, 30, "a stretch of monitoring")
    loopback = window.context.loopback
    (server,) = loopback.servers  # this computer's iperf3 server: the peer goes away
    server.stop()
    wait_for(lambda: "stopped answering" in user.text("Monitor status"), 30, "the peer gone")
    end = time.monotonic() + 15
    wait_for(lambda: time.monotonic() >= end, 20, "the peer gone a while")
    server.start()
    wait_for(lambda: "answers again" in user.text("Monitor status"), 60, "the peer back")
    end = time.monotonic() + 25
    wait_for(lambda: time.monotonic() >= end, 30, "a stretch after the gap")
    user.click("Stop monitor")
    wait_for(lambda: not window.measure.running, 30, "the monitor to stop")
    user.tab("Sessions")
    wait_for(lambda: bool(user.table_rows("Sessions")), 10, "the sessions listed")
    user.click_row("Sessions", 0)  # the newest: the monitor just stopped
    wait_for(lambda: user.can_see("Stored monitor chart"), 15, "the monitor's time chart")
    save("monitor-session-1280x800.png")
    # Its working latency, on the tab of its own beside the throughput's.
    from tests.ui.test_monitor import stored_plot_tabs

    texts = stored_plot_tabs(user)
    user.tab(next(text for text in texts if text.startswith("Working latency")))
    save("monitor-session-latency-1280x800.png")
    user.tab(texts[0])
    page = folder / "monitor-report.html"
    with user.answering(save_as(page)):
        user.click("Export HTML…")
    wait_for(page.exists, 60, "the monitor's report")
    render_report(page, OUT / "monitor-report-1280.png", folder / "chromium")
    user.tab("Measure")
    user.tab("Monitor")
    user.check("Monitor working latency", False)


def shoot_responsiveness(user: Any, window: Any, save: Any) -> None:
    """The Responsiveness tab: a test against this computer's own servers, shortened, clicked
    through to its result card."""
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    user.tab("Responsiveness")
    user.type("Peer", "This computer")
    user.type("Most parallel flows", "4")
    user.type("Seconds per direction", "6")
    user.click("Start responsiveness test")
    wait_for(lambda: user.can_see("Responsiveness result"), 120, "the responsiveness card")
    save("responsiveness-1280x800.png")


def shoot_responsiveness_history(user: Any, window: Any, save: Any) -> None:
    """Responsiveness results kept in Sessions: a second test (more flows) run in the window,
    both named through Rename…, the first opened to its card and chart over time, then the
    two compared per direction."""
    from PySide6.QtCore import Qt

    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    user.tab("Responsiveness")
    user.type("Most parallel flows", "8")
    user.type("Seconds per direction", "6")
    user.click("Start responsiveness test")
    wait_for(lambda: "Kept in Sessions" in user.text("Responsiveness status"), 120, "the test")
    user.tab("Sessions")

    def results() -> list[int]:
        rows = user.table_rows("Sessions")
        return [i for i, row in enumerate(rows) if row[-1] == "Responsiveness"]

    wait_for(lambda: len(results()) >= 2, 10, "both results in the list")
    names = ("Loopback, up to 8 flows", "Loopback, up to 4 flows")  # newest first
    for row, name in zip(results()[:2], names, strict=True):

        def rename(dialog: Any, name: str = name) -> None:
            dialog.type("New name", name)
            dialog.click("OK")

        user.click_row("Sessions", row)
        with user.answering(rename):
            user.click("Rename…")
        wait_for(lambda name=name: user.text("Result title").startswith(name), 10, "the name")
    older, newer = results()[1], results()[0]  # newest first
    user.click_row("Sessions", older)
    wait_for(lambda: user.text("Result title").startswith("Loopback, up to 4 flows"), 10, "card")
    user.tab("Over time")
    save("sessions-responsiveness-1280x800.png")
    user.click_row("Sessions", newer, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: user.can_see("Responsiveness differences"), 10, "the comparison")
    save("sessions-responsiveness-compare-1280x800.png")


def shoot_discovery(user: Any, window: Any, save: Any) -> None:
    """Find computers on the Measure tab: a second computer (a network namespace on a link of
    its own, running `linklab serve`) found and offered under Peer, then chosen. The search
    asks on that link only. Needs root for the namespace; skipped, saying why, without it."""
    from PySide6.QtGui import QGuiApplication

    from app.engine.serving.discovery import discover
    from tests.testbed import NeighbourBed, unavailable_reason
    from tests.ui.user import wait_for

    reason = unavailable_reason()
    if reason:
        print(f"skipped the discovery pictures: {reason}")
        return
    window.resize(*SIZES[0])
    close_exercise(user)  # the user's own form, not an exercise's locked step
    with NeighbourBed() as bed:
        bed.serve("--port", "5201")
        window.context.find_peers = lambda port: discover(port, interfaces=[bed.here])
        user.tab("Measure")
        user.tab("Study")
        user.type("Peer", "This computer")
        # Another computer, another link: the medium and the rate stated for the loopback's
        # sessions are not its, so the user leaves them to what the system says of it.
        user.choose("Medium", "unknown")
        user.type("Link rate", "")
        user.click("Find computers")
        wait_for(lambda: "Found 1 computer" in user.text("Peer check"), 10, "the search")
        combo = user.find("Peer")
        # The list as it drops down: the screen holds the pop-up beside the window (a
        # virtual X server; Qt's offscreen platform draws no pop-up, so the window alone).
        combo.showPopup()
        wait_for(lambda: combo.view().isVisible(), 5, "the list of computers")
        for _ in range(10):
            QGuiApplication.processEvents()
            time.sleep(0.03)
        screen = QGuiApplication.primaryScreen()
        frame = window.frameGeometry()
        picture = screen.grabWindow(0, frame.x(), frame.y(), window.width(), window.height())
        if os.environ.get("QT_QPA_PLATFORM") == "offscreen" or picture.isNull():
            picture = window.grab()
        path = OUT / "measure-find-computers-1280x800.png"
        picture.save(str(path))
        print(f"wrote {path.relative_to(ROOT)}")
        combo.hidePopup()
        found = next(o for o in user.options("Peer") if f"({bed.THERE4})" in o)
        user.choose("Peer", found)
        # What the system says of the link to it: a veth, Ethernet, its speed the adapter's.
        wait_for(lambda: user.can_see("Detected link"), 20, "the detected link")
        save("measure-discovered-1280x800.png")
        user.type("Peer", "This computer")
        window.context.find_peers = discover


def shoot_small_screen(user: Any, window: Any, folder: Path, save: Any) -> None:
    """The window at 1280x720 (a 1280x800 screen less its title bar and taskbar): the Measure
    tab after a short study on this computer, the session in Sessions, and its series compared
    with the table just exported, the status bar confirming it with Open folder."""
    from tests.ui.journey import compare_session, save_as
    from tests.ui.user import wait_for

    close_exercise(user)
    window.resize(1280, 720)
    wait_for(lambda: window.height() == 720, 5, "the window at 1280x720")
    user.tab("Measure")
    user.tab("Study")
    user.type("Peer", "This computer")
    user.choose("Protocol", "TCP")
    user.choose("IP version", "IPv4 and IPv6")
    user.choose("Sweep", "Packet size")
    user.type("Values list", "128, 768, 1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", "First look, IPv4 and IPv6")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, "the study")
    user.tab("Sweep")
    save("window-measure-1280x720.png")
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the sessions")
    user.click_row("Sessions", 0)
    user.click("Open")
    wait_for(lambda: user.can_see("Session details"), 10, "the session")
    save("window-sessions-1280x720.png")
    compare_session(user, window, "First look, IPv4 and IPv6")
    table = folder / "First look.csv"
    with user.answering(save_as(table)):
        user.click("Table CSV…")
    wait_for(lambda: user.can_see("Saved files"), 10, "the confirmation")
    save("window-compare-saved-1280x720.png")
    window.resize(*SIZES[0])


def shoot_exercise(user: Any, window: Any, folder: Path, save: Any) -> None:
    """A student's lab exercise: the student-lab seed with its runs shortened, opened from
    File › Open exercise…, the first step measured, answered; the guided view, a step set up
    with its locked fields, and the first page of the drafted lab report."""
    from dataclasses import replace

    from app.domain.exercise import with_id
    from app.domain.plan import Variable
    from app.study.lab.exercises import find_ready, write_exercise
    from tests.ui.user import wait_for

    lab = find_ready("student-lab")
    steps = list(lab.steps)
    first = steps[0].plan
    steps[0] = replace(steps[0], plan=replace(first, values=(2, 4, 6), repetitions=2))
    assert first.variable is Variable.DURATION
    path = write_exercise(
        folder / "lab.linklab-exercise", with_id(replace(lab, steps=tuple(steps)))
    )

    def open_it(dialog: User) -> None:
        dialog.type("File name", str(path))
        dialog.click("Open")

    with user.answering(open_it):
        user.menu("File", "Open exercise…")
    user.type("Your name", "Ann Lee", enter=True)
    user.type("Group", "G1", enter=True)
    wait_for(lambda: len(user.table_rows("Steps")) == 5, 10, "the steps")
    user.click_row("Steps", 0)
    user.click("Set up this step")
    save("exercise-step-1280x800.png")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 300, "the exercise's first step")
    user.tab("Exercise")
    wait_for(lambda: user.table_rows("Steps")[0][0].endswith("done ✓"), 15, "the step done")
    user.click_row("Steps", 0)
    wait_for(lambda: user.can_see("Step result chart"), 10, "the step's result")
    user.type("Answer 1.1", "Both stay level: TCP near the link's rate, UDP at the 30 Mbit/s sent.")
    user.click_row("Steps", 1)
    user.click_row("Steps", 0)  # the step read from its top, the answer kept
    save("exercise-guided-1280x800.png")
    report = folder / "lab-report.pdf"

    def save_report(dialog: User) -> None:
        dialog.type("File name", str(report))
        dialog.click("Save")

    with user.answering(save_report):
        user.click("Write lab report…")
    wait_for(report.exists, 60, "the lab report")
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        print("pdftoppm is missing (scripts/ensure-desktop.sh --with-screenshots installs it)")
        return
    stem = folder / "report-page"
    argv = [
        pdftoppm,
        "-png",
        "-r",
        "110",
        "-f",
        "1",
        "-l",
        "1",
        "-singlefile",
        str(report),
        str(stem),
    ]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    shutil.copyfile(f"{stem}.png", OUT / "lab-report-page1.png")
    print(f"wrote {OUT.name}/lab-report-page1.png")


def shoot_exports(user: Any, window: Any, folder: Path, save: Callable[[str], None]) -> None:
    """A TCP and UDP sweep under a long name, its series compared from its own view in
    Sessions, and what the comparison exports: the PNG as saved, the PDF's pages as images
    (pdftoppm) and the HTML report as Chromium shows it."""
    from tests.ui.user import wait_for

    window.resize(*SIZES[0])
    user.tab("Measure")
    user.tab("Study")
    user.tab("Sweep")  # not the Monitor chart, whose own form an earlier picture left shown
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    user.choose("Sweep", "Packet size")
    user.tab("Advanced")
    if user.find("Packet size (when not swept)").isEnabled():
        user.type("Packet size (when not swept)", "")
    user.type("UDP bitrate", "0")
    user.tab("Study")
    user.type("Values list", "128, 768, 1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "2")
    name = (
        "Lab 2, group 4: the access point by the window of room B12, open network, "
        "TCP against UDP by packet size"
    )
    user.type("Session name", name)
    user.choose("Medium", "Ethernet")
    user.choose("Security", "open (no security)")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 300, "the sweep to export")
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the sessions")
    user.click_row("Sessions", 0)  # the newest
    # The button shows at once, for the session shown before until this one's series are
    # read: wait for this session's name below and the reads to end.
    wait_for(
        lambda: (
            not window.sessions.reading
            and name[:40] in user.visible_text()
            and user.can_see("Compare its series")
            and user.find("Compare its series").isEnabled()
        ),
        30,
        "the session's view",
    )
    save("session-exports-1280x800.png")
    user.click("Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 30, "the comparison")
    saved = {kind: folder / f"export.{kind}" for kind in ("png", "html", "pdf")}

    def save_as(path: Path) -> Callable[[User], None]:
        def answer(dialog: User) -> None:
            dialog.type("File name", str(path))
            dialog.click("Save")

        return answer

    with user.answering(lambda size: size.click("OK"), save_as(saved["png"])):
        user.click("Chart PNG…")
    for kind, button in (("html", "HTML report…"), ("pdf", "PDF report…")):
        with user.answering(save_as(saved[kind])):
            user.click(button)
    for path in saved.values():
        wait_for(path.exists, 60, path.name)
    shutil.copyfile(saved["png"], OUT / "export-chart-1200x700.png")
    print(f"wrote {OUT.name}/export-chart-1200x700.png")
    render_report(saved["html"], OUT / "export-report-1280.png", folder / "chromium-exports")
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        print("pdftoppm is missing (scripts/ensure-desktop.sh --with-screenshots installs it)")
        return
    for old in OUT.glob("export-pdf-page-*.png"):
        old.unlink()
    argv = [pdftoppm, "-png", "-r", "80", str(saved["pdf"]), str(OUT / "export-pdf-page")]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    for page in sorted(OUT.glob("export-pdf-page-*.png")):
        print(f"wrote {OUT.name}/{page.name}")


def expected_goodput(window: Any, user: Any, save: Callable[[str], None]) -> None:
    """A sweep with a link rate stated: the sweep chart with the expected curves, then the
    session's Frame breakdown at 1408 B."""
    from tests.ui.user import wait_for

    user.tab("Measure")
    user.tab("Advanced")
    if user.find("Packet size (when not swept)").isEnabled():
        user.type("Packet size (when not swept)", "")
    user.tab("Study")
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    user.choose("Sweep", "Packet size")
    user.type("Values list", "128, 384, 640, 896, 1152, 1408")
    user.type("Runs per point", "2")
    user.type("Seconds per run", "2")
    user.type("Session name", f"Ethernet, {LINK_RATE} stated")
    user.choose("Security", "open (no security)")
    user.choose("Medium", "Ethernet")
    user.type("Link rate", LINK_RATE)
    user.tab("Advanced")
    user.type("UDP bitrate", "0")
    user.tab("Study")
    user.tab("Sweep")
    user.click("Start")
    wait_for(lambda: not window.measure.running, 300, "the sweep with a link rate")
    save("measure-expected-1280x800.png")
    user.tab("Sessions")
    wait_for(lambda: user.table_rows("Sessions"), 10, "the sessions")
    user.click_row("Sessions", 0)  # the newest
    wait_for(lambda: user.can_see("Session details"), 10, "the session's view")
    user.tab("Frame breakdown")
    user.choose("Series", "TCP · IPv4")
    user.choose("Point", "1408 B")
    save("frame-breakdown-1280x800.png")


if __name__ == "__main__":
    sys.exit(main())
