"""TCP and UDP measured in the real window against a second computer behind a link held to
30 Mbit/s (tc tbf; steady, so that three runs a side tell the two apart even on a busy
computer), UDP at the 10 Mbit/s typed in the UDP bitrate field: UDP carries about that, TCP
about the link's rate. The session's findings and Compare its series both say UDP carried
the 10.0 Mbit/s it was asked to send and call neither side better, with the difference and
the share the Differences table gives; no sentence calls TCP better than UDP there."""

from __future__ import annotations

import re

import pytest

from app.analysis.expected_findings import AT_TARGET
from app.domain.units import MINUS
from app.ui.context import AppContext
from app.ui.main_window import MainWindow
from app.ui.sessions.reading import COMPARED
from tests.testbed import NeighbourBed
from tests.ui.journey import choose_the_neighbour
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

ASKED_MBIT = 10
#: What it carried, said whole ("the 10.0 Mbit/s") or short of it ("9.9 Mbit/s of the 10.0").
CARRIED = re.compile(
    rf"UDP · IPv4 carried (?:the |(?P<carried>\d+\.\d) Mbit/s of the ){ASKED_MBIT}\.0 Mbit/s it "
    r"was asked to send \(the UDP bitrate field, or --bitrate\), so its rate was set by that "
    r"bitrate, not by the link: neither is better there\.$"
)


def mbit(cell: str) -> float:
    """A rate cell of a table ('19.9 Mbit/s', '1.23 Gbit/s') in Mbit/s."""
    number, unit = cell.split()
    return float(number.replace(",", "")) * {"kbit/s": 1e-3, "Mbit/s": 1.0, "Gbit/s": 1e3}[unit]


def statement_at(findings: list[str]) -> str:
    (statement,) = [s for s in findings if s.startswith("At 1408 B,")]
    return statement


@pytest.mark.netns
@pytest.mark.usefixtures("iperf3_tool")
def test_udp_at_the_bitrate_typed_is_not_called_worse_than_tcp(
    window: MainWindow, user: User, context: AppContext, shaped_neighbour: NeighbourBed
) -> None:
    user.tab("Measure")
    choose_the_neighbour(user, context, shaped_neighbour)
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4")
    plan_sweep(user, "1408", runs=3, seconds=1)
    user.type("Session name", "capped udp")
    user.tab("Advanced")
    user.type("UDP bitrate", f"{ASKED_MBIT}M")
    user.tab("Study")
    user.click("Start")
    wait_for(lambda: window.measure.running, 20, "the study to start")
    wait_for(lambda: not window.measure.running, 120, "the study to end")
    assert "completed" in user.text("Status"), user.text("Log")

    # The session's own view: its results, and its series against each other.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 2, 10, "the session's table")
    headers = user.headers("Session results")
    means = {row[0]: mbit(row[headers.index("Mean")]) for row in user.table_rows("Session results")}
    print("means (Mbit/s):", means)
    # What the rule rests on: UDP carried its bitrate, TCP (unlimited) the link's rate.
    assert means["UDP · IPv4"] >= AT_TARGET * ASKED_MBIT
    assert means["TCP · IPv4"] > 2 * ASKED_MBIT
    user.tab("Findings")
    shown = user.text("Session findings")
    assert COMPARED in shown
    compared = [s for s in shown.split(COMPARED)[1].split("\n\n") if s.strip()]
    in_view = statement_at(compared)
    carried = CARRIED.search(in_view)
    assert carried is not None, in_view
    # Said short of its target exactly when its mean reads short of it.
    short = f"{means['UDP · IPv4']:.1f}" != f"{ASKED_MBIT:.1f}" and means["UDP · IPv4"] < ASKED_MBIT
    assert (carried["carried"] is not None) == short, (in_view, means)
    if short:
        assert carried["carried"] == f"{means['UDP · IPv4']:.1f}", (in_view, means)
    assert not any("better than" in s or "better there than" in s for s in compared), compared

    # Compare its series: the same sentence, beside the row it describes.
    user.click("Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 20, "the comparison")
    assert user.table_rows("Pairs compared") == [["UDP · IPv4  ↔  TCP · IPv4"]]
    user.tab("Differences")
    headers = user.headers("Differences")
    (row,) = [dict(zip(headers, r, strict=True)) for r in user.table_rows("Differences")]
    assert (row["Series"], row["Against"], row["Value"]) == ("UDP · IPv4", "TCP · IPv4", "1408")
    assert row["Significant (α = 0.05)"] == "yes"
    assert row["Difference"].startswith(MINUS)  # UDP below TCP: the lower side is UDP
    user.tab("Findings")
    findings = [s for s in user.text("Findings").split("\n\n") if s.strip()]
    statement = statement_at(findings)
    assert statement == in_view
    # The difference and its share as the table writes them (the sign said in words).
    said = re.match(r"At 1408 B, UDP · IPv4 had (.+?) \((.+?) %\) less throughput than", statement)
    assert said, statement
    assert said.group(1) == row["Difference"].removeprefix(MINUS)
    assert said.group(2) == row["%"].removeprefix(MINUS)
    assert not any("better than" in s or "better there than" in s for s in findings), findings
