"""The Sessions list's context menu (what its buttons and the session's view offer, by the row
clicked), renaming and tagging, deleting with a question first, Undo of the last delete while
it can be undone, and the sessions deleted within the day brought back (Recently deleted…)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import (
    QDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QTableView,
)

from app.domain.errors import LinkLabError
from app.domain.records import SessionRecord
from app.domain.units import counted
from app.study.responsiveness.kept import KeptResult
from app.study.stored_sessions import DELETED_KEPT
from app.study.sweep.describe import local_time
from app.ui.context import AppContext
from app.ui.sessions.recently_deleted import show_recently_deleted
from app.ui.sessions.session_exports import (
    EXPORTS,
    SessionExports,
    can_compare_within,
)
from app.ui.sessions.shown_below import ShownBelow
from app.ui.sessions.table_model import Row, SessionTableModel
from app.ui.sessions.tags_dialog import TagsDialog


class SessionsTab(Protocol):
    """What of the Sessions tab its menu, its deleting and its Undo use."""

    context: AppContext
    table: QTableView
    model: SessionTableModel
    shown: ShownBelow
    status: QLabel
    buttons: dict[str, QPushButton]
    exports: SessionExports
    compare_requested: Any  # the tab's signal: session ids
    sessions_restored: Any  # the tab's signal: session ids brought back by Undo

    def selected_rows(self) -> list[Row]: ...
    def single_session(self) -> SessionRecord | None: ...
    def say(self, sentence: str, problem: bool) -> None: ...
    def show_error(self, sentence: str) -> None: ...
    def delete_rows(self, session_ids: list[str], result_ids: list[str]) -> bool: ...
    def rename_session(self, session_id: str, name: str) -> bool: ...
    def rename_result(self, result_id: str, name: str) -> bool: ...
    def set_tags(self, session_id: str, tags: dict[str, str], notes: str) -> bool: ...
    def refresh(
        self, select: Sequence[str] | None = None, then: Callable[[], None] | None = None
    ) -> None: ...


def show_menu(tab: SessionsTab, pos: QPoint) -> None:
    """The menu of the row under the pointer (selected first, as a file manager does)."""
    index = tab.table.indexAt(pos)
    if index.isValid() and not tab.table.selectionModel().isRowSelected(index.row()):
        tab.table.selectRow(index.row())
    menu = build_menu(tab)
    if not menu.isEmpty():
        menu.exec(tab.table.viewport().mapToGlobal(pos))


def build_menu(tab: SessionsTab) -> QMenu:
    menu = QMenu(tab.table)
    menu.setObjectName("sessions_menu")
    rows = tab.selected_rows()
    single = tab.single_session()
    for name in ("open_button", "rename_button", "tags_button"):
        _add(menu, tab, name)
    if single is not None:
        menu.addSeparator()
        within = menu.addAction("Compare its series")
        within.setEnabled(can_compare_within(single))
        within.triggered.connect(lambda: tab.compare_requested.emit([single.id]))
        for kind in EXPORTS:
            action = menu.addAction(kind.menu)
            action.setToolTip(kind.tip)
            action.triggered.connect(lambda _c=False, k=kind.key: tab.exports.ask(single, k))
    if len(rows) > 1:
        menu.addSeparator()
        _add(menu, tab, "compare_button")
    menu.addSeparator()
    _add(menu, tab, "export_button")
    _add(menu, tab, "resume_button")
    _add(menu, tab, "delete_button")
    _add(menu, tab, "deleted_button")
    return menu


def _add(menu: QMenu, tab: SessionsTab, name: str) -> None:
    """A menu entry doing what the list's button of that name does, enabled as it is."""
    button = tab.buttons[name]
    action = menu.addAction(button.text())  # the same text: "&&" is an ampersand in both
    action.setEnabled(button.isEnabled())
    action.triggered.connect(lambda _checked=False: button.click())


def ask_rename(tab: SessionsTab) -> None:
    """Rename the one session or responsiveness result selected, asking for the new name."""
    chosen = tab.selected_rows()
    if len(chosen) == 1 and isinstance(chosen[0], KeptResult):
        kept = chosen[0]
        name, ok = QInputDialog.getText(
            tab.table, "Rename result", "New name:", QLineEdit.EchoMode.Normal, kept.name
        )
        if ok and name.strip():
            tab.rename_result(kept.id, name)
        return
    if (session := tab.single_session()) is None:
        return
    name, ok = QInputDialog.getText(
        tab.table, "Rename session", "New name:", QLineEdit.EchoMode.Normal, session.name
    )
    if ok and name.strip():
        tab.rename_session(session.id, name)


def ask_tags(tab: SessionsTab) -> None:
    """Edit the tags and notes of the one session selected."""
    if (session := tab.single_session()) is None:
        return
    dialog = TagsDialog(session, tab.table)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        tab.set_tags(session.id, dialog.tags, dialog.notes)


def ask_delete(tab: SessionsTab) -> None:
    """Delete the selected sessions and results after a question naming them."""
    chosen = tab.selected_rows()
    if not chosen:
        return
    names = "\n".join(
        f"• {s.name or 'Untitled session'} ({s.short_id}), {counted(s.runs_done, 'run')}"
        if isinstance(s, SessionRecord)
        else f"• {s.name} ({s.short_id}), a responsiveness result"
        for s in chosen[:10]
    )
    more = f"\n… and {len(chosen) - 10} more" if len(chosen) > 10 else ""
    sessions = [s.id for s in chosen if isinstance(s, SessionRecord)]
    results = [r.id for r in chosen if isinstance(r, KeptResult)]
    if not sessions:
        what = "this result" if len(results) == 1 else f"these {counted(len(results), 'result')}"
        question = f"Delete {what} with every step of its ramp?"
    else:
        what = "this session" if len(chosen) == 1 else f"these {counted(len(chosen), 'session')}"
        if results:
            what = f"these {counted(len(chosen), 'session')} and results"
        question = f"Delete {what} and every run measured in it?"
    answer = QMessageBox.question(
        tab.table,
        "Delete sessions",
        f"{question}\n\n{names}{more}\n\n{UndoDelete.promise(bool(sessions), bool(results))}",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    if answer == QMessageBox.StandardButton.Yes:
        tab.delete_rows(sessions, results)


def _kept_words() -> str:
    hours = DELETED_KEPT.total_seconds() / 3600
    return "a day" if hours == 24 else f"{hours:g} hours"


class UndoDelete:
    """The "Undo delete" button beside the list's message: it brings back the sessions of the
    last delete while the database still keeps them (DELETED_KEPT)."""

    def __init__(self, tab: SessionsTab) -> None:
        self._tab = tab
        self._deleted: list[SessionRecord] = []
        self._until = ""
        self.button = QPushButton("Undo delete")
        self.button.setObjectName("undo_delete")
        self.button.setToolTip(
            f"Bring back the sessions just deleted, with every run (possible for {_kept_words()})."
        )
        self.button.clicked.connect(lambda _checked=False: self.undo())
        self.button.setVisible(False)

    @staticmethod
    def promise(sessions: bool, results: bool) -> str:
        """What the delete question says about undoing it."""
        kept = f"Undo delete brings the sessions back for {_kept_words()}."
        if sessions and results:
            return f"{kept} The responsiveness results cannot be brought back."
        return kept if sessions else "This cannot be undone."

    def offer(self, deleted: list[SessionRecord]) -> None:
        self._deleted = list(deleted)
        until = dt.datetime.now(dt.UTC) + DELETED_KEPT
        self._until = local_time(until.isoformat())
        if len(deleted) == 1:
            what = f"Deleted “{deleted[0].name or deleted[0].short_id}”"
        else:
            what = f"Deleted {counted(len(deleted), 'session')}"
        self.button.setVisible(True)
        them = "it" if len(deleted) == 1 else "them"
        said = f"{what}: Undo delete brings {them} back until {self._until}."
        # Said once the list is read again (reading it puts the count in the message).
        self._tab.refresh(then=lambda: self._tab.say(said, False))

    def forget(self, session_ids: Sequence[str]) -> None:
        """Sessions brought back another way (Recently deleted…): not offered again."""
        self._deleted = [s for s in self._deleted if s.id not in session_ids]
        self.button.setVisible(bool(self._deleted))

    def undo(self) -> None:
        deleted, self._deleted = self._deleted, []
        self.button.setVisible(False)
        if not deleted:
            return
        ids = [s.id for s in deleted]
        try:
            back = self._tab.context.door().sessions().restore(ids)
        except LinkLabError as err:
            self._tab.show_error(err.sentence)
            return
        if back < len(ids):
            said = (
                f"Restored {back} of {counted(len(ids), 'session')}: the others are gone for good "
                f"(kept {_kept_words()} after deleting)."
            )
        elif len(deleted) == 1:
            said = f"Restored “{deleted[0].name or deleted[0].short_id}” with every run."
        else:
            said = f"Restored {counted(len(deleted), 'session')} with every run."
        problem = back < len(ids)
        if back:
            self._tab.sessions_restored.emit(ids)
        self._tab.refresh(select=ids, then=lambda: self._tab.say(said, problem))


def show_deleted(tab: SessionsTab, undo: UndoDelete) -> None:
    """The sessions deleted within the day, to restore (also after a restart)."""

    def restored(ids: list[str], said: str, problem: bool) -> None:
        undo.forget(ids)
        tab.refresh(select=ids, then=lambda: tab.say(said, problem))

    show_recently_deleted(tab.table, tab.context.door(), restored, tab.show_error)


def _on_view(tab: SessionsTab) -> SessionRecord | None:
    shown = tab.shown.view.session_id
    return next((s for s in tab.model.sessions if s.id == shown), None)


def export_shown(tab: SessionsTab, key: str) -> None:
    """The session on view exported (its view's buttons)."""
    if (session := _on_view(tab)) is not None:
        tab.exports.ask(session, key)


def compare_shown(tab: SessionsTab) -> None:
    """The series of the session on view compared with each other (its view's button)."""
    session = _on_view(tab)
    if session is not None and can_compare_within(session):
        tab.compare_requested.emit([session.id])
