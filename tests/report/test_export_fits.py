"""Exported charts and reports hold all their content at any title or name length: the PNG at
every offered size, the HTML report in Chromium and the PDF's pages keep a margin on every side,
the last planned point is drawn inside, and the Pairs table keeps every column."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from app.report.report_data import collect
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.frontdoor import FrontDoor
from app.ui.common.chart_style import COLOURS
from app.ui.common.report_files import write_outputs
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
from tests.report.test_reports import ENVIRONMENT, add_session, load

SIZES = (128, 384, 640, 896, 1152, 1408)
LONG = (
    "Laboratory session over the open access point on the second floor next to the window "
    "of room B12, TCP throughput by packet size, first attempt of group four"
)


@pytest.fixture(scope="module")
def long_named(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[str, str]]:
    """Two sessions alike in every stated way: their long names label the curves and fill
    the chart's title."""
    path = tmp_path_factory.mktemp("fits") / "linklab.sqlite3"
    base = {v: [40.0 + v / 100, 41.0 + v / 100, 39.0 + v / 100] for v in SIZES}
    other = {v: [30.0 + v / 100, 31.0 + v / 100, 29.5 + v / 100] for v in SIZES}
    with Database(path) as db:
        store = SessionStore(db)
        first = add_session(store, LONG, "", base, ENVIRONMENT)
        second = add_session(store, LONG.replace("open", "WPA2-protected"), "", other, {})
    return path, (first, second)


@pytest.mark.parametrize("size", [(1200, 700), (1600, 900), (800, 500), (2400, 1400)])
def test_png_keeps_title_axis_and_last_point_inside(
    long_named: tuple[Path, tuple[str, str]], tmp_path: Path, size: tuple[int, int]
) -> None:
    path, ids = long_named
    data = collect(load(path, ids), FrontDoor(path))
    png = tmp_path / "chart.png"
    write_outputs(data, png=png, png_size=size)
    assert_inside(png, f"the {size[0]}x{size[1]} chart")
    # TCP · IPv4 is blue: its last point (1408 B) sits near the right end, inside the image.
    assert 0.85 < rightmost_share(png, COLOURS[0]) < 0.995


@pytest.mark.skipif(PDFTOPPM is None, reason=NO_POPPLER)
def test_pdf_pages_keep_their_margins_and_the_pairs_table_its_columns(
    long_named: tuple[Path, tuple[str, str]], tmp_path: Path
) -> None:
    path, ids = long_named
    data = collect(load(path, ids), FrontDoor(path))
    pdf, page_html = tmp_path / "report.pdf", tmp_path / "report.html"
    write_outputs(data, pdf=pdf, html=page_html)
    pages = pdf_pages(pdf, tmp_path / "pages")
    for number, page in enumerate(pages, start=1):
        # 15 mm margins at 60 dpi are 35 pixels: at least most of them stay blank.
        assert_inside(page, f"page {number} of the PDF", at_least=25)
    text = pdf_text(pdf)
    header = "Significant"
    assert header in text, "the Pairs table's last column is cut at the page's edge"
    for value in SIZES:
        assert str(value) in text
    # Every heading of the report is on a page (one after an image was once lost).
    flat = " ".join(text.split())
    headings = re.findall(r"<h[1-4]>([^<]+)</h[1-4]>", page_html.read_text(encoding="utf-8"))
    assert len(headings) > 8
    for heading in headings:
        assert " ".join(html.unescape(heading).split()) in flat, heading


@pytest.mark.skipif(PDFTOPPM is None, reason=NO_POPPLER)
def test_no_unit_in_the_pdf_is_broken_at_its_slash(
    long_named: tuple[Path, tuple[str, str]], tmp_path: Path
) -> None:
    """The differences' narrow columns break their titles at spaces, never inside a unit:
    "Mean" over "(Mbit/s)", not "(Mbit/" over "s)". What keeps it whole (a word joiner) is
    the PDF's alone: the HTML report copies as it reads, with no invisible character."""
    path, ids = long_named
    data = collect(load(path, ids), FrontDoor(path))
    pdf, page = tmp_path / "report.pdf", tmp_path / "report.html"
    write_outputs(data, pdf=pdf, html=page)
    written = page.read_text(encoding="utf-8")
    assert "(Mbit/s)" in written and "\u2060" not in written
    text = pdf_text(pdf)
    assert "(Mbit/s)" in text
    units = re.findall(r"\(([^\s()]*/)\s", text)  # a bracketed unit that ends at its slash
    assert units == [], [line for line in text.splitlines() if "/ " in line or line.endswith("/")]


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
def test_html_report_in_chromium_and_its_chart_hold_everything(
    long_named: tuple[Path, tuple[str, str]], tmp_path: Path
) -> None:
    path, ids = long_named
    data = collect(load(path, ids), FrontDoor(path))
    page = tmp_path / "report.html"
    write_outputs(data, html=page)
    chart, *_timelines = html_images(page)
    assert_inside(chart, "the report's chart")
    assert 0.85 < rightmost_share(chart, COLOURS[0]) < 0.995
    shot = html_screenshot(page, tmp_path / "shot.png", tmp_path / "profile", "1024,3000")
    # The page is longer than the window: its bottom edge is where the window ends.
    assert_inside(shot, "the report in Chromium", at_least=8, edges="ltr")


def test_the_axis_reaches_a_planned_point_that_has_no_successful_run(tmp_path: Path) -> None:
    from app.ui.common.render_charts import build_chart

    path = tmp_path / "linklab.sqlite3"
    measured = {128: [40.0, 41.0, 39.0], 768: [50.0, 51.0, 49.0], 1408: []}
    with Database(path) as db:
        store = SessionStore(db)
        ids = (add_session(store, "a", "", measured, {}), add_session(store, "b", "", measured, {}))
    chart = build_chart(load(path, ids))
    try:
        low, high = chart.getPlotItem().vb.viewRange()[0]
        assert low <= 128 and high >= 1408
    finally:
        chart.close()
        chart.deleteLater()
