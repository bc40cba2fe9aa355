"""A student hands in a PDF: two sessions measured in the real window on this computer's
iperf3 (TCP and UDP over IPv4 and IPv6, the CPU of both ends; one labelled open, one WPA2),
compared from Sessions by their visible names, the comparison's HTML and PDF reports saved, and
one session's own HTML and PDF from its view. Each PDF is read back (pdftotext) against the
HTML of the same report: every heading and caption there, in order, once each; every table row
whole on one page; no line said twice that the HTML says once."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from tests.artifacts import NO_POPPLER, PDFTOTEXT
from tests.pdf_reading import outline, pdf_problems
from tests.ui.journey import save_as
from tests.ui.test_compare_journey import measure
from tests.ui.user import User, wait_for

OPEN = "Room B12, the open network, before lunch"
WPA2 = "Room B12, the same access point with WPA2, after lunch"
SIZES = "128, 1408"


def session_pairs(user: User) -> list[str]:
    """The pairs compared, each of a WPA2 series and an open one."""
    rows = [row[0] for row in user.table_rows("Pairs compared")]
    return [row for row in rows if "WPA2" in row and "Open" in row]


def saved(user: User, button: str, path: Path) -> Path:
    with user.answering(save_as(path)):
        user.click(button)
    wait_for(path.exists, 60, path.name)
    return path


def read_against(html: Path, pdf: Path) -> None:
    page = html.read_text(encoding="utf-8")
    assert pdf.read_bytes().startswith(b"%PDF-")
    problems = pdf_problems(page, pdf)
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(PDFTOTEXT is None, reason=NO_POPPLER)
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_the_pdf_reports_hold_what_the_html_reports_hold(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.tab("Measure")
    user.choose("IP version", "IPv4 and IPv6")  # kept for both sessions
    # Half-second reports: each 1-s run has a throughput over time to draw.
    measure(user, window, OPEN, "open (no security)", SIZES, interval="0.5")
    measure(user, window, WPA2, "WPA2", SIZES, interval="0.5")
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 2, 10, "both sessions")
    names = [row[1] for row in user.table_rows("Sessions")]
    user.click_row("Sessions", names.index(OPEN))
    user.click_row("Sessions", names.index(WPA2), Qt.KeyboardModifier.ControlModifier)
    user.click("Compare")
    wait_for(lambda: len(session_pairs(user)) == 4, 30, "the four pairs of the two sessions")
    html = saved(user, "HTML report…", tmp_path / "comparison.html")
    pdf = saved(user, "PDF report…", tmp_path / "comparison.pdf")
    headings = outline(html.read_text(encoding="utf-8")).headings
    # What the issue found missing is in the HTML, so the reading below covers it.
    for wanted in (
        "TCP retransmits per run",
        "CPU on this computer",
        "CPU on the peer",
        "UDP loss",
        "UDP jitter",
        "Standard deviation",
        "Sessions",
        OPEN,
    ):
        assert wanted in headings, (wanted, headings)
    pairs = [h for h in headings if " against " in h]
    assert len(pairs) == 4 and all("WPA2" in h and "Open" in h for h in pairs), pairs
    assert len(outline(html.read_text(encoding="utf-8")).captions) == 4  # a timeline per pair
    read_against(html, pdf)

    # One session's own report, from its view.
    user.tab("Sessions")
    user.click_row("Sessions", names.index(OPEN))
    wait_for(lambda: user.can_see("Export PDF…"), 10, "the session's view")
    own_html = saved(user, "Export HTML…", tmp_path / "own.html")
    own_pdf = saved(user, "Export PDF…", tmp_path / "own.pdf")
    read_against(own_html, own_pdf)
