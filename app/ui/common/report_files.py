"""Writes a comparison's PNG chart, HTML report and PDF report. Qt is loaded only when one of
them is asked for: the drawing itself is render_charts.py's job."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.analysis.compare import Comparison
from app.domain.errors import BadOption
from app.domain.records import SessionRecord
from app.report.html_report import report_html


def compared_sessions(comparison: Comparison) -> list[SessionRecord]:
    """The distinct sessions behind the compared curves, baseline first."""
    curves = [comparison.baseline, *(r.other for r in comparison.results)]
    found: dict[str, SessionRecord] = {}
    for curve in curves:
        found.setdefault(curve.session.id, curve.session)
    return list(found.values())


def _write(path: str | Path, data: bytes) -> None:
    try:
        Path(path).write_bytes(data)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise BadOption(f"Cannot write {path} ({reason}): choose another place.") from None


def write_outputs(
    comparison: Comparison,
    *,
    png: str | Path | None = None,
    html: str | Path | None = None,
    pdf: str | Path | None = None,
    sessions: Sequence[SessionRecord] | None = None,
    png_size: tuple[int, int] = (1200, 700),
) -> list[Path]:
    """Write each requested file and return their paths; an unwritable path raises
    BadOption with a sentence."""
    if not (png or html or pdf):
        return []
    from app.ui.common.render_charts import chart_png, pdf_from_html  # Qt only from here on

    chart = chart_png(comparison, None)  # the report's own chart: a fixed, readable size
    if png:
        width, height = png_size
        _write(
            png,
            chart
            if png_size == (1200, 700)
            else chart_png(comparison, None, width=width, height=height),
        )
    if html or pdf:
        chosen = compared_sessions(comparison) if sessions is None else list(sessions)
        page = report_html(comparison, chart, chosen)
        if html:
            _write(html, page.encode("utf-8"))
        if pdf:
            _write(pdf, pdf_from_html(page, None))
    return [Path(p) for p in (png, html, pdf) if p]
