"""The files a kept responsiveness result exports to (CSV, JSON, the card as PNG, an HTML
report), for the window and the command line alike: the card and the chart are drawn here, the
tables and pages by app.report."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.domain.errors import BadOption
from app.report.responsiveness_export import result_csv, result_html, result_json
from app.study.responsiveness.kept import KeptResult
from app.study.sweep.describe import local_time

KINDS = ("csv", "json", "png", "html")
#: The card as a PNG is this wide, its height what the card needs at that width.
CARD_WIDTH = 960
CHART_SIZE = (1200, 640)


def card_title(kept: KeptResult) -> str:
    return f"{kept.name} — {local_time(kept.created_at)}"


def card_png(kept: KeptResult) -> bytes:
    """The result card as the window draws it, painted offscreen on white."""
    from app.ui.common.render_charts import ensure_application, painted_png
    from app.ui.responsiveness.card import ResultCard

    app = ensure_application()
    card = ResultCard()
    card.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)  # laid out, never shown
    card.show_result(kept.result, card_title(kept))
    card.resize(CARD_WIDTH, card.sizeHint().height())
    app.processEvents()
    layout = card.layout()
    needed = layout.totalHeightForWidth(CARD_WIDTH) if layout is not None else 0
    height = max(needed, card.minimumSizeHint().height(), card.sizeHint().height())
    card.resize(CARD_WIDTH, height)
    try:
        return painted_png(card, CARD_WIDTH, height)
    finally:
        card.close()
        card.deleteLater()


def chart_png(kept: KeptResult) -> bytes:
    """Goodput and latency per step over time, print-friendly (white, black axes)."""
    from app.ui.common.render_charts import ensure_application, painted_png
    from app.ui.responsiveness.time_chart import ResponsivenessTimeChart

    ensure_application()
    chart = ResponsivenessTimeChart(print_friendly=True)
    chart.show_result(kept.result)
    try:
        return painted_png(chart, *CHART_SIZE)
    finally:
        chart.close()
        chart.deleteLater()


def write_result(kept: KeptResult, kind: str, path: str | Path) -> Path:
    """Write the result as kind (csv, json, png or html) to path; a sentence if it cannot."""
    if kind not in KINDS:
        raise BadOption(f"A responsiveness result exports as {', '.join(KINDS)}, not {kind}.")
    path = Path(path)
    data: str | bytes
    if kind == "csv":
        data = result_csv(kept)
    elif kind == "json":
        data = result_json(kept)
    elif kind == "png":
        data = card_png(kept)
    else:
        data = result_html(kept, card_png(kept), chart_png(kept))
    write_file(path, data)
    return path


def write_file(path: Path, data: str | bytes) -> None:
    """Text as UTF-8 (CSV with its byte-order mark as made), or bytes; a sentence if not."""
    try:
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8", newline="")
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise BadOption(f"Cannot write {path} ({reason}): choose another place.") from None
