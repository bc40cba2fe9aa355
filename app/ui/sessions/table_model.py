"""The Sessions list as a table model: stored sessions and kept responsiveness results, one per
row, newest first, each row saying which kind it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QHeaderView,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionHeader,
    QTableView,
    QWidget,
)

from app.domain.records import SessionRecord, UnreadableSession
from app.domain.units import DASH, counted
from app.study.responsiveness.kept import KeptResult
from app.study.responsiveness.results import LOAD_PHASES, Phase, rpm_number
from app.study.sweep.describe import local_time
from app.study.sweep.listing import UNTITLED, listed_words, shows, unreadable_shows

COLUMNS = ("Date", "Name", "Peer", "Protocol", "IP", "Conditions", "Status", "Runs", "Kind")
STRETCHED = 5  # the conditions (or a result's RPM): the column that takes the spare width
RUNS_COLUMN = 7
#: The rows shown above the session on view, until the user moves the splitter (then as left).
LIST_ROWS = 5
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_SWEEP = "Sweep"
KIND_MONITOR = "Monitor"
KIND_RESPONSIVENESS = "Responsiveness"
SHORT = {Phase.DOWNLOAD: "Down", Phase.UPLOAD: "Up", Phase.BOTH: "Both"}

#: How a session that cannot be read (or is damaged) is marked in the list.
UNREADABLE_STATUS = "cannot be read"
DAMAGED_MARK = " (damaged)"
PROBLEM_COLOUR = QColor("#D55E00")  # the tab's colour for what went wrong

Index = QModelIndex | QPersistentModelIndex
Row = SessionRecord | KeptResult | UnreadableSession


def rpm_summary(kept: KeptResult) -> str:
    """A result's RPM per direction in a few words: “Down 7,500 · Up 6,000 · Both 3,000 RPM”."""
    parts = [
        f"{SHORT[phase]} {rpm_number(load.rpm)}"
        for phase in LOAD_PHASES
        if (load := kept.result.load(phase)) is not None
    ]
    return " · ".join(parts) + " RPM" if parts else DASH


class SessionTableModel(QAbstractTableModel):
    """The rows, newest first as handed in (sessions and results merged by time)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        #: Session id -> what of it cannot be read, in a sentence (the row's tooltip).
        self.problems: dict[str, str] = {}

    @property
    def sessions(self) -> list[SessionRecord]:
        return [row for row in self.rows if isinstance(row, SessionRecord)]

    def set_rows(self, rows: list[Row], problems: Mapping[str, str] | None = None) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.problems = dict(problems or {})
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation is not Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == 0:
            return "When the session started, in this computer's local time."
        if role == Qt.ItemDataRole.ToolTipRole and section == len(COLUMNS) - 1:
            return "A session of runs, or a responsiveness test's result."
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(row)[column]
        if role == SORT_ROLE:
            if column == 0:
                return row_time(row)
            if column == RUNS_COLUMN:
                if not isinstance(row, SessionRecord):
                    return -1.0
                return row.runs_done / max(row.total_runs, 1)
            return self.cells(row)[column].lower()
        problem = self.problems.get(row.id) if not isinstance(row, KeptResult) else None
        if role == Qt.ItemDataRole.ForegroundRole and problem:
            return PROBLEM_COLOUR
        if role == Qt.ItemDataRole.ToolTipRole:
            if problem:
                return problem
            if isinstance(row, KeptResult):
                return "A responsiveness result: select it to see its card and chart."
            assert isinstance(row, SessionRecord)
            return _session_tip(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == RUNS_COLUMN:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    @staticmethod
    def cells(row: Row) -> tuple[str, ...]:
        if isinstance(row, KeptResult):
            return (
                local_time(row.created_at),
                row.name,
                row.result.host,
                "TCP",
                DASH,
                rpm_summary(row),
                "completed",
                DASH,
                KIND_RESPONSIVENESS,
            )
        if isinstance(row, UnreadableSession):
            return (
                local_time(row.created_at),
                row.name or UNTITLED,
                DASH,
                DASH,
                DASH,
                DASH,
                UNREADABLE_STATUS,
                f"{row.runs_done}/?",
                DASH,
            )
        plan = row.plan
        name, peer, conditions = listed_words(row)  # the words a search matches
        return (
            local_time(row.started_at or row.created_at),
            name,
            peer,
            "/".join(p.value.upper() for p in plan.protocols),
            "/".join(f"IPv{int(v)}" for v in plan.ip_versions),
            conditions,
            status_words(row) + (DAMAGED_MARK if row.damaged else ""),
            f"{row.runs_done}/{row.total_runs}",
            KIND_MONITOR if plan.is_monitor else KIND_SWEEP,
        )


def _session_tip(session: SessionRecord, column: int) -> str | None:
    if column == 6 and session.status_reason:
        return session.status_reason
    if column == 5 and session.conditions.notes:
        return session.conditions.notes
    if column == RUNS_COLUMN and (session.runs_failed or session.runs_partial):
        failed = f"{session.runs_failed} of the runs failed." if session.runs_failed else ""
        partial = (
            f" {session.runs_partial} never finished or were tried again (kept, not counted)."
            if session.runs_partial
            else ""
        )
        return (failed + partial).strip()
    return None


def status_words(session: SessionRecord) -> str:
    """A session's status as the list shows it (the one wording, SessionRecord.status_text)."""
    return session.status_text


def count_text(
    sessions: Sequence[SessionRecord],
    results: Sequence[KeptResult],
    search: str,
    unreadable: Sequence[UnreadableSession] = (),
) -> str:
    """How many rows the list shows (how many cannot be read), and what a search matched in
    them: the words they show (name, peer, conditions), and how many only by their id."""
    count, n, bad = len(sessions) + len(unreadable), len(results), len(unreadable)
    found = counted(count, "session")
    if bad:
        found += f" ({bad} cannot be read: select {'it' if bad == 1 else 'one'})"
    if n and not count:
        found = counted(n, "responsiveness result")
    elif n:
        found += f", {counted(n, 'responsiveness result')}"
    if not search:
        return f"{found}."
    by_id = (
        sum(not s.shows(search) for s in results)
        + sum(not shows(session, search) for session in sessions)
        + sum(not unreadable_shows(row, search) for row in unreadable)
    )
    ids = f" ({by_id} by the start of {'its' if by_id == 1 else 'their'} id)" if by_id else ""
    return f"{found} matching {search!r} in the name, peer or conditions{ids}."


def rows_height(table: QTableView, rows: int) -> int:
    """The height of a list holding its header and that many rows."""
    header = table.horizontalHeader().sizeHint().height()
    return header + rows * table.verticalHeader().defaultSectionSize() + 2 * table.frameWidth()


def row_time(row: Row) -> str:
    if isinstance(row, KeptResult | UnreadableSession):
        return row.created_at
    return row.started_at or row.created_at


class SortArrowStyle(QProxyStyle):
    """The sort arrow points the way the values run down the column: newest first (a
    descending date) points down. Qt's header asks the style for the opposite arrow."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element is QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(
            option, QStyleOptionHeader
        ):
            flipped = QStyleOptionHeader(option)
            swap = {
                QStyleOptionHeader.SortIndicator.SortUp: QStyleOptionHeader.SortIndicator.SortDown,
                QStyleOptionHeader.SortIndicator.SortDown: QStyleOptionHeader.SortIndicator.SortUp,
            }
            flipped.sortIndicator = swap.get(option.sortIndicator, option.sortIndicator)
            option = flipped
        super().drawPrimitive(element, option, painter, widget)


def point_sort_arrows(header: QHeaderView) -> None:
    """The header's sort arrow drawn by SortArrowStyle (kept alive by the header)."""
    style = SortArrowStyle(header.style().name())
    style.setParent(header)
    header.setStyle(style)
