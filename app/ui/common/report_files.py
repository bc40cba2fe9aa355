"""Writes a comparison's PNG chart, HTML report and PDF report: the charts are drawn here
(the window layer), the pages by app.report. Qt is loaded only when one of them is asked for."""

from __future__ import annotations

from pathlib import Path

from app.domain.errors import BadOption
from app.report.html_report import report_html
from app.report.lab_report import LabReport, lab_report_html
from app.report.report_data import ReportData
from app.study.lab.together_results import TogetherResult


def _write(path: str | Path, data: bytes) -> None:
    try:
        Path(path).write_bytes(data)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise BadOption(f"Cannot write {path} ({reason}): choose another place.") from None


def write_outputs(
    data: ReportData,
    *,
    png: str | Path | None = None,
    html: str | Path | None = None,
    pdf: str | Path | None = None,
    png_size: tuple[int, int] = (1200, 700),
) -> list[Path]:
    """Write each requested file and return their paths; an unwritable path raises
    BadOption with a sentence."""
    if not (png or html or pdf):
        return []
    from app.ui.common.chart_style import comparison_styles
    from app.ui.common.pdf_pages import pdf_from_html
    from app.ui.common.render_charts import chart_png, timeline_chart, widget_png

    comparison = data.comparison
    chart = chart_png(comparison, None)  # the report's own chart: a fixed, readable size
    if png:
        width, height = png_size
        resized = (width, height) != (1200, 700)
        _write(png, chart_png(comparison, None, width, height) if resized else chart)
    if html or pdf:
        styles = comparison_styles(comparison)
        timelines = {
            title: widget_png(
                timeline_chart(
                    f"Throughput over time: {title}",
                    [(t.label, t.points()) for t in lines],
                    styles,
                ),
                1200,
                420,
            )
            for title, lines in data.timelines
        }
        page = report_html(data, chart, timelines)
        if html:
            _write(html, page.encode("utf-8"))
        if pdf:
            _write(pdf, pdf_from_html(page, None))
    return [Path(p) for p in (png, html, pdf) if p]


LAB_REPORT_KINDS = (".html", ".pdf", ".docx")


def write_lab_report(report: LabReport, path: str | Path) -> Path:
    """The student's lab report as HTML, PDF or an editable .docx, by the name's ending."""
    path = Path(path)
    kind = path.suffix.lower()
    if kind not in LAB_REPORT_KINDS:
        raise BadOption(
            f"A lab report is written as {', '.join(LAB_REPORT_KINDS)}: end the file name "
            f"with one of them."
        )
    from app.ui.common.render_charts import build_chart, widget_png

    charts = {
        step.number: widget_png(build_chart(step.comparison), 1200, 640)
        for step in report.steps
        if step.comparison is not None
    }
    if kind == ".docx":
        from app.report.lab_docx import write_lab_docx

        return write_lab_docx(report, charts, path)
    page = lab_report_html(report, charts)
    if kind == ".html":
        _write(path, page.encode("utf-8"))
    else:
        from app.ui.common.pdf_pages import pdf_from_html

        _write(path, pdf_from_html(page, None))
    return path


TOGETHER_REPORT_KINDS = (".html", ".pdf")


def write_together_report(result: TogetherResult, path: str | Path, title: str = "") -> Path:
    """The class report of a class measured together, as HTML or PDF by the name's ending."""
    path = Path(path)
    kind = path.suffix.lower()
    if kind not in TOGETHER_REPORT_KINDS:
        raise BadOption(
            "A class report is written as .html or .pdf: end the file name with one of them."
        )
    from app.report.together_export import together_html
    from app.ui.common.together_chart import together_png

    page = together_html(result, together_png(result), title)
    if kind == ".html":
        _write(path, page.encode("utf-8"))
    else:
        from app.ui.common.pdf_pages import pdf_from_html

        _write(path, pdf_from_html(page, None))
    return path
