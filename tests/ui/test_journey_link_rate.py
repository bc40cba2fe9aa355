"""The link rate as a newcomer meets it with a second computer behind a shaped link: Find
computers, the Study page's Medium and Link rate, Start, the findings and the Sessions listing,
with the window closed and opened again in between. The adapter to the peer is a veth, whose
nominal 10000 Mbit/s is the adapter's, never the path's (tc tbf holds the path to 30 Mbit/s):
detection says the same on first use and after a restart, the adapter's speed never becomes a
stated condition, the expected goodput or the chart's axis, a WPA2 plan still starts, and a
rate stated far above the path is doubted in the finding, not blamed on the hosts."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from tests.conftest import linklab
from tests.sentences import check_session
from tests.testbed import NeighbourBed
from tests.ui.conftest import open_window
from tests.ui.journey import choose_the_neighbour, save_as
from tests.ui.shown_sentences import (
    shown_conditions,
    shown_findings,
    shown_status,
    shown_warnings,
    view_text,
)
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for


def detection_settled(window: MainWindow, user: User, host: str) -> str:
    """Waits for the detection of the link to host; what the Study page then says of it."""
    detection = window.measure.detection
    wait_for(lambda: detection.asked == host and detection.answered, 20, "the detection")
    return user.text("Detected link") if user.can_see("Detected link") else ""


@dataclass(frozen=True)
class Axis:
    label: str  # the y axis's title
    top: float  # where it ends, in its unit
    legend: list[str]  # the legend's names


def chart_axis(user: User, name: str) -> Axis:
    """What the chart named name shows: its y axis's title and top, its legend's names."""
    item = user.find(name).getPlotItem()  # type: ignore[attr-defined]
    names = [label.text for _, label in item.legend.items]
    return Axis(item.getAxis("left").labelText, item.viewRange()[1][1], names)


def start_and_finish(window: MainWindow, user: User) -> None:
    user.click("Start")
    wait_for(lambda: window.measure.running, 20, "the study to start")
    wait_for(lambda: not window.measure.running, 90, "the study to end")
    assert "completed" in user.text("Status"), user.text("Log")


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_a_nominal_adapter_speed_never_becomes_the_link_rate(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    user: User,
    context: AppContext,
    shaped_neighbour: NeighbourBed,
    tmp_path: Path,
) -> None:
    neighbour = shaped_neighbour
    adapter = (
        f"{neighbour.here} runs at 10 Gbit/s: the adapter's own speed, not the path's, so the "
        "link rate stays unknown until you state it."
    )

    # First use: the second computer chosen from Find computers, never checked by hand.
    choose_the_neighbour(user, context, neighbour)
    first = detection_settled(window, user, neighbour.THERE4)
    assert user.text("Medium") == "Ethernet" and user.text("Link rate") == ""
    assert first == f"Medium Ethernet detected from {neighbour.here}, a wired adapter. {adapter}"
    # WPA2 on the Wi-Fi further along: a wired adapter here says nothing against it.
    user.choose("Security", "WPA2")
    assert user.text("Medium") == "unknown"
    assert user.text("Detected link") == adapter
    plan_sweep(user, "1408", runs=1, seconds=2)
    user.type("Session name", "wpa2 first")
    start_and_finish(window, user)
    user.tab("Sweep")  # no expected curve: no rate was ever stated, nor taken from the adapter
    wait_for(lambda: user.description("Sweep chart") == "Curves: IPv4 · WPA2", 10, "the chart")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    assert user.table_rows("Sessions")[0][5] == "WPA2"  # nothing the user never stated

    # Closed and opened again: the Study page says what it said, and the WPA2 plan starts.
    window.shutdown()
    window.close()
    window = open_window(qtbot, context, tmp_path)
    user = User(window)
    assert detection_settled(window, user, neighbour.THERE4) == adapter
    assert user.text("Security") == "WPA2" and user.text("Medium") == "unknown"
    assert user.text("Link rate") == ""
    user.type("Session name", "wpa2 again")
    start_and_finish(window, user)
    user.choose("Security", "unknown")
    assert user.text("Medium") == "Ethernet"  # detected again, as on first use
    assert user.text("Link rate") == ""

    # A rate stated far above the shaper: the finding doubts it instead of blaming the hosts.
    user.type("Link rate", "10G")
    user.type("Session name", "stated 10G")
    start_and_finish(window, user)
    user.tab("Sweep")
    above = re.compile(r"Curves: IPv4; Expected \(IPv4\): up to (.+), above the chart")
    wait_for(lambda: above.fullmatch(user.description("Sweep chart")), 10, "the chart")
    live = chart_axis(user, "Sweep chart")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 3, 10, "the sessions")
    listed = {row[1]: row[5] for row in user.table_rows("Sessions")}
    assert listed == {
        "stated 10G": "Ethernet (detected) · 10 Gbit/s link",
        "wpa2 again": "WPA2",
        "wpa2 first": "WPA2",
    }
    rows = user.table_rows("Sessions")
    user.click_row("Sessions", [r[1] for r in rows].index("stated 10G"))
    wait_for(lambda: user.can_see("Session details"), 10, "the session's view")
    details = view_text(user)
    # Every sentence the view shows, against the figures the command line gives for it.
    db = str(context.db_path)
    shown = linklab("sessions", "show", "stated 10G", "--json", "--db", db)
    data = json.loads(shown.stdout)
    runs = linklab("export", "stated 10G", "--format", "csv", "--out", "-", "--db", db).stdout
    warnings = (
        shown_warnings(user.text("Session warnings")) if user.can_see("Session warnings") else []
    )
    check_session(
        data,
        runs,
        findings=shown_findings(details),
        warnings=warnings,
        conditions=shown_conditions(details),
    )
    assert shown_findings(details) == data["findings"] and warnings == data["warnings"]
    assert shown_status(details).startswith(data["status_text"])
    (finding,) = [line for line in details.splitlines() if "of what the headers allow" in line]
    headers = user.headers("Session results")
    (row,) = user.table_rows("Session results")
    share = row[headers.index("Of expected %")]
    assert finding.startswith(
        f"TCP · IPv4 reached only {share} % of what the headers allow at 1408 B on the 10 "
        f"Gbit/s link rate stated (expected {row[headers.index('Expected')]}, measured "
    )
    assert 0 < float(share) < 1  # 30 Mbit/s of 9.41 Gbit/s, with its decimal
    assert "is probably not the path's bottleneck" in finding and "hosts" not in finding
    # The charts fit the measured point, not the 10 Gbit/s stated: the expected line is left
    # above them, its legend saying how high it goes, and the point is read off the axis.
    mean = row[headers.index("Mean")]
    user.tab("Throughput")
    expected = row[headers.index("Expected")]
    session = chart_axis(user, "Session throughput chart")
    for axis, series in ((live, "IPv4"), (session, "TCP · IPv4")):
        assert axis.label == "throughput (Mbit/s)" and mean.endswith(" Mbit/s")
        measured = float(mean.removesuffix(" Mbit/s"))
        assert measured <= axis.top < 2 * measured, (axis, mean)
        assert axis.legend == [series, f"Expected ({series}): up to {expected}, above the chart"]
    assert "Conditions: Ethernet (detected) · 10 Gbit/s link" in details
    assert f"{neighbour.here}, {neighbour.HERE4}, adapter speed 10000 Mbit/s" in details

    # Its HTML report says the conditions as the view does.
    page = tmp_path / "stated.html"
    with user.answering(save_as(page)):
        user.click("Export HTML…")
    wait_for(page.exists, 60, page.name)
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
    assert f"Ethernet (detected from {neighbour.here}, a wired adapter)" in text
    assert "10 Gbit/s (stated)" in text
    assert "Adapter speed (Mbit/s), not the path's" in text
    window.shutdown()
