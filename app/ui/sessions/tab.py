"""The Sessions tab: every stored session, searchable, to open, rename, tag, delete or resume."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.records import RunRecord, SessionRecord, SessionStatus
from app.domain.tags import TagError, parse_tags, tags_text
from app.study.describe import describe_conditions, local_time
from app.study.frontdoor import FrontDoor
from app.ui.common.background import Background
from app.ui.common.widgets import ComboBox
from app.ui.context import AppContext
from app.ui.sessions.exchange import SessionExchange
from app.ui.sessions.view import SessionView

NO_SESSIONS = "No sessions yet: press Start on the Measure tab."
COLUMNS = ("Date", "Name", "Peer", "Protocol", "IP", "Conditions", "Status", "Runs")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_DELAY_MS = 200
EXPORT_TIP = "Save the selected sessions in one .linklab file for LinkLab on another computer."
IMPORT_TIP = "Add the sessions of .linklab files; those already here are skipped."

Index = QModelIndex | QPersistentModelIndex


class SessionTableModel(QAbstractTableModel):
    """The stored sessions, one per row, newest first as the store hands them out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sessions: list[SessionRecord] = []

    def set_sessions(self, sessions: list[SessionRecord]) -> None:
        self.beginResetModel()
        self.sessions = list(sessions)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's own default
        return 0 if parent.isValid() else len(self.sessions)

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
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        session = self.sessions[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(session)[column]
        if role == SORT_ROLE:
            if column == 0:
                return session.started_at or session.created_at
            if column == 7:
                return session.runs_done / max(session.total_runs, 1)
            return self.cells(session)[column].lower()
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 6 and session.status_reason:
                return session.status_reason
            if column == 5 and session.conditions.notes:
                return session.conditions.notes
            if column == 7 and (session.runs_failed or session.runs_partial):
                failed = f"{session.runs_failed} of the runs failed." if session.runs_failed else ""
                partial = (
                    f" {session.runs_partial} never finished (kept, not counted)."
                    if session.runs_partial
                    else ""
                )
                return (failed + partial).strip()
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 7:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    @staticmethod
    def cells(session: SessionRecord) -> tuple[str, ...]:
        plan = session.plan
        return (
            local_time(session.started_at or session.created_at),
            session.name or "Untitled session",
            plan.peer.name or session.peer_host,
            "/".join(p.value.upper() for p in plan.protocols),
            "/".join(f"IPv{int(v)}" for v in plan.ip_versions),
            describe_conditions(session.conditions),
            status_words(session),
            f"{session.runs_done}/{session.total_runs}",
        )


class TagsDialog(QDialog):
    """Free tags (KEY=VALUE per line) and notes of one session."""

    def __init__(self, session: SessionRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Tags and notes — {session.name or session.short_id}")
        conditions = session.conditions
        self.tags_edit = QPlainTextEdit(tags_text(conditions.tags, "\n"))
        self.tags_edit.setPlaceholderText("open\nroom=B12\nap=lab-ap-2")
        self.notes_edit = QPlainTextEdit(conditions.notes)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #D55E00")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Tags (a label or KEY=VALUE, one per line)", self.tags_edit)
        form.addRow("Notes", self.notes_edit)
        form.addRow(self.error)
        form.addRow(buttons)
        self.tags: dict[str, str] = conditions.tag_dict

    def accept(self) -> None:
        try:
            self.tags = parse_tags(self.tags_edit.toPlainText())
        except TagError as err:
            self.error.setText(str(err))
            return
        super().accept()

    @property
    def notes(self) -> str:
        return self.notes_edit.toPlainText().strip()


class SessionsTab(QWidget):
    """The list of sessions over the view of the one selected."""

    resume_requested = Signal(str)  # session id
    compare_requested = Signal(list)  # session ids, two or more

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.search = QLineEdit()
        self.search.setObjectName("sessions_search")
        self.search.setAccessibleName("Search sessions")
        self.search.setPlaceholderText("Search name, peer or conditions")
        self.search.setClearButtonEnabled(True)
        self.status_filter = ComboBox()
        self.status_filter.setObjectName("sessions_status_filter")
        self.status_filter.setAccessibleName("Status filter")
        self.status_filter.addItem("All statuses", "")
        for status in SessionStatus:
            self.status_filter.addItem(status.value.capitalize(), status.value)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.status_filter.currentIndexChanged.connect(lambda _index: self.refresh())

        self.model = SessionTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setObjectName("sessions_table")
        self.table.setAccessibleName("Sessions")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setMaximumSectionSize(360)  # a long name must not push the rest out of view
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _index: self.open_selected())
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)

        self._reader = Background(self)
        self._view_reader = Background(self)
        self._to_select: list[str] | None = None
        self._then: list[Callable[[], None]] = []
        self.exchange = SessionExchange(self, self)
        self.buttons: dict[str, QPushButton] = {}
        actions: list[tuple[str, str, str, Callable[[], object]]] = [
            ("open_button", "Open", "Show the selected session below.", self.open_shown),
            ("rename_button", "Rename…", "Give the session another name.", self.ask_rename),
            ("tags_button", "Tags && notes…", "Edit the session's tags and notes.", self.ask_tags),
            ("delete_button", "Delete…", "Delete the selected sessions.", self.ask_delete),
            ("resume_button", "Resume", "Run what is missing on the Measure tab.", self.resume),
            ("compare_button", "Compare", "Put two or more sessions side by side.", self.compare),
            ("export_button", "Export for another computer…", EXPORT_TIP, self.exchange.ask_export),
            ("import_button", "Import…", IMPORT_TIP, self.exchange.ask_import),
            ("refresh_button", "Refresh", "Read the database again.", self.refresh),
        ]
        bar = QHBoxLayout()
        bar.addWidget(self.search, 1)
        bar.addWidget(self.status_filter)
        bottom = QHBoxLayout()  # exchange files, next to the line that reports on them
        for name, text, tip, slot in actions:
            button = QPushButton(text)
            button.setObjectName(name)
            button.setToolTip(tip)
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            (bottom if name in ("export_button", "import_button") else bar).addWidget(button)
            self.buttons[name] = button

        self.status = QLabel()
        self.status.setObjectName("sessions_status")
        self.status.setAccessibleName("Sessions message")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # names from files are not markup
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view = SessionView(settings=context.settings)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.view)
        # A few rows of the list, the rest for the session on view (its chart above all).
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([120, 670])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)
        bottom.insertWidget(0, self.status, 1)
        layout.addLayout(bottom)
        self.update_actions()

    # -- reading: off the GUI thread, through the front door -------------------------------
    def show_error(self, sentence: str) -> None:
        self.status.setText(sentence)
        self.status.setStyleSheet("color: #D55E00")

    @property
    def reading(self) -> bool:
        """Whether a read of the database (the list, or the session on view) is on its way."""
        return self._reader.busy or self._view_reader.busy

    def refresh(
        self, select: Sequence[str] | None = None, then: Callable[[], None] | None = None
    ) -> None:
        """Read the list again (in the background), keeping the selection and the session on
        view (or selecting the given sessions); then() runs once the list is shown."""
        self._search_timer.stop()
        door = self.context.door()
        search = self.search.text().strip()
        status = self.status_filter.currentData() or None
        on_view = self.view.session_id

        def read() -> tuple[list[SessionRecord], list[RunRecord] | None]:
            sessions = door.sessions(search, status)
            shown = on_view is not None and any(s.id == on_view for s in sessions)
            return sessions, door.runs(on_view) if shown and on_view else None

        # Kept until a list arrives, even when a newer read replaces this one.
        if select is not None:
            self._to_select = list(select)
        if then is not None:
            self._then.append(then)
        self._reader.run(read, self._listed, self._unreadable)

    def _unreadable(self, sentence: str) -> None:
        self.show_error(sentence)
        self.model.set_sessions([])
        self.view.clear("The sessions cannot be shown: see the message below.")
        self.update_actions()

    def _listed(self, result: tuple[list[SessionRecord], list[RunRecord] | None]) -> None:
        sessions, runs = result
        selected = set(self.selected_ids())
        on_view = self.view.session_id
        by_id = {s.id: s for s in sessions}
        self.status.setStyleSheet("")
        self.status.setText(_count_text(len(sessions), self.search.text().strip()))
        self.model.set_sessions(sessions)
        for column in (c for c in range(len(COLUMNS)) if c != 5):
            self.table.resizeColumnToContents(column)
        self._select(selected)
        if on_view in by_id and runs is not None:
            self.view.show_session(by_id[on_view], runs)
        elif not sessions:
            filtered = self.search.text().strip() or self.status_filter.currentData()
            self.view.clear("No session matches the search." if filtered else NO_SESSIONS)
            self.status.setText("" if not filtered else self.status.text())
        else:
            self.view.clear()
        self.update_actions()
        chosen, self._to_select = self._to_select, None
        if chosen is not None:
            self.select_sessions(chosen)
        then, self._then = self._then, []
        for action in then:
            action()

    def _select(self, ids: set[str]) -> None:
        selection = self.table.selectionModel()
        selection.clearSelection()
        for row, session in enumerate(self.model.sessions):
            if session.id in ids:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                flags = QItemSelectionModel.SelectionFlag
                selection.select(index, flags.Select | flags.Rows)

    def selected_sessions(self) -> list[SessionRecord]:
        rows = self.table.selectionModel().selectedRows()
        ordered = sorted(rows, key=lambda index: index.row())
        return [self.model.sessions[self.proxy.mapToSource(i).row()] for i in ordered]

    def selected_ids(self) -> list[str]:
        return [s.id for s in self.selected_sessions()]

    def select_session(self, session_id: str) -> None:
        self._select({session_id})

    def select_sessions(self, session_ids: Sequence[str]) -> None:
        self._select(set(session_ids))
        if rows := self.table.selectionModel().selectedRows():
            self.table.scrollTo(rows[0])

    def _selection_changed(self, *_args: object) -> None:
        self.update_actions()
        chosen = self.selected_sessions()
        if len(chosen) == 1 and chosen[0].id != self.view.session_id:
            self.open_selected()

    def _single(self) -> SessionRecord | None:
        chosen = self.selected_sessions()
        return chosen[0] if len(chosen) == 1 else None

    def update_actions(self) -> None:
        count, single = len(self.selected_sessions()), self._single()
        for name in ("open_button", "rename_button", "tags_button"):
            self.buttons[name].setEnabled(single is not None)
        self.buttons["delete_button"].setEnabled(count > 0)
        self.buttons["resume_button"].setEnabled(
            single is not None and not FrontDoor.resume_problem(single)
        )
        self.buttons["compare_button"].setEnabled(count >= 2)
        self.buttons["export_button"].setEnabled(count > 0 and not self.exchange.busy)
        self.buttons["import_button"].setEnabled(not self.exchange.busy)

    # -- exchange files (the work runs in a worker thread) -------------------------------------
    def import_files(self, paths: Sequence[Path]) -> bool:
        return self.exchange.import_files(paths)

    def export_to(self, session_ids: Sequence[str], path: Path) -> bool:
        return self.exchange.export_to(session_ids, path)

    def open_selected(self) -> None:
        """Show the selected session below the list (its runs read in the background)."""
        session = self._single()
        if session is None:
            return
        door = self.context.door()
        self._view_reader.run(
            lambda: door.runs(session.id),
            lambda runs: self.view.show_session(session, runs),
            self.show_error,
        )

    def open_shown(self) -> None:
        """Open pressed (a selected row is shown already): the session gets most of the tab,
        and is named."""
        if (session := self._single()) is not None:
            self.open_selected()
            listed, shown = self.splitter.sizes()
            rows = min(listed, self.table.rowHeight(0) * 4 + 40)
            self.splitter.setSizes([rows, listed + shown - rows])
            self.status.setStyleSheet("")
            when = local_time(session.started_at or session.created_at)
            self.status.setText(
                f"Showing “{session.name}” ({when}): its charts, table and details below."
            )
            self.view.setFocus()

    # -- writing: through the front door, which decides what may be done -----------------
    def _change(self, action: Callable[[FrontDoor], object]) -> bool:
        """One change; the sentence on failure."""
        try:
            action(self.context.door())
        except LinkLabError as err:
            self.show_error(err.sentence)
            return False
        self.refresh()
        return True

    def rename_session(self, session_id: str, name: str) -> bool:
        return self._change(lambda door: door.rename(session_id, name))

    def set_tags(self, session_id: str, tags: dict[str, str], notes: str) -> bool:
        return self._change(lambda door: door.tag(session_id, tags, replace_all=True, notes=notes))

    def delete_sessions(self, session_ids: list[str]) -> bool:
        return self._change(lambda door: door.delete(session_ids))

    def ask_rename(self) -> None:
        if (session := self._single()) is None:
            return
        name, ok = QInputDialog.getText(
            self, "Rename session", "New name:", QLineEdit.EchoMode.Normal, session.name
        )
        if ok and name.strip():
            self.rename_session(session.id, name)

    def ask_tags(self) -> None:
        if (session := self._single()) is None:
            return
        dialog = TagsDialog(session, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_tags(session.id, dialog.tags, dialog.notes)

    def ask_delete(self) -> None:
        chosen = self.selected_sessions()
        if not chosen:
            return
        names = "\n".join(
            f"• {s.name or 'Untitled session'} ({s.short_id}), {_runs_text(s.runs_done)}"
            for s in chosen[:10]
        )
        more = f"\n… and {len(chosen) - 10} more" if len(chosen) > 10 else ""
        what = "this session" if len(chosen) == 1 else f"these {len(chosen)} sessions"
        answer = QMessageBox.question(
            self,
            "Delete sessions",
            f"Delete {what} and every run measured in it?\n\n{names}{more}\n\n"
            "This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_sessions([s.id for s in chosen])

    def resume(self) -> None:
        session = self._single()
        if session is not None and not FrontDoor.resume_problem(session):
            self.resume_requested.emit(session.id)

    def compare(self) -> None:
        ids = self.selected_ids()
        if len(ids) >= 2:
            self.compare_requested.emit(ids)


def _runs_text(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"


def _count_text(count: int, search: str) -> str:
    found = "1 session" if count == 1 else f"{count} sessions"
    return f"{found} matching {search!r}." if search else f"{found}."


def status_words(session: SessionRecord) -> str:
    """A session's status as the list shows it: a completed one with failed runs says so."""
    if session.status is SessionStatus.COMPLETED and session.runs_failed:
        return "completed with failures"
    return session.status.value
