"""A newcomer's way from one sweep to its reports, through the real window against this
computer: a TCP and UDP sweep under a long name, its own view's CSV, HTML and PDF, its series
compared within it, the comparison's PNG, HTML and PDF, each opened (pdftoppm, headless
Chromium) and checked by its pixels; then the session deleted and brought back with Undo."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.common.chart_style import SERIES_COLOURS
from app.ui.main_window import MainWindow
from tests.artifacts import (
    CHROMIUM,
    NO_CHROMIUM,
    NO_POPPLER,
    PDFTOPPM,
    assert_inside,
    html_images,
    html_screenshot,
    pdf_pages,
    pdf_text,
    rightmost_share,
)
from tests.conftest import linklab
from tests.ui.journey import save_as
from tests.ui.test_measure import plan_sweep
from tests.ui.user import User, wait_for

SIZES = ("128", "768", "1408")
NAME = (
    "Lab 2, group 4: the access point by the window of room B12, open network, TCP against "
    "UDP by packet size, first attempt before the break"
)
#: TCP · IPv4 and UDP · IPv4, as every chart draws them.
COLOURS = [colour for series, colour in SERIES_COLOURS.items() if int(series.ip_version) == 4]


def check_pdf(pdf: Path, folder: Path) -> str:
    """Every page keeps its margins; returns the text (what was cut off a page is not in it)."""
    for number, page in enumerate(pdf_pages(pdf, folder), start=1):
        assert_inside(page, f"page {number} of {pdf.name}", at_least=25)
    return pdf_text(pdf)


def check_html(page: Path, folder: Path) -> None:
    """The report's chart holds its last points; Chromium shows nothing cut at the sides."""
    chart, *_timelines = html_images(page)
    assert_inside(chart, f"the chart of {page.name}")
    for colour in COLOURS:
        assert rightmost_share(chart, colour) > 0.85, f"no point near the right end in {colour}"
    # A window taller than the page: it ends inside, so all four edges are the page's own.
    shot = html_screenshot(page, folder / f"{page.stem}.png", folder / "chromium", "1280,8000")
    assert_inside(shot, f"{page.name} in Chromium", at_least=8)


def sessions_listed(db: Path) -> str:
    """What `linklab sessions` prints for the window's database."""
    done = linklab("sessions", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(PDFTOPPM is None, reason=NO_POPPLER)
@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
@pytest.mark.usefixtures("iperf3_tool")  # runs this computer's iperf3
def test_one_sweep_to_its_reports_and_back_from_a_delete(
    window: MainWindow, user: User, tmp_path: Path
) -> None:
    user.tab("Measure")
    user.choose("Protocol", "TCP and UDP")
    plan_sweep(user, ", ".join(SIZES), runs=1, seconds=1)
    user.type("Session name", NAME)
    user.click("Start")
    wait_for(lambda: not window.measure.running, 120, "the sweep")
    assert "completed" in user.text("Status")
    user.tab("Sweep")
    sweep = user.find("Sweep chart")
    assert sweep.point_count() == 6  # type: ignore[attr-defined]

    # The session's own view: its runs as CSV, its report as HTML and PDF.
    user.tab("Sessions")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session")
    user.click_row("Sessions", 0)
    wait_for(lambda: user.can_see("Export PDF…"), 10, "the session's view")
    runs_csv, own_html, own_pdf = (tmp_path / f"own.{k}" for k in ("csv", "html", "pdf"))
    for button, path in (
        ("Export CSV…", runs_csv),
        ("Export HTML…", own_html),
        ("Export PDF…", own_pdf),
    ):
        with user.answering(save_as(path)):
            user.click(button)
        wait_for(path.exists, 30, path.name)
        assert f"Saved {path.name}" in window.status_label.text()
    rows = list(csv.DictReader(io.StringIO(runs_csv.read_text(encoding="utf-8-sig"))))
    assert len(rows) == 6 and {r["value"] for r in rows} == set(SIZES)
    assert NAME in own_html.read_text(encoding="utf-8")
    check_html(own_html, tmp_path / "own")
    assert "1408" in check_pdf(own_pdf, tmp_path / "own-pdf")

    # Its series compared within it, from its own view: no second session needed.
    user.click("Compare its series")
    wait_for(lambda: user.table_rows("Pairs compared"), 10, "the comparison")
    assert user.table_rows("Pairs compared") == [["UDP · IPv4  ↔  TCP · IPv4"]]
    assert user.can_see("Session")  # the list names the session whose series are compared
    assert {r[2] for r in user.table_rows("Differences")} == set(SIZES)
    png, html, pdf, table = (tmp_path / f"comparison.{k}" for k in ("png", "html", "pdf", "csv"))
    with user.answering(lambda size: size.click("OK"), save_as(png)):
        user.click("Chart PNG…")
    wait_for(png.exists, 30, "the PNG")
    for path, button in ((html, "HTML report…"), (pdf, "PDF report…"), (table, "Table CSV…")):
        with user.answering(save_as(path)):
            user.click(button)
        wait_for(path.exists, 60, path.name)
    assert_inside(png, "the comparison's PNG")
    for colour in COLOURS:  # the 1408 B points: near the right end, inside the image
        assert 0.85 < rightmost_share(png, colour) < 0.995
    exported = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8-sig"))))
    assert {r["value"] for r in exported} == set(SIZES)  # every planned point is in it
    check_html(html, tmp_path / "html")
    text = check_pdf(pdf, tmp_path / "pdf")
    assert "Significant" in text and "1408" in text  # the Pairs table whole, its last point

    # Deleted, then brought back with every run; `linklab sessions` follows.
    user.tab("Sessions")
    user.click_row("Sessions", 0)

    def yes(box: User) -> None:
        question = QApplication.activeModalWidget()
        assert isinstance(question, QMessageBox) and "Undo delete" in question.text()
        box.click("Yes")

    with user.answering(yes):
        user.click("Delete…")
    wait_for(lambda: not user.table_rows("Sessions"), 10, "the session to go")
    assert "Undo delete brings it back" in user.text("Sessions message")
    assert NAME[:15] not in sessions_listed(window.context.db_path)
    user.tab("Measure")
    user.tab("Sweep")
    assert sweep.point_count() == 0  # type: ignore[attr-defined]  # no longer shown
    user.tab("Compare")  # nor compared
    wait_for(lambda: not user.table_rows("Differences"), 10, "the comparison to go")
    assert not user.find("Chart PNG…").isEnabled()
    user.tab("Sessions")
    user.click("Undo delete")
    wait_for(lambda: len(user.table_rows("Sessions")) == 1, 10, "the session back")
    assert "Restored" in user.text("Sessions message")
    assert not user.can_see("Undo delete")
    assert NAME[:15] in sessions_listed(window.context.db_path)
    user.click_row("Sessions", 0)
    wait_for(lambda: len(user.table_rows("Session results")) == 6, 10, "its runs")
