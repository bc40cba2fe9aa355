"""The Settings tab: engine paths and what was detected, default ports, the database file, and
a word on the theme."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.engine.drivers.registry import PROGRAMS
from app.engine.process.tools import Source
from app.ui.common.widgets import SpinBox
from app.ui.context import ENGINE_NAMES, AppContext, EngineStatus
from app.ui.server.tab import named, show_status

SOURCE_WORDS = {
    Source.SETTINGS: "the path set here",
    Source.BUNDLED: "bundled with LinkLab",
    Source.BUILT: "built by LinkLab's set-up",
    Source.PATH: "found on PATH",
}
ENGINE_USES = {name: program.use for name, program in PROGRAMS.items()}


def detected_text(status: EngineStatus) -> str:
    tool = status.tool
    if tool is None:
        return status.problem
    return (
        f"Detected: {tool.name} {tool.version_string}, {tool.path} "
        f"({SOURCE_WORDS.get(tool.source, str(tool.source))})"
    )


class SettingsTab(QWidget):
    """Edits AppContext's settings; every change is saved at once and announced by it."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self.paths: dict[str, QLineEdit] = {}
        self.detected: dict[str, QLabel] = {}
        self.ports: dict[str, QSpinBox] = {}

        layout = QVBoxLayout(self)
        layout.addWidget(self._engines_box())
        layout.addWidget(self._ports_box())
        layout.addWidget(self._data_box())
        layout.addWidget(self._appearance_box())
        layout.addStretch(1)
        context.settings_changed.connect(self.refresh)
        self.refresh()

    # -- sections ------------------------------------------------------------------------------
    def _engines_box(self) -> QGroupBox:
        box = QGroupBox("Engines")
        grid = QGridLayout(box)
        intro = QLabel(
            "Leave a path empty to let LinkLab choose: its bundled copy first, then the one "
            "on PATH."
        )
        intro.setWordWrap(True)
        grid.addWidget(intro, 0, 0, 1, 3)
        for row, name in enumerate(ENGINE_NAMES, start=1):
            edit = named(QLineEdit(), f"{name}_path")
            edit.setPlaceholderText("Automatic: bundled copy, then PATH")
            edit.setClearButtonEnabled(True)
            edit.setToolTip(
                f"The {name} executable LinkLab runs for {ENGINE_USES[name]}. Empty: automatic."
            )
            edit.editingFinished.connect(lambda name=name: self._path_edited(name))
            # The clear button (or deleting the text) returns to automatic at once.
            edit.textChanged.connect(
                lambda text, name=name: None if text else self._path_edited(name)
            )
            browse = named(QPushButton("Browse…"), f"{name}_browse")
            browse.setToolTip(f"Chooses the {name} executable LinkLab runs.")
            browse.clicked.connect(lambda _checked=False, name=name: self._browse(name))
            label = named(QLabel(), f"{name}_detected")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(QLabel(name), 2 * row - 1, 0)
            grid.addWidget(edit, 2 * row - 1, 1)
            grid.addWidget(browse, 2 * row - 1, 2)
            grid.addWidget(label, 2 * row, 1, 1, 2)
            self.paths[name] = edit
            self.detected[name] = label
        grid.setColumnStretch(1, 1)
        return box

    def _ports_box(self) -> QGroupBox:
        box = QGroupBox("Default ports")
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        rows = [
            (
                driver.port_key,
                driver.serve_name,
                driver.server_label,
                f"The port new peers and LinkLab's own {driver.server_label} use unless told "
                f"otherwise ({driver.port_flags_text}).",
            )
            for driver in self._context.drivers.values()
        ]
        rows.append(
            (
                "echo",
                "echo",
                "Latency responder",
                "The UDP port of LinkLab's latency responder: the one the Server tab starts "
                "here, and the one Responsiveness probes on a peer (linklab serve "
                "--echo-port).",
            )
        )
        for key, name, title, tip in rows:
            spin = named(SpinBox(), f"{name}_port_default")
            spin.setRange(1, 65535)
            spin.setValue(self._context.default_port(key))
            # Kept once typed (Enter, or leaving the field), not digit by digit: "5301" is
            # never stored as 5, 53 and 530 on the way.
            spin.setKeyboardTracking(False)
            spin.setToolTip(tip)
            spin.valueChanged.connect(lambda value, key=key: self._port_changed(key, value))
            form.addRow(f"{title}:", spin)
            self.ports[key] = spin
        return box

    def _data_box(self) -> QGroupBox:
        box = QGroupBox("Data")
        grid = QGridLayout(box)
        self.db_path = named(QLineEdit(), "db_path")
        self.db_path.setReadOnly(True)
        self.db_path.setToolTip("The SQLite file every session and run is saved in.")
        open_folder = named(QPushButton("Open folder"), "db_open_folder")
        open_folder.setToolTip("Shows the folder holding the database in the file manager.")
        open_folder.clicked.connect(self._open_folder)
        choose = named(QPushButton("Use another file…"), "db_choose")
        choose.setToolTip(
            "Chooses the SQLite file LinkLab saves sessions in (an existing LinkLab file, or a "
            "new name to start an empty one)."
        )
        choose.clicked.connect(self._choose_db)
        self.db_message = named(QLabel(), "db_message")
        self.db_message.setWordWrap(True)
        self.db_message.setVisible(False)
        grid.addWidget(QLabel("Database file"), 0, 0)
        grid.addWidget(self.db_path, 0, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(open_folder)
        buttons.addWidget(choose)
        grid.addLayout(buttons, 0, 2)
        grid.addWidget(self.db_message, 1, 1, 1, 2)
        grid.setColumnStretch(1, 1)
        return box

    def _appearance_box(self) -> QGroupBox:
        box = QGroupBox("Appearance")
        note = named(
            QLabel(
                "LinkLab follows the system's light or dark mode; change it in the system's "
                "settings."
            ),
            "appearance_note",
        )
        note.setWordWrap(True)
        QVBoxLayout(box).addWidget(note)
        return box

    # -- reactions -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the settings as stored, and probe the engines again."""
        for name, edit in self.paths.items():
            if not edit.hasFocus():
                edit.setText(self._context.engine_path(name))
            status = self._context.engine(name)
            show_status(self.detected[name], detected_text(status), error=status.tool is None)
        for key, spin in self.ports.items():
            value = self._context.default_port(key)
            if spin.value() != value:
                spin.blockSignals(True)
                spin.setValue(value)
                spin.blockSignals(False)
        self.db_path.setText(str(self._context.db_path))

    def _path_edited(self, name: str) -> None:
        path = self.paths[name].text().strip()
        if path != self._context.engine_path(name):
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # probing runs the engine
            try:
                self._context.set_engine_path(name, path)
            finally:
                QApplication.restoreOverrideCursor()

    def _browse(self, name: str) -> None:
        start = self.paths[name].text().strip() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, f"Choose the {name} executable", start)
        if path:
            self.paths[name].setText(path)
            self._path_edited(name)

    def _port_changed(self, key: str, value: int) -> None:
        if value != self._context.default_port(key):
            self._context.set_default_port(key, value)

    def _open_folder(self) -> None:
        folder = self._context.db_path.parent
        if not folder.is_dir():
            self._db_note(
                f"The folder {folder} does not exist yet: it is made when the first session "
                f"is saved.",
                error=True,
            )
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            self._db_note(
                f"No file manager could open {folder}: open it by hand.",
                error=True,
            )
            return
        self._db_note("")

    def _db_note(self, text: str, error: bool = False) -> None:
        show_status(self.db_message, text, error)
        self.db_message.setVisible(bool(text))

    def _choose_db(self) -> None:
        current = self._context.db_path
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Use another database file",
            str(current),
            "LinkLab database (*.sqlite3 *.db);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if not path:
            return
        chosen = Path(path)
        if chosen.suffix == "":
            chosen = chosen.with_suffix(".sqlite3")
        self._context.set_db_path(chosen)
        if self._context.db_path != chosen:
            self._db_note(
                f"This LinkLab was started with the database {self._context.db_path}, so "
                f"{chosen} is used from the next start without one.",
                error=True,
            )
        else:
            self._db_note("")
