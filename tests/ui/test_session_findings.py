"""A session's findings in its own view, as a person reads them: a real sweep of four series
on this computer, opened from the Sessions tab, its Findings tab holding the very sentences
its HTML report lists (and Compare its series shows), with room to read them at 1280×800."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTextBrowser

from app.ui.main_window import MainWindow
from app.ui.sessions.reading import COMPARED
from tests.ui.journey import save_as
from tests.ui.test_measure import plan_sweep
from tests.ui.test_room_at_1280x800 import text_lines
from tests.ui.user import User, wait_for


def report_findings(page: Path) -> list[str]:
    """The sentences under the report's Findings heading."""
    text = page.read_text(encoding="utf-8")
    found = re.search(r"<h2>Findings</h2>\s*<ul>(.*?)</ul>", text, re.S)
    assert found is not None, "no Findings in the report"
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", found.group(1), re.S)]


def paragraphs(text: str) -> list[str]:
    return [part for part in text.split("\n\n") if part.strip()]


@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_a_sessions_view_shows_the_findings_its_report_and_compare_give(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.choose("Protocol", "TCP and UDP")
    user.choose("IP version", "IPv4 and IPv6")
    plan_sweep(user, "128, 1408", runs=2, seconds=1)
    user.type("Session name", "four series")
    user.click("Start")
    wait_for(lambda: window.measure.running, 10, "the sweep to start")
    wait_for(lambda: not window.measure.running, 180, "the sweep")
    assert "completed" in user.text("Status"), user.text("Log")

    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 8, 10, "the session's table")
    user.tab("Findings")
    pane = user.find("Session findings", QTextBrowser)
    own, heading, compared = pane.toPlainText().partition(COMPARED)
    # Readable at 1280×800: the width of the view, and lines enough to read them in.
    assert pane.width() >= 0.9 * window.width() and text_lines(pane) >= 8

    page = tmp_path / "four series.html"
    with user.answering(save_as(page)):
        user.click("Export HTML…")
    wait_for(page.exists, 60, page.name)
    reported = report_findings(page)
    # Four pairs (TCP against UDP at each IP version, IPv4 against IPv6 for each protocol),
    # each said in the report's words: the same sentences, in the same order, in the view,
    # under a line that says what they are.
    assert len(reported) >= 8, reported
    assert heading and paragraphs(compared) == reported
    # Before them only the sentences of its own results (none here: no link rate stated).
    assert paragraphs(own) == []

    # Compare its series says the same.
    user.click("Compare its series")
    wait_for(lambda: len(user.table_rows("Pairs compared")) == 4, 10, "the four pairs")
    user.tab("Findings")
    assert paragraphs(user.text("Findings")) == reported
