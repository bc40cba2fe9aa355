"""The Sessions tab: every stored session and responsiveness result, searchable, to open,
rename, tag, delete, resume or compare."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import (
    QItemSelectionModel,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.records import SessionRecord, SessionStatus, UnreadableSession
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.comparison import ResponsivenessComparison
from app.study.responsiveness.kept import KeptResult
from app.study.studies import resume_problem
from app.study.sweep.describe import local_time
from app.ui.common.background import Background
from app.ui.common.remembered import remember_splitter
from app.ui.common.widgets import ComboBox, SteadyTable, compact_rows
from app.ui.context import AppContext
from app.ui.sessions import session_menu
from app.ui.sessions.exchange import SessionExchange
from app.ui.sessions.listing import Listed, read_listing
from app.ui.sessions.recently_deleted import TIP as DELETED_TIP
from app.ui.sessions.selection import enabled_buttons, several_words
from app.ui.sessions.session_exports import SessionExports, can_compare_within
from app.ui.sessions.shown_below import ShownBelow
from app.ui.sessions.table_model import (
    COLUMNS,
    LIST_ROWS,
    SORT_ROLE,
    STRETCHED,
    Row,
    SessionTableModel,
    count_text,
    point_sort_arrows,
    rows_height,
)

NO_SESSIONS = "No sessions yet: press Start on the Measure tab."
SEARCH_DELAY_MS = 200
EXPORT_TIP = "Save the selected sessions in one .linklab file for LinkLab on another computer."
IMPORT_TIP = "Add the sessions of .linklab files; those already here are skipped."
COMPARE_TIP = (
    "Two or more sessions side by side, one session's series, or two responsiveness results."
)


class SessionsTab(QWidget):
    """The list of sessions over the view of the one selected."""

    resume_requested = Signal(str)  # session id
    compare_requested = Signal(list)  # session ids: two or more, or one to compare within
    status_message = Signal(str)  # what was done, for the window's status bar
    #: What the selection is for (several rows selected), while this tab is on view; "" once
    #: it no longer holds. The window withdraws it when another tab is chosen.
    hint_changed = Signal(str)
    sessions_deleted = Signal(list)  # session ids, gone from the list
    sessions_restored = Signal(list)  # session ids brought back by Undo delete

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
        self.table: QTableView = SteadyTable()  # a double click opens the row it began on
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
        compact_rows(self.table)
        header = self.table.horizontalHeader()
        header.setMaximumSectionSize(360)  # a long name must not push the rest out of view
        point_sort_arrows(header)
        header.setSectionResizeMode(STRETCHED, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _index: self.open_selected())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(lambda pos: session_menu.show_menu(self, pos))
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)

        self._reader = Background(self)
        self._to_select: list[str] | None = None
        self._then: list[Callable[[], None]] = []
        self.exchange = SessionExchange(self, self)
        self.buttons: dict[str, QPushButton] = {}
        actions: list[tuple[str, str, str, Callable[[], object]]] = [
            ("open_button", "Open", "Show the selected session below.", self.open_shown),
            ("rename_button", "Rename…", "Give the session another name.", self.ask_rename),
            ("tags_button", "Tags && notes…", "Edit the session's tags and notes.", self.ask_tags),
            ("delete_button", "Delete…", "Delete the selected sessions.", self.ask_delete),
            ("resume_button", "Resume", "Measure its failed and missing runs again.", self.resume),
            ("compare_button", "Compare", COMPARE_TIP, self.compare),
            ("export_button", "Export for another computer…", EXPORT_TIP, self.exchange.ask_export),
            ("import_button", "Import…", IMPORT_TIP, self.exchange.ask_import),
            ("deleted_button", "Recently deleted…", DELETED_TIP, self.show_deleted),
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
            below = name in ("export_button", "import_button", "deleted_button")
            (bottom if below else bar).addWidget(button)
            self.buttons[name] = button

        self._several_said = ""  # what the message says of several rows selected, if it does
        self._restoring = False  # while a list read again gets its selection back
        self.status = QLabel()
        self.status.setObjectName("sessions_status")
        self.status.setAccessibleName("Sessions message")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # names from files are not markup
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The session on view, or the responsiveness result (or two compared) on view.
        self.shown = ShownBelow(context.settings, self.say, self.show_error)
        self.exports = SessionExports(self, context.settings, context.door, self.say)
        self.shown.view.export_asked.connect(lambda key: session_menu.export_shown(self, key))
        self.shown.view.compare_asked.connect(lambda: session_menu.compare_shown(self))
        self.undo = session_menu.UndoDelete(self)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.shown)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([rows_height(self.table, LIST_ROWS), 600])
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setObjectName("sessions_splitter")
        remember_splitter(self.splitter, context.settings, "sessions/list")
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.shown.nothing)
        bottom.insertWidget(0, self.status, 1)
        bottom.insertWidget(1, self.undo.button)
        layout.addLayout(bottom)
        self.update_actions()

    # -- reading: off the GUI thread, through the front door -------------------------------
    def show_error(self, sentence: str) -> None:
        self.status.setText(sentence)
        self.status.setStyleSheet("color: #D55E00")

    def say(self, sentence: str, problem: bool) -> None:
        if problem:
            self.show_error(sentence)
        else:
            self.status.setStyleSheet("")
            self.status.setText(sentence)
        self.status_message.emit(sentence)

    @property
    def reading(self) -> bool:
        """Whether a read of the database (the list, or the session on view) is on its way."""
        return self._reader.busy or self.shown.reading

    def refresh(
        self, select: Sequence[str] | None = None, then: Callable[[], None] | None = None
    ) -> None:
        """Read the list again (in the background), keeping the selection and the session on
        view (or selecting the given sessions); then() runs once the list is shown."""
        self._search_timer.stop()
        door = self.context.door()
        search = self.search.text().strip()
        status = self.status_filter.currentData() or None
        on_view = self.shown.view.session_id

        # Kept until a list arrives, even when a newer read replaces this one.
        if select is not None:
            self._to_select = list(select)
        if then is not None:
            self._then.append(then)
        read = partial(read_listing, door, search, status, on_view)  # off the GUI thread
        self._reader.run(read, self._listed, self._unreadable)

    def _unreadable(self, sentence: str) -> None:
        self.show_error(sentence)
        self.model.set_rows([])
        self.shown.message("The sessions cannot be shown: see the message below.")
        self.update_actions()

    def _listed(self, listed: Listed) -> None:
        rows, runs = listed.rows, listed.view
        sessions = [row for row in rows if isinstance(row, SessionRecord)]
        results = [row for row in rows if isinstance(row, KeptResult)]
        unreadable = [row for row in rows if isinstance(row, UnreadableSession)]
        selected = {row.id for row in self.selected_rows()}
        on_view = self.shown.view.session_id
        result_on_view = self.shown.results_view.result_id
        by_id = {s.id: s for s in sessions}
        self.status.setStyleSheet("")
        self.status.setText(count_text(sessions, results, self.search.text().strip(), unreadable))
        self._restoring = True
        try:
            self.model.set_rows(rows, listed.problems)
            for column in (c for c in range(len(COLUMNS)) if c != STRETCHED):
                self.table.resizeColumnToContents(column)
            self._select(selected)
        finally:
            self._restoring = False
        self.update_actions()
        if len(self.selected_rows()) <= 1 and self._several_said:
            self.hint_changed.emit("")  # the rows selected are gone from the list
            self._several_said = ""
        kept_on_view = next((r for r in results if r.id == result_on_view), None)
        if self.shown.showing_result and kept_on_view is not None:
            self._open_result(kept_on_view)  # renamed, perhaps: read again
        elif on_view in by_id:
            if runs is not None:  # else opened while this list was read: its own read shows it
                self.shown.view.show_session(by_id[on_view], *runs)
        elif not rows:
            filtered = self.search.text().strip() or self.status_filter.currentData()
            self.shown.view.clear("No session matches the search." if filtered else NO_SESSIONS)
            self.status.setText("" if not filtered else self.status.text())
        else:
            self.shown.message()
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
        for row, item in enumerate(self.model.rows):
            if item.id in ids:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                flags = QItemSelectionModel.SelectionFlag
                selection.select(index, flags.Select | flags.Rows)

    def selected_rows(self) -> list[Row]:
        """The selected sessions and results, in the list's order."""
        rows = self.table.selectionModel().selectedRows()
        ordered = sorted(rows, key=lambda index: index.row())
        return [self.model.rows[self.proxy.mapToSource(i).row()] for i in ordered]

    def selected_sessions(self) -> list[SessionRecord]:
        return [row for row in self.selected_rows() if isinstance(row, SessionRecord)]

    def selected_results(self) -> list[KeptResult]:
        return [row for row in self.selected_rows() if isinstance(row, KeptResult)]

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
        chosen = self.selected_rows()
        if self._restoring:
            return  # the list read again, its selection put back: nothing new to say
        if len(chosen) > 1:
            self._several_said = self._several_words(chosen)
            self.status.setStyleSheet("")
            self.status.setText(self._several_said)
            self.hint_changed.emit(self._several_said)
        elif self._several_said:
            if self.status.text() == self._several_said:
                self.status.setText("")  # said of a selection there no longer is
            self.hint_changed.emit("")
        if len(chosen) <= 1:
            self._several_said = ""
        if len(chosen) != 1:
            return
        (row,) = chosen
        if isinstance(row, KeptResult):
            if row.id != self.shown.results_view.result_id:
                self._open_result(row)
        elif isinstance(row, UnreadableSession):
            self._show_unreadable(row)
        elif (
            row.id != self.shown.view.session_id
            or self.shown.currentWidget() is not self.shown.view
        ):
            self.open_selected()

    def _several_words(self, chosen: Sequence[object]) -> str:
        view = self.shown.view
        on_view = view.session_id if self.shown.currentWidget() is view else None
        can_compare = self.buttons["compare_button"].isEnabled()
        return several_words(chosen, on_view, view.session_name, can_compare)

    def _show_unreadable(self, row: UnreadableSession) -> None:
        """A session that cannot be read: what cannot, and what to do, in place of its view."""
        sentence = self.model.problems.get(row.id, "")
        self.shown.message(sentence)
        self.show_error(sentence)

    def single_session(self) -> SessionRecord | None:
        chosen = self.selected_rows()
        return chosen[0] if len(chosen) == 1 and isinstance(chosen[0], SessionRecord) else None

    def update_actions(self) -> None:
        for name, enabled in enabled_buttons(self.selected_rows(), self.exchange.busy).items():
            self.buttons[name].setEnabled(enabled)

    # -- exchange files (the work runs in a worker thread) -------------------------------------
    def import_files(self, paths: Sequence[Path]) -> bool:
        return self.exchange.import_files(paths)

    def export_to(self, session_ids: Sequence[str], path: Path) -> bool:
        return self.exchange.export_to(session_ids, path)

    def open_selected(self) -> None:
        """Show the selected session (or result) below the list, read in the background."""
        chosen = self.selected_rows()
        if len(chosen) == 1 and isinstance(chosen[0], KeptResult):
            self._open_result(chosen[0])
            return
        if len(chosen) == 1 and isinstance(chosen[0], UnreadableSession):
            self._show_unreadable(chosen[0])
            return
        session = self.single_session()
        if session is None:
            return
        self.shown.open_session(self.context.door(), session, lambda: self._damage_said(session))

    def _damage_said(self, session: SessionRecord) -> None:
        if problem := self.model.problems.get(session.id):
            self.show_error(problem)  # damaged: what is shown in place of what

    def _open_result(self, listed: KeptResult) -> None:
        self.shown.open_result(self.context.door(), listed.id)

    def compare_results(self, ids: Sequence[str]) -> None:
        """Two results compared below the list, the older one the baseline."""
        self.shown.compare_results(self.context.door(), ids, self._comparing)

    def _comparing(self, comparison: ResponsivenessComparison) -> None:
        self.status.setStyleSheet("")
        baseline, other = comparison.names
        self.status.setText(f"Comparing “{other}” with “{baseline}” below.")

    def open_shown(self) -> None:
        """Open pressed: the session is named, takes the keyboard and, squeezed, the room."""
        chosen = self.selected_rows()
        if len(chosen) == 1 and isinstance(chosen[0], KeptResult):
            self._open_result(chosen[0])
            self.status.setStyleSheet("")
            self.status.setText(f"Showing “{chosen[0].name}”: its card and chart below.")
            return
        if len(chosen) == 1 and isinstance(chosen[0], UnreadableSession):
            self._show_unreadable(chosen[0])
            return
        if (session := self.single_session()) is not None:
            self.open_selected()
            listed, shown = self.splitter.sizes()
            if shown < 2 * listed:  # squeezed below reading: the session gets most of the tab
                rows = min(listed, rows_height(self.table, LIST_ROWS))
                self.splitter.setSizes([rows, listed + shown - rows])
            self.status.setStyleSheet("")
            when = local_time(session.started_at or session.created_at)
            self.status.setText(
                f"Showing “{session.name}” ({when}): its charts, table and details below."
            )
            self.shown.view.setFocus()

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
        return self._change(lambda door: door.sessions().rename(session_id, name))

    def set_tags(self, session_id: str, tags: dict[str, str], notes: str) -> bool:
        return self._change(
            lambda door: door.sessions().tag(session_id, tags, replace_all=True, notes=notes)
        )

    def rename_result(self, result_id: str, name: str) -> bool:
        return self._change(lambda door: door.results().rename(result_id, name))

    def delete_rows(self, session_ids: list[str], result_ids: list[str]) -> bool:
        deleted: list[SessionRecord] = []

        def both(door: FrontDoor) -> None:
            if result_ids:
                door.results().delete(result_ids)
            if session_ids:
                deleted.extend(door.sessions().delete(session_ids))

        if not self._change(both):
            return False
        if deleted:
            self.undo.offer(deleted)
            self.sessions_deleted.emit([s.id for s in deleted])
        return True

    def ask_rename(self) -> None:
        session_menu.ask_rename(self)

    def ask_tags(self) -> None:
        session_menu.ask_tags(self)

    def ask_delete(self) -> None:
        session_menu.ask_delete(self)

    def show_deleted(self) -> None:
        session_menu.show_deleted(self, self.undo)

    def resume(self) -> None:
        session = self.single_session()
        if session is not None and not resume_problem(session):
            self.resume_requested.emit(session.id)

    def compare(self) -> None:
        results = self.selected_results()
        if len(results) == 2 and not self.selected_sessions():
            self.compare_results([r.id for r in results])
            return
        ids = self.selected_ids()
        if len(ids) >= 2 and not results:
            self.compare_requested.emit(ids)
        elif (single := self.single_session()) is not None and can_compare_within(single):
            self.compare_requested.emit([single.id])
