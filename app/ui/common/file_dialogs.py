"""File dialogs that open where the user last was for that kind of file (exercises, hand-ins,
reports, exports, class folders…), kept in the settings; the first time, in the folder given
or the user's home folder, never the program's own folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QWidget


def last_folder(settings: QSettings, kind: str, first: Path | None = None) -> Path:
    """The folder last used for kind, while it exists; else first, else the home folder."""
    stored = str(settings.value(f"folders/{kind}", "") or "")
    if stored and Path(stored).is_dir():
        return Path(stored)
    return first if first is not None else Path.home()


def remember_folder(settings: QSettings, kind: str, chosen: Path) -> None:
    folder = chosen if chosen.is_dir() else chosen.parent
    settings.setValue(f"folders/{kind}", str(folder))


def open_file(
    parent: QWidget,
    settings: QSettings,
    kind: str,
    title: str,
    filters: str,
    first: Path | None = None,
) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(
        parent, title, str(last_folder(settings, kind, first)), filters
    )
    if not path:
        return None
    remember_folder(settings, kind, Path(path))
    return Path(path)


def open_files(
    parent: QWidget, settings: QSettings, kind: str, title: str, filters: str
) -> list[Path]:
    paths, _ = QFileDialog.getOpenFileNames(
        parent, title, str(last_folder(settings, kind)), filters
    )
    if paths:
        remember_folder(settings, kind, Path(paths[0]))
    return [Path(p) for p in paths]


def save_file(
    parent: QWidget, settings: QSettings, kind: str, title: str, name: str, filters: str
) -> Path | None:
    """The path to save to, the suggested name in the kind's last folder."""
    start = last_folder(settings, kind) / name
    path, _ = QFileDialog.getSaveFileName(parent, title, str(start), filters)
    if not path:
        return None
    remember_folder(settings, kind, Path(path))
    return Path(path)


def choose_folder(
    parent: QWidget, settings: QSettings, kind: str, title: str, first: Path | None = None
) -> Path | None:
    folder = QFileDialog.getExistingDirectory(
        parent, title, str(last_folder(settings, kind, first))
    )
    if not folder:
        return None
    remember_folder(settings, kind, Path(folder))
    return Path(folder)
