"""One session's own exports, from its view and the list's context menu: its runs as CSV, and
its report as HTML or PDF (the report of `linklab export`): a sweep's series side by side, a
monitor over time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from app.domain.errors import BadOption, LinkLabError
from app.domain.records import SessionRecord
from app.report.csv_export import runs_csv
from app.study.frontdoor import FrontDoor
from app.ui.common.file_dialogs import save_file
from app.ui.common.saved import confirm_saved


@dataclass(frozen=True)
class ExportKind:
    key: str
    button: str  # the view's button
    menu: str  # the list's context menu
    tip: str
    suffix: str
    filter: str
    what: str  # as the confirmation names it


EXPORTS = (
    ExportKind(
        "csv",
        "Export CSV…",
        "Export runs as CSV…",
        "Every run of this session, one row each, for a spreadsheet.",
        "csv",
        "CSV (*.csv)",
        "its runs as CSV",
    ),
    ExportKind(
        "html",
        "Export HTML…",
        "Export HTML report…",
        "A self-contained report of this session: chart, its series in pairs, mean ± SD "
        "tables, a typical run over time, the plan and conditions (a monitor: its chart over "
        "time, its figures and its runs).",
        "html",
        "HTML report (*.html)",
        "its HTML report",
    ),
    ExportKind(
        "pdf",
        "Export PDF…",
        "Export PDF report…",
        "The same report as a PDF on A4 pages.",
        "pdf",
        "PDF (*.pdf)",
        "its PDF report",
    ),
)
BY_KEY = {kind.key: kind for kind in EXPORTS}


def can_compare_within(session: SessionRecord) -> bool:
    """Whether the session's own series can be compared with each other (two or more)."""
    return not session.plan.is_monitor and len(session.plan.series) >= 2


def file_name(session: SessionRecord, suffix: str) -> str:
    """A file name from the session's name: letters, digits, dashes, at most 60 characters."""
    words = "".join(c if c.isalnum() else "-" for c in (session.name or session.short_id))
    stem = "-".join(part for part in words.split("-") if part)[:60].strip("-")
    return f"{stem or session.short_id}.{suffix}"


def write_export(door: FrontDoor, session: SessionRecord, key: str, path: Path) -> None:
    """Write the session's export of that kind; raises LinkLabError with a sentence."""
    if key == "csv":
        text = runs_csv(session, door.sessions().runs(session.id))
        try:
            path.write_text(text, encoding="utf-8", newline="")
        except OSError as err:
            reason = err.strerror or type(err).__name__
            raise BadOption(f"Cannot write {path} ({reason}): choose another place.") from None
        return
    if session.plan.is_monitor:
        from app.ui.monitor.report import write_monitor_report

        monitor = door.sessions().monitor(session)
        write_monitor_report(monitor, **{key: path})
        return
    from app.report.report_data import collect, sessions_comparison
    from app.ui.common.report_files import write_outputs

    data = collect(sessions_comparison(door, [session.id]), door)
    if key == "html":
        write_outputs(data, html=path)
    else:
        write_outputs(data, pdf=path)


class SessionExports:
    """Asks where to save one session's export and writes it, saying what happened."""

    def __init__(
        self,
        parent: QWidget,
        settings: QSettings,
        door: Callable[[], FrontDoor],
        said: Callable[[str, bool], None],
    ) -> None:
        self._parent = parent
        self._settings = settings
        self._door = door
        self._said = said

    def ask(self, session: SessionRecord, key: str) -> None:
        kind = BY_KEY[key]
        path = save_file(
            self._parent,
            self._settings,
            "export",
            f"Export {session.name or session.short_id}",
            file_name(session, kind.suffix),
            kind.filter,
        )
        if path is not None:
            self.export_to(session, key, path)

    def export_to(self, session: SessionRecord, key: str, path: Path) -> bool:
        try:
            write_export(self._door(), session, key, path)
        except LinkLabError as err:
            self._said(err.sentence, True)
            return False
        name = session.name or session.short_id
        self._said(f"Saved {path.name}: {BY_KEY[key].what} of “{name}”.", False)
        confirm_saved(self._parent, path)
        return True
