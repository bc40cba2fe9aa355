"""The newcomer's DSCP journey in the real window, on this computer's real iperf3: the sweep
chosen by its label "DSCP / access category", the four Wi-Fi access categories measured over
TCP and UDP, the Command preview telling iperf3 each one's TOS byte (-S); then in Sessions the
session's table and Compare its series name each point by its category, Export CSV… writes
one row per category and series whose throughput is what the store holds for it, and the
comparison's HTML report names the variable and its categories."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from app.analysis.pair_words import means_text
from app.domain.units import format_rate
from app.store.db import Database
from app.store.sessions import SessionStore
from app.ui.main_window import MainWindow
from tests.ui.journey import confirmed, save_as
from tests.ui.user import User, wait_for

NAME = "Access categories on this computer"
#: The categories as the form offers them, and the TOS byte iperf3 is given for each (-S):
#: the DSCP (BK CS1 = 8, BE 0, VI AF41 = 34, VO EF = 46) shifted past the two ECN bits.
CATEGORIES = {"BK": 32, "BE": 0, "VI": 136, "VO": 184}
SERIES = {"TCP · IPv4": "tcp", "UDP · IPv4": "udp"}


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_the_access_categories_measured_compared_and_exported(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.tab("Measure")
    user.tab("Study")
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    user.choose("Sweep", "DSCP / access category")
    offered = user.text("Values list")
    assert offered == ", ".join(CATEGORIES)  # the four categories, ready to measure
    for category, tos in CATEGORIES.items():  # what iperf3 is told, one category at a time
        user.type("Values list", category)
        command = user.text("Command")
        assert f" -S {tos} " in command, (category, command)
    user.type("Values list", offered)
    user.type("Runs per point", "1")
    user.type("Seconds per run", "1")
    user.type("Session name", NAME)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 60, "the sweep")
    assert "completed" in user.text("Status")
    user.tab("Sweep")  # the sweep chart names its points along x by category
    axis = user.find("Sweep chart").getPlotItem().getAxis("bottom")  # type: ignore[attr-defined]
    assert axis.labelText == "DSCP / access category"
    # The names the axis draws at its ticks (pyqtgraph keeps fixed ticks there).
    assert [name for _, name in axis._tickLevels[0]] == list(CATEGORIES)
    with Database(window.context.db_path, readonly=True) as db:
        (session,) = SessionStore(db).list_sessions()
        runs = SessionStore(db).runs(session.id)
    stored = {(r.key.protocol.value, str(r.value)): r for r in runs}
    assert len(stored) == 8 and all(r.ok for r in runs)
    for (_, category), run in stored.items():  # each run was marked as planned
        assert f" -S {CATEGORIES[category]} " in " ".join(run.argv), run.argv

    # The session's own view: its table names each point by its category, with the run's
    # throughput.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 8, 10, "the session's results")
    headers = user.headers("Session results")
    assert "DSCP / access category" in headers
    for row in user.table_rows("Session results"):
        cells = dict(zip(headers, row, strict=True))
        run = stored[(SERIES[cells["Series"]], cells["DSCP / access category"])]
        assert cells["Mean"] == format_rate(run.metrics.throughput_bps), (cells, run.metrics)

    # Export CSV…: one row per run, named by its category, its figures the stored ones.
    runs_csv = tmp_path / "access categories.csv"
    with user.answering(save_as(runs_csv)):
        user.click("Export CSV…")
    wait_for(runs_csv.exists, 20, "the CSV")
    confirmed(user, runs_csv)
    rows = list(csv.DictReader(io.StringIO(runs_csv.read_text(encoding="utf-8-sig"))))
    assert sorted((r["protocol"], r["value"]) for r in rows) == sorted(stored)
    for row in rows:
        run = stored[(row["protocol"], row["value"])]
        assert row["variable"] == "dscp" and row["status"] == "ok"
        assert float(row["throughput_bps"]) == run.metrics.throughput_bps, row
        assert row["command"] == " ".join(run.argv)

    # Its series compared within it: the points named by category, in the plan's order.
    user.click("Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    assert user.table_rows("Pairs compared") == [["UDP · IPv4  ↔  TCP · IPv4"]]
    user.tab("Differences")
    headers = user.headers("Differences")
    compared = [dict(zip(headers, r, strict=True)) for r in user.table_rows("Differences")]
    assert [r["Value"] for r in compared] == list(CATEGORIES)
    for cells in compared:  # each side's mean is its one stored run's throughput
        tcp, udp = (stored[(protocol, cells["Value"])].metrics for protocol in ("tcp", "udp"))
        # Both to the digits that let their difference be read.
        shown = means_text("throughput_bps", tcp.throughput_bps, udp.throughput_bps)
        assert (cells["Baseline mean"], cells["Mean"]) == shown, (cells, shown)
    axis = user.find("Comparison chart").getPlotItem().getAxis("bottom")  # type: ignore[attr-defined]
    assert axis.labelText == "DSCP / access category"
    assert [name for _, name in axis._tickLevels[0]] == list(CATEGORIES)
    report = tmp_path / "access categories.html"
    with user.answering(save_as(report)):
        user.click("HTML report…")
    wait_for(report.exists, 30, "the HTML report")
    page = report.read_text(encoding="utf-8")
    assert "throughput by DSCP / access category." in page  # the acronym's capitals kept
    assert all(f">{category}</td>" in page for category in CATEGORIES), page
