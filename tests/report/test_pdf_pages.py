"""The PDF's pages against the HTML they are made from, read back with pdftotext: every
heading there once and in order, a table row never cut in two by a page's end (its last line
alone at the top of the next page), a short paragraph never said twice; and the reading itself
shown to see what Qt's writer does without LinkLab's page breaks."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything loads Qt

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.report.html_parts import STYLE, table
from app.ui.common.pdf_marks import break_before, marks, split_table
from tests.artifacts import NO_POPPLER, PDFTOTEXT
from tests.pdf_reading import outline, pdf_problems

pytestmark = pytest.mark.skipif(PDFTOTEXT is None, reason=NO_POPPLER)


def page(parts: list[str]) -> str:
    return f"<html><head><style>{STYLE}</style></head><body>{''.join(parts)}</body></html>"


def difference_rows(count: int, start: int) -> list[str]:
    """Rows like the Pairs table's: a cell of three lines, its last "(99 %)"."""
    return [
        f'<td class="num">{start + n}</td><td class="num">+3.{n:02d} to<br>+85.{n}<br>'
        f"(99&nbsp;%)</td><td>row-{start + n} yes</td>"
        for n in range(count)
    ]


def report_like(fillers: int) -> str:
    parts = [f"<p>Filler paragraph {k}, one line.</p>" for k in range(fillers)]
    for number in range(12):
        parts.append(f"<h3>Pair {number} against its baseline</h3>")
        parts.append(
            table(["Packet size", "Interval", "Significant"], difference_rows(5, 10 * number))
        )
        parts.append(
            f"<ul><li>Finding {number}: "
            + "a sentence long enough to wrap over three lines of the page, " * 3
            + "as the findings do.</li></ul>"
        )
        parts.append(f"<h4>Throughput {number}</h4>")
        parts.append(
            table(
                ["Packet size", "mean ± SD"],
                [f"<td>{v}</td><td>1.2 ± 0.3</td>" for v in (128, 1408)],
            )
        )
    return page(parts)


def plain_qt_pdf(html: str, path: Path) -> None:
    """The HTML printed by Qt as it comes, without LinkLab's page breaks."""
    from PySide6.QtGui import QPageSize, QPdfWriter, QTextDocument

    from app.ui.common.pdf_pages import text_column
    from app.ui.common.render_charts import ensure_application

    ensure_application()
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    document = QTextDocument()
    document.setHtml(html)
    document.setPageSize(text_column())
    document.print_(writer)
    del writer


def tall_rows(fillers: int) -> str:
    """Filler lines, then a table of rows three lines tall."""
    rows = difference_rows(4, 0)
    return page([f"<p>Filler {k}</p>" for k in range(fillers)] + [table(["a", "b", "c"], rows)])


@pytest.mark.parametrize("fillers", [0, 7, 19])
def test_rows_headings_and_findings_come_whole_and_once(tmp_path: Path, fillers: int) -> None:
    from app.ui.common.pdf_pages import pdf_from_html

    html = report_like(fillers)
    pdf = tmp_path / "report.pdf"
    pdf_from_html(html, pdf)
    assert pdf_problems(html, pdf) == []


def test_the_reading_sees_what_qt_does_alone(tmp_path: Path) -> None:
    """The check can fail: Qt alone cuts a row in two where a page ends in it, and paints a
    paragraph's line on two pages; LinkLab's pages do neither."""
    from app.ui.common.pdf_pages import pdf_from_html

    cut = []
    for fillers in range(0, 60, 3):
        html = tall_rows(fillers)
        plain, ours = tmp_path / f"plain-{fillers}.pdf", tmp_path / f"ours-{fillers}.pdf"
        plain_qt_pdf(html, plain)
        if any(p.startswith("row not whole") for p in pdf_problems(html, plain)):
            cut.append(fillers)
            pdf_from_html(html, ours)
            assert pdf_problems(html, ours) == []
    assert cut, "no page's end fell inside a row"
    findings = report_like(7)
    plain_qt_pdf(findings, tmp_path / "findings.pdf")
    assert any(
        " times in the PDF: " in p for p in pdf_problems(findings, tmp_path / "findings.pdf")
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(1, 7), st.integers(0, 4)), min_size=4, max_size=14
    )
)
def test_any_mix_of_text_and_tables_keeps_every_row_whole(
    tmp_path_factory: pytest.TempPathFactory, sections: list[tuple[int, int, int]]
) -> None:
    from app.ui.common.pdf_pages import pdf_from_html

    parts = []
    for number, (lines, rows, items) in enumerate(sections):
        parts += [f"<p>Section {number} line {k} of filler text.</p>" for k in range(lines)]
        parts.append(f"<h4>Table {number}</h4>")
        parts.append(table(["Value", "Interval", "Verdict"], difference_rows(rows, 100 * number)))
        parts += [
            f"<ul><li>Item {number}.{k}: "
            + "words that wrap the line again " * (3 + k)
            + "</li></ul>"
            for k in range(items)
        ]
    html = page(parts)
    pdf = tmp_path_factory.mktemp("pdf") / "mix.pdf"
    pdf_from_html(html, pdf)
    assert pdf_problems(html, pdf) == []


def test_a_break_is_written_into_the_tag_it_belongs_to() -> None:
    html = page(
        [
            "<h4>First</h4>",
            '<p style="color: red">Two</p>',
            table(["H"], ["<td>a</td>", "<td>b</td>"]),
        ]
    )
    found = marks(html)
    assert [b.words for b in found.blocks] == [("First",), ("Two",)]
    broken = break_before(html, found.blocks[1].offset)
    assert '<p style="page-break-before: always; color: red">Two</p>' in broken
    split = split_table(html, found.tables[0], 1)
    assert split.count("<table") == 2 and split.count("<thead>") == 2
    assert outline(split).rows == ["H", "a", "H", "b"]
