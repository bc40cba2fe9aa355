"""Exchange files from the Sessions tab: import and export in a worker thread, through the
same functions as `linklab import` and `linklab export --format json`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QLabel, QLineEdit, QWidget

from app.domain.errors import LinkLabError
from app.domain.records import SessionRecord
from app.domain.units import counted
from app.study.files.exchange import EXCHANGE_SUFFIX
from app.study.frontdoor import FrontDoor
from app.study.stored_sessions import SessionName
from app.ui.common.saved import confirm_saved
from app.ui.common.worker import Worker, once
from app.ui.context import AppContext


class ExchangeHost(Protocol):
    """What the exchange needs of the tab it serves (the Sessions tab)."""

    @property
    def context(self) -> AppContext: ...

    @property
    def status(self) -> QLabel: ...

    @property
    def search(self) -> QLineEdit: ...

    @property
    def status_filter(self) -> QComboBox: ...

    def selected_sessions(self) -> list[SessionRecord]: ...

    def update_actions(self) -> None: ...

    def show_error(self, sentence: str) -> None: ...

    def refresh(
        self, select: Sequence[str] | None = None, then: Callable[[], None] | None = None
    ) -> None: ...


IMPORT_FILTER = f"LinkLab sessions (*{EXCHANGE_SUFFIX} *.json);;All files (*)"
EXPORT_FILTER = f"LinkLab sessions (*{EXCHANGE_SUFFIX});;All files (*)"
FOLDER_KEY = "exchange/folder"
MAX_NAMES_SHOWN = 5
# Names Windows reserves for devices, whatever the ending.
_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{p}{n}" for p in ("COM", "LPT") for n in range(10)}


def session_label(session: SessionName) -> str:
    name = " ".join(session.name.split())  # a file's names may hold line breaks
    return f"“{name[:60]}{'…' if len(name) > 60 else ''}”" if name else session.id[:8]


@dataclass(frozen=True)
class FileImported:
    """What one file did: its sessions added and already present, or why it changed nothing."""

    path: Path
    imported: tuple[SessionName, ...] = ()
    skipped: tuple[SessionName, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class FileExported:
    path: Path
    count: int = 0
    error: str = ""


def import_file(path: Path, door: FrontDoor) -> FileImported:
    """Check the whole file, then add its sessions in one transaction (all or nothing)."""
    try:
        result = door.sessions().import_file(path)
    except LinkLabError as err:
        return FileImported(path, error=err.sentence)
    return FileImported(path, result.imported, result.skipped)


def export_file(session_ids: Sequence[str], path: Path, door: FrontDoor) -> FileExported:
    try:
        ids = door.sessions().export(session_ids, path)
    except LinkLabError as err:
        return FileExported(path, error=err.sentence)
    return FileExported(path, len(ids))


def suggested_name(names: Sequence[str]) -> str:
    """A file name for these sessions' names that every file system accepts."""
    first = names[0] if names else ""
    text = unicodedata.normalize("NFC", first)
    text = re.sub(r'[\\/:*?"<>|\x00-\x1f\x7f]+', "-", text)
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"-{2,}", "-", text).strip(" .-")[:80].strip(" .-")
    if not text or text.split(".")[0].upper() in _RESERVED:
        text = f"LinkLab sessions{f' {text}' if text else ''}"
    if len(names) > 1:
        text += f" and {len(names) - 1} more"
    return text + EXCHANGE_SUFFIX


def describe_import(outcome: FileImported) -> str:
    if outcome.error:
        return outcome.error
    name, skipped = outcome.path.name, outcome.skipped
    if not outcome.imported:
        here = counted(len(skipped), "session")
        return f"Nothing new in {name}: {here} already here ({_names(skipped)})."
    imported = counted(len(outcome.imported), "session")
    text = f"Imported {imported} from {name}: {_names(outcome.imported)}"
    if skipped:
        text += f"; skipped {len(skipped)} already here: {_names(skipped)}"
    return text + "."


def _names(sessions: Sequence[SessionName]) -> str:
    shown = ", ".join(session_label(s) for s in sessions[:MAX_NAMES_SHOWN])
    more = len(sessions) - MAX_NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


class SessionExchange(QObject):
    """The Sessions tab's Import… and Export buttons: dialogs, one worker at a time, results
    shown in the tab's status line with the sessions selected."""

    job_finished = Signal()  # the result is on screen

    def __init__(self, tab: ExchangeHost, widget: QWidget) -> None:
        super().__init__(widget)
        self.tab = tab
        self.widget = widget  # the dialogs' parent
        self.worker: Worker | None = None

    @property
    def busy(self) -> bool:
        return self.worker is not None

    # -- dialogs -------------------------------------------------------------------------------
    def _folder(self) -> Path:
        stored = str(self.tab.context.settings.value(FOLDER_KEY, "") or "")
        return Path(stored) if stored and Path(stored).is_dir() else Path.home()

    def _remember_folder(self, path: Path) -> None:
        self.tab.context.settings.setValue(FOLDER_KEY, str(path.parent))

    def ask_import(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(
            self.widget, "Import sessions", str(self._folder()), IMPORT_FILTER
        )
        if names:
            self.import_files([Path(n) for n in names])

    def ask_export(self) -> None:
        chosen = self.tab.selected_sessions()
        if not chosen:
            return
        start = self._folder() / suggested_name([s.name for s in chosen])
        dialog = QFileDialog(self.widget, "Export for another computer", str(start), EXPORT_FILTER)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setDefaultSuffix(EXCHANGE_SUFFIX.lstrip("."))
        chosen_files = dialog.selectedFiles() if dialog.exec() else []
        dialog.deleteLater()
        if not chosen_files:
            return
        path = Path(chosen_files[0])
        if not path.suffix:  # some native dialogs ignore the default suffix
            path = path.with_name(path.name + EXCHANGE_SUFFIX)
        self.export_to([s.id for s in chosen], path)

    # -- jobs ----------------------------------------------------------------------------------
    def import_files(self, paths: Sequence[Path]) -> bool:
        """Start importing; False (with the reason shown) when another job is running."""
        if not paths or not self._can_start():
            return False
        self._remember_folder(paths[-1])
        self.tab.status.setStyleSheet("")
        self.tab.status.setText(f"Importing {', '.join(p.name for p in paths)}…")
        door, files = self.tab.context.door(), list(paths)
        worker = Worker(once(lambda: tuple(import_file(f, door) for f in files)), "import")
        worker.yielded.connect(self._show_imports)
        self._start(worker)
        return True

    def export_to(self, session_ids: Sequence[str], path: Path) -> bool:
        if not session_ids or not self._can_start():
            return False
        self._remember_folder(path)
        self.tab.status.setStyleSheet("")
        self.tab.status.setText(f"Exporting {counted(len(session_ids), 'session')} to {path.name}…")
        door, ids = self.tab.context.door(), list(session_ids)
        worker = Worker(once(lambda: export_file(ids, path, door)), "export")
        worker.yielded.connect(self._show_export)
        self._start(worker)
        return True

    def wait(self) -> None:
        """Let a running job end (an import is one short transaction); for closing."""
        if self.worker is not None:
            self.worker.wait()

    def _can_start(self) -> bool:
        if self.busy:
            self.tab.status.setText("An import or export is still running: wait for it to end.")
            return False
        return True

    def _start(self, worker: Worker) -> None:
        self.worker = worker
        worker.finished.connect(self._job_ended)
        self.tab.update_actions()
        worker.start()

    def _job_ended(self) -> None:
        self.worker = None
        self.tab.update_actions()
        self.job_finished.emit()

    def _show_imports(self, outcomes: tuple[FileImported, ...]) -> None:
        found = [s.id for o in outcomes for s in o.imported + o.skipped]
        text = "\n".join(describe_import(o) for o in outcomes)

        def say() -> None:
            if any(o.error for o in outcomes):
                self.tab.show_error(text)
            else:
                self.tab.status.setStyleSheet("")
                self.tab.status.setText(text)

        if found:  # in view, whatever the search and filter, to be selected
            self.tab.search.clear()
            self.tab.status_filter.setCurrentIndex(0)
            self.tab.refresh(select=found, then=say)
        else:
            say()

    def _show_export(self, outcome: FileExported) -> None:
        if outcome.error:
            self.tab.show_error(outcome.error)
            return
        self.tab.status.setStyleSheet("")
        self.tab.status.setText(
            f"Exported {counted(outcome.count, 'session')} to {outcome.path}: on the other "
            "computer, double-click it or use Import… on the Sessions tab."
        )
        confirm_saved(self.widget, outcome.path, counted(outcome.count, "session"))
