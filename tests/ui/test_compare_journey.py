"""The newcomer's comparison journey in the real window, on this computer's real iperf3: two
TCP+UDP sessions with long names, labelled open and WPA2 on the Security field, the second
with a packet size the first never planned; Sessions, Compare, and every metric the Metric
list offers (only those both sides measured). Every finding is read back against its table:
each point in one statement, with the table's verdict, the status column's reason where a side
has no figure ("TCP reports no loss", "not in the plan of"), and the table's difference."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from app.analysis.compare import METRIC_INFO
from app.domain.units import MINUS
from app.ui.main_window import MainWindow
from tests.analysis.findings_text import covered_points, statement_points, statement_verdicts
from tests.ui.user import User, wait_for

OPEN = "Lab 3, group 4: the open network on the second floor, beside the window, before lunch"
WPA2 = "Lab 3, group 4: the same access point with WPA2-Personal switched on, after lunch"
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def measure(
    user: User, window: MainWindow, name: str, security: str, sizes: str, interval: str = ""
) -> None:
    """A TCP and UDP session of 1-s runs; with interval, its report interval (Advanced)."""
    user.tab("Measure")
    if interval:
        user.tab("Advanced")
        user.type("Report interval", interval)
        user.tab("Study")
    user.choose("Protocol", "TCP and UDP")
    user.type("Values list", sizes)
    user.type("Runs per point", "2")
    user.type("Seconds per run", "1")
    user.type("Session name", name)
    user.choose("Security", security)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, f"the {name} session")
    assert "completed" in user.text("Status")


def _table_verdict(row: dict[str, str]) -> str:
    status = row["Significant (α = 0.05)"]
    if status == "yes":
        return "lower" if row["Difference"].lstrip().startswith((MINUS, "-")) else "higher"
    if status == "no":
        return "same"
    return "untested" if status.startswith("untested") else "unmeasured"


def _first_number(text: str) -> float:
    found = NUMBER.search(text)
    assert found, text
    return float(found.group())


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_every_finding_of_every_offered_metric_agrees_with_its_table(
    window: MainWindow, user: User
) -> None:
    measure(user, window, OPEN, "open (no security)", "128, 1408")
    measure(user, window, WPA2, "WPA2", "128, 640, 1408")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "both sessions")
    user.click_row("Sessions", 0)
    user.click_row("Sessions", 1, Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    tab = window.compare_tab
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 2, 20, "the sessions read")
    offered = user.options("Metric")
    print("offered:", offered)
    # Only what both sides measured: neither session probed latency or one-way delay.
    assert offered[0] == "throughput (bit/s)"
    assert not any(m.startswith(("working latency", "idle latency", "one-way")) for m in offered)
    assert "loss (%)" in offered and "jitter (ms)" in offered  # the UDP pair measured them
    checked = 0
    for metric in offered:
        user.choose("Metric", metric)
        wait_for(lambda: not tab.reading and tab.comparison is not None, 20, metric)
        wait_for(
            lambda m=metric: (
                tab.comparison is not None and tab.comparison.metric == tab.metric_box.currentData()
            ),
            10,
            f"the {metric} comparison",
        )
        user.tab("Differences")
        headers = user.headers("Differences")
        rows = [dict(zip(headers, r, strict=True)) for r in user.table_rows("Differences")]
        user.tab("Findings")
        findings = [s for s in user.text("Findings").split("\n\n") if s]
        pairs = sorted({(r["Series"], r["Against"]) for r in rows})
        assert len(pairs) == 2, pairs
        for other, base in pairs:
            mine = [r for r in rows if (r["Series"], r["Against"]) == (other, base)]
            values = [float(r["Value"]) for r in mine]
            said = [s for s in findings if other in s and base in s]
            unit = "B"
            assert covered_points(said, values, unit) == sorted(values), said
            higher_is_better = METRIC_INFO[tab.metric_box.currentData()][2]
            verdicts = statement_verdicts(
                said, base, other, unit, higher_is_better=higher_is_better, values=values
            )
            sentences = {
                v: s for covered, s in statement_points(said, values, unit) for v in covered
            }
            for row, value in zip(mine, values, strict=True):
                verdict = _table_verdict(row)
                assert verdicts[value] == verdict, (metric, row, sentences[value])
                sentence, status = sentences[value], row["Significant (α = 0.05)"]
                if verdict == "unmeasured":
                    # The reason in the table is the reason in the words.
                    if "reports no" in status:
                        reason = status.split(": ", 1)[1]
                        assert reason in sentence, (status, sentence)
                    if "plan" in status:
                        assert "not in the plan of" in sentence, (status, sentence)
                        assert value == 640.0, (status, sentence)
                    if "successful run" in status:
                        assert "successful run" in sentence, (status, sentence)
                    assert ("plan" in status) == ("plan" in sentence), (status, sentence)
                    assert ("successful run" in status) == ("successful run" in sentence)
                elif len([v for v in values if sentences[v] == sentence]) == 1:
                    # One point, one statement: its difference is the table's.
                    difference = _first_number(row["Difference"])
                    if verdict in ("same", "untested"):
                        written = re.search(rf"(?:: |of )[+{MINUS}]?(\d[\d.]*)", sentence)
                        assert written, sentence
                        assert float(written.group(1)) == difference, (row, sentence)
                    else:
                        written = re.search(r"(?:had|added) (\d[\d.]*)", sentence)
                        assert written, sentence
                        assert float(written.group(1)) == difference, (row, sentence)
                checked += 1
        if metric.startswith("loss"):
            tcp = [r for r in rows if r["Series"].startswith("TCP")]
            assert tcp and all(
                r["Significant (α = 0.05)"] == "not measured: TCP reports no loss"
                for r in tcp
                if float(r["Value"]) != 640.0
            ), tcp
            assert not any("TCP" in s and "successful run" in s for s in findings), findings
    assert checked >= 2 * 3 * len(offered)
