"""The Sessions tab's "Recently deleted…": the sessions deleted within the day, listed with when
each was deleted and until when it can come back, restored with every run, also after a
restart (Undo delete only knows the last delete of this window)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.domain.errors import LinkLabError
from app.domain.records import SessionRecord
from app.domain.units import counted
from app.study.frontdoor import FrontDoor
from app.study.stored_sessions import DELETED_KEPT
from app.study.sweep.describe import local_time
from app.ui.common.widgets import accessible

TIP = "The sessions deleted within the last day, to bring back with every run."


def _until(deleted_at: str) -> str:
    """When a session deleted at that moment goes for good, in local time."""
    try:
        moment = dt.datetime.fromisoformat(deleted_at.replace("Z", "+00:00"))
    except ValueError:
        return "—"
    return local_time((moment + DELETED_KEPT).isoformat())


def entry_text(session: SessionRecord, deleted_at: str) -> str:
    """'Lab A (3f2a91c0), 18 runs — deleted 2026-11-28 09:12, can come back until …'."""
    return (
        f"{session.name or 'Untitled session'} ({session.short_id}), "
        f"{counted(session.runs_done, 'run')} — deleted {local_time(deleted_at)}, "
        f"can come back until {_until(deleted_at)}"
    )


class RecentlyDeleted(QDialog):
    """The deleted sessions that can still be restored; Restore brings back those chosen."""

    def __init__(
        self,
        deleted: Sequence[tuple[SessionRecord, str]],
        restore: Callable[[list[str]], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Recently deleted sessions")
        self._restore = restore
        intro = QLabel(
            "Sessions deleted within the last day, kept with every run until then. "
            "Choose those to bring back and press Restore."
            if deleted
            else "No session was deleted within the last day: there is nothing to restore."
        )
        intro.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("deleted_sessions")
        accessible(self.list, "Deleted sessions")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        for session, when in deleted:
            item = QListWidgetItem(entry_text(session, when))
            item.setData(Qt.ItemDataRole.UserRole, session.id)
            self.list.addItem(item)
        self.list.setVisible(bool(deleted))
        if deleted:
            self.list.setCurrentRow(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.restore_button = QPushButton("Restore")
        self.restore_button.setToolTip("Bring back the chosen sessions with every run.")
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.restore_button.setEnabled(bool(deleted))
        self.list.itemSelectionChanged.connect(
            lambda: self.restore_button.setEnabled(bool(self.list.selectedItems()))
        )
        self.list.itemDoubleClicked.connect(lambda _item: self._restore_chosen())
        self.restore_button.clicked.connect(lambda _checked=False: self._restore_chosen())
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(640, 320)

    def _restore_chosen(self) -> None:
        ids = [item.data(Qt.ItemDataRole.UserRole) for item in self.list.selectedItems()]
        if ids:
            self.accept()
            self._restore(ids)


def show_recently_deleted(
    parent: QWidget,
    door: FrontDoor,
    restored: Callable[[list[str], str, bool], None],
    failed: Callable[[str], None],
) -> None:
    """The dialog over parent; restored(ids, sentence, problem) once sessions came back,
    failed(sentence) when the database cannot be read or written."""
    try:
        deleted = door.sessions().recently_deleted()
    except LinkLabError as err:
        failed(err.sentence)
        return
    names = {s.id: s.name or s.short_id for s, _ in deleted}

    def restore(ids: list[str]) -> None:
        try:
            back = door.sessions().restore(ids)
        except LinkLabError as err:
            failed(err.sentence)
            return
        if back < len(ids):
            said = (
                f"Restored {back} of {counted(len(ids), 'session')}: the others are gone for good."
            )
        elif len(ids) == 1:
            said = f"Restored “{names[ids[0]]}” with every run."
        else:
            said = f"Restored {counted(len(ids), 'session')} with every run."
        restored(ids, said, back < len(ids))

    RecentlyDeleted(deleted, restore, parent).exec()
