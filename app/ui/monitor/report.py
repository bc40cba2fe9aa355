"""Writes a stored monitor's HTML and PDF report: its chart over the whole monitor is drawn here
(the window layer) as the Sessions view draws it, the page by app.report.monitor_report."""

from __future__ import annotations

from pathlib import Path

from app.domain.errors import BadOption
from app.domain.plan import Metric
from app.report.monitor_report import monitor_report_html
from app.study.sweep.monitor_record import MonitorRecord

#: The chart's size in the report: the three plots one above the other, readable on A4.
CHART_SIZE = (1200, 900)


def monitor_chart_png(monitor: MonitorRecord) -> bytes:
    """The monitor's whole history as its view in Sessions charts it."""
    from app.ui.common.chart_style import series_colour
    from app.ui.common.render_charts import ensure_application, painted_png
    from app.ui.monitor.chart import MonitorChart

    ensure_application()
    plan = monitor.session.plan
    chart = MonitorChart()
    try:
        chart.start(monitor.traces(), series_colour(plan.series[0]), Metric.LATENCY in plan.metrics)
        chart.set_window(None)
        chart.redraw()
        return painted_png(chart, *CHART_SIZE)
    finally:
        chart.close()
        chart.deleteLater()


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise BadOption(f"Cannot write {path} ({reason}): choose another place.") from None


def write_monitor_report(
    monitor: MonitorRecord, *, html: str | Path | None = None, pdf: str | Path | None = None
) -> list[Path]:
    """Write the report as HTML and/or PDF; an unwritable path raises BadOption."""
    from app.ui.common.pdf_pages import pdf_from_html

    page = monitor_report_html(monitor, monitor_chart_png(monitor))
    written = []
    if html:
        _write(Path(html), page.encode("utf-8"))
        written.append(Path(html))
    if pdf:
        _write(Path(pdf), pdf_from_html(page, None))
        written.append(Path(pdf))
    return written
