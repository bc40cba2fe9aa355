"""The Class tab's live class: the Collect live switch (this computer's collector, its address
and class token for the students, written into an exercise on request, and the instructor token
for the servers' computer, copied on request and never shown) and a class read from another
collector (with its instructor token) or a department's PostgreSQL; either way the view is
read again every second in the background, and shown only when a push changed it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.domain.collector import check_token, collector_url
from app.domain.errors import BadOption, LinkLabError
from app.domain.exercise import EXERCISE_SUFFIX
from app.store.class_backends import open_class_store, shown_url
from app.store.class_store import ClassStore
from app.study.lab.class_http import call
from app.study.lab.class_live import choose_exercise, live_class, view_from_wire
from app.study.lab.classroom import ClassView
from app.study.lab.collector import (
    DEFAULT_PORT,
    Collector,
    instructor_token_file,
    read_token_file,
    token_file_warning,
    write_into_exercise,
)
from app.ui.common.background import Background
from app.ui.common.widgets import SpinBox, accessible, hint, number_problem
from app.ui.context import AppContext

__all__ = ["LiveBar", "Reading"]

#: How often the view is read again while live: a run shows within 2 s of arriving.
POLL_MS = 1000


@dataclass
class Reading:
    """Where a live class is read from: a store (this computer's collector's, or a database)
    or another collector (its address and token)."""

    where: str  # in words, for the summary
    store: ClassStore | None = None
    url: str = ""
    token: str = ""
    last: str = ""  # what the last view read was: its change count (or the collector's tag)

    def read(self, exercise_ref: str | None) -> tuple[str, ClassView] | None:
        """The class view, or None when nothing changed since the last read."""
        if self.store is not None:
            changes = str(self.store.changes())
            if changes == self.last:
                return None
            exercise = choose_exercise(self.store, exercise_ref)
            return changes, live_class(self.store, exercise)
        query = "" if not exercise_ref else f"?exercise={_quoted(exercise_ref)}"
        answer = call(self.url, self.token, f"/v1/class{query}", etag=self.last)
        if answer.status == 304:
            return None
        if answer.status != 200:
            raise BadOption(answer.sentence or f"The collector answered {answer.status}.")
        view, _changes = view_from_wire(answer.data)
        return answer.headers.get("etag", ""), view

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def _quoted(text: str) -> str:
    import urllib.parse

    return urllib.parse.quote(text, safe="")


class LiveBar(QWidget):
    """The row of live controls above the class table."""

    view_read = Signal(object)  # ClassView, read again because something arrived
    waiting = Signal(str)  # a sentence while no class can be shown (nothing arrived yet)
    status_message = Signal(str)
    started = Signal()  # a live class is about to be shown: the tab clears what it showed

    def __init__(
        self, context: AppContext, exercise_file: Callable[[], Path | None], parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self._exercise_file = exercise_file
        self.collector: Collector | None = None
        self.reading: Reading | None = None
        self._reader = Background(self)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)
        self.switch = QCheckBox("Collect live")
        self.switch.setToolTip(
            "Run this class's collector on this computer: the students' LinkLab sends each "
            "run here as it ends, and the table follows within seconds."
        )
        self.port = SpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(DEFAULT_PORT)
        accessible(self.port, "Collector port")
        self.port.setToolTip("The TCP port the stations reach the collector on.")
        port_label = QLabel("Port")
        port_label.setBuddy(self.port)
        self.store = QLineEdit()
        accessible(self.store, "Class store")
        hint(self.store, "here, or postgresql://…", least=200)
        self.store.setToolTip(
            "Where the class is kept: empty for this computer's LinkLab database, or a "
            "department's PostgreSQL as postgresql://USER:PASSWORD@HOST:PORT/DATABASE."
        )
        store_label = QLabel("Store")
        store_label.setBuddy(self.store)
        self.address = QLabel()
        accessible(self.address, "Collector address")
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Wrapped: the address and the token on one line would widen the window past a
        # laptop's screen.
        self.address.setWordWrap(True)
        self.address.setToolTip("What the students need: the collector's address and token.")
        self.write_button = QPushButton("Write into exercise…")
        self.write_button.setToolTip(
            "Write this collector's address and the class token into an exercise file: "
            "students who open it send their runs here without typing anything."
        )
        self.write_button.setEnabled(False)
        self.copy_button = QPushButton("Copy instructor token")
        self.copy_button.setToolTip(
            "Copy the instructor token for the computer that runs the class's servers (the "
            "Server tab's A class's stations): it registers them with this collector. It is "
            "not the class token; keep it off the projector and out of the exercise."
        )
        self.copy_button.setEnabled(False)
        self.open_button = QPushButton("Open live class…")
        self.open_button.setToolTip(
            "Follow a class collected elsewhere: another collector (http://HOST:PORT and its "
            "instructor token) or a department's PostgreSQL (postgresql://…)."
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.switch, port_label, self.port, store_label, self.store):
            row.addWidget(widget)
        row.addWidget(self.address, 1)
        row.addWidget(self.write_button)
        row.addWidget(self.copy_button)
        row.addWidget(self.open_button)
        self.switch.toggled.connect(self._switched)
        self.write_button.clicked.connect(self.ask_write)
        self.copy_button.clicked.connect(self.copy_instructor_token)
        self.open_button.clicked.connect(self.ask_open)

    @property
    def live(self) -> bool:
        return self.reading is not None

    # -- this computer's collector -------------------------------------------------------------
    def _token_file(self) -> Path:
        return self.context.db_path.with_name("class.token")

    def _switched(self, on: bool) -> None:
        if on:
            try:
                self._start()
            except LinkLabError as err:
                self.switch.blockSignals(True)
                self.switch.setChecked(False)
                self.switch.blockSignals(False)
                self.status_message.emit(err.sentence)
                self.waiting.emit(err.sentence)
                return
        else:
            self.stop()

    def _start(self) -> None:
        if problem := number_problem(self.port):
            raise BadOption(f"The collector's port: {problem}")
        self._halt()
        token, _created = read_token_file(self._token_file())
        instructor_file = instructor_token_file(self._token_file())
        instructor, _created = read_token_file(instructor_file, what="instructor token")
        warnings = [
            w for f in (self._token_file(), instructor_file) if (w := token_file_warning(f))
        ]
        given = self.store.text().strip()
        store = open_class_store(given or f"sqlite:{self.context.db_path}")
        collector = Collector(store, token, port=self.port.value(), instructor_token=instructor)
        try:
            collector.start()
        except LinkLabError:
            store.close()
            raise
        self.collector = collector
        where = shown_url(given) if given else "this computer's database"
        self.address.setText(f"Students send to {collector.url} · token {token}")
        self.reading = Reading(f"{collector.url} ({where})", store=store)
        self.started.emit()
        self._set_editable(False)
        self.write_button.setEnabled(True)
        self.copy_button.setEnabled(True)
        self.status_message.emit(
            f"Collecting live at {collector.url}: give the students this address and the class "
            f"token (or write them into the exercise)." + "".join(f" {w}" for w in warnings)
        )
        self.waiting.emit(f"Collecting at {collector.url}: no student's work has arrived yet.")
        self._timer.start()
        self.poll()

    def _set_editable(self, editable: bool) -> None:
        for widget in (self.port, self.store, self.open_button):
            widget.setEnabled(editable)

    def stop(self) -> None:
        """Stop collecting (and following): what arrived stays in the store."""
        self._halt()
        if self.switch.isChecked():
            self.switch.blockSignals(True)
            self.switch.setChecked(False)
            self.switch.blockSignals(False)

    def _halt(self) -> None:
        self._timer.stop()
        collector, self.collector = self.collector, None
        if collector is not None:
            collector.stop()
        reading, self.reading = self.reading, None
        if reading is not None:
            reading.close()
        self.address.setText("")
        self.write_button.setEnabled(False)
        self.copy_button.setEnabled(False)
        self._set_editable(True)

    def ask_write(self) -> None:
        if self.collector is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self, "Exercise to hand out", "", f"LinkLab exercise (*{EXERCISE_SUFFIX})"
        )
        if path:
            self.write_into(Path(path))

    def write_into(self, path: Path) -> None:
        if self.collector is None:
            return
        try:
            write_into_exercise(path, self.collector.url, self.collector.token)
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            return
        self.status_message.emit(
            f"Wrote the collector's address into {path.name}: students who open it send each "
            f"run here as it ends."
        )

    def copy_instructor_token(self) -> None:
        if self.collector is None:
            return
        QGuiApplication.clipboard().setText(self.collector.instructor_token)
        self.status_message.emit(
            f"Copied the instructor token (kept in {instructor_token_file(self._token_file())}): "
            f"paste it into the Server tab's Instructor token on the servers' computer."
        )

    # -- a class collected elsewhere -------------------------------------------------------
    def ask_open(self) -> None:
        source, ok = QInputDialog.getText(
            self, "Open live class", "Collector (http://HOST:PORT) or postgresql://…"
        )
        if not ok or not source.strip():
            return
        token = ""
        if source.strip().startswith(("http://", "https://")) or "://" not in source:
            token, ok = QInputDialog.getText(self, "Open live class", "Instructor token")
            if not ok:
                return
        self.follow(source.strip(), token.strip())

    def follow(self, source: str, token: str = "") -> None:
        """Read a class from another collector (with its instructor token) or from a
        database."""
        self.stop()
        try:
            if source.startswith(("postgresql://", "postgres://", "sqlite:")):
                reading = Reading(shown_url(source), store=open_class_store(source))
            else:
                url = collector_url(source)
                reading = Reading(url, url=url, token=check_token(token, "The instructor token"))
        except LinkLabError as err:
            self.status_message.emit(err.sentence)
            self.waiting.emit(err.sentence)
            return
        self.reading = reading
        self.started.emit()
        self.waiting.emit(f"Reading the class at {reading.where}…")
        self._timer.start()
        self.poll()

    # -- reading again -----------------------------------------------------------------------
    def poll(self) -> None:
        reading = self.reading
        if reading is None or self._reader.busy:
            return
        chosen = self._exercise_file()
        ref = str(chosen) if chosen is not None else None
        self._reader.run(lambda: reading.read(ref), self._read, self._failed)

    def _read(self, result: tuple[str, ClassView] | None) -> None:
        if result is None or self.reading is None:
            return
        self.reading.last, view = result
        self.view_read.emit(view)

    def _failed(self, sentence: str) -> None:
        if self.reading is not None:
            self.waiting.emit(sentence)

    def shutdown(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop()
