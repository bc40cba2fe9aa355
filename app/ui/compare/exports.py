"""A comparison's exports from the Compare tab: the chart as a PNG of a size the user picks,
the difference table as CSV, and the report as HTML or PDF."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog, QWidget

from app.analysis.compare import Comparison
from app.report.compare_export import comparison_csv
from app.study.frontdoor import FrontDoor
from app.ui.common.file_dialogs import save_file

PNG_SIZES = [(1200, 700), (1600, 900), (1920, 1080), (2400, 1400), (800, 500)]
#: (kind, the button's text, its tip), in the order of the tab's buttons.
EXPORTS = (
    ("png", "Chart PNG…", "Save the chart as a print-friendly PNG."),
    ("csv", "Table CSV…", "Save the difference table for a spreadsheet."),
    (
        "html",
        "HTML report…",
        "A self-contained report: warnings, chart, pairs with their mean ± SD "
        "tables, a typical run of each side over time, findings and sessions.",
    ),
    ("pdf", "PDF report…", "The same report as PDF."),
)
FILTERS = {
    "png": "PNG image (*.png)",
    "csv": "CSV (*.csv)",
    "html": "HTML report (*.html)",
    "pdf": "PDF (*.pdf)",
}


def ask_export(
    parent: QWidget, settings: QSettings, kind: str
) -> tuple[Path, tuple[int, int]] | None:
    """The file to write (and a PNG's size, asked first), or None when the user cancels."""
    size = PNG_SIZES[0]
    if kind == "png":
        text, ok = QInputDialog.getItem(
            parent,
            "Chart size",
            "Size of the PNG in pixels (white, print-friendly):",
            [f"{w}x{h}" for w, h in PNG_SIZES],
            0,
            False,
        )
        if not ok:
            return None
        width, _, height = text.partition("x")
        size = (int(width), int(height))
    path = save_file(parent, settings, "export", "Export", f"comparison.{kind}", FILTERS[kind])
    return (path, size) if path else None


def write_export(
    comparison: Comparison, door: FrontDoor, kind: str, path: Path, png_size: tuple[int, int]
) -> None:
    """Write the export; OSError or LinkLabError when it cannot be written."""
    if kind == "csv":
        path.write_text(comparison_csv(comparison), encoding="utf-8", newline="")
    else:
        from app.report.report_data import collect
        from app.ui.common.report_files import write_outputs

        data = collect(comparison, door)
        write_outputs(data, png_size=png_size, **{kind: str(path)})
