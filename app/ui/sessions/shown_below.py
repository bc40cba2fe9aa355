"""What the Sessions tab shows below its list, each read off the GUI thread: a stored session
(its charts, results, findings and details), a kept responsiveness result, two results
compared, or in place of a session the sentence saying why it cannot be shown. With nothing on
view the pane hides and its sentence (`nothing`, laid out below the list by the tab) takes one
line, so the list has the room; the pane comes back at the size it had."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from app.domain.records import SessionRecord
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.comparison import ResponsivenessComparison, compare_results
from app.study.responsiveness.kept import KeptResult
from app.ui.common.background import Background
from app.ui.common.widgets import scroll_when_small
from app.ui.sessions.responsiveness_view import ResponsivenessView
from app.ui.sessions.view import NO_SELECTION, SessionView, ViewData, view_data


class ShownBelow(QStackedWidget):
    """The session on view (`view`), or the result or comparison on view (`results_view`, on
    its own page); a read that fails says its sentence through `failed`."""

    def __init__(
        self,
        settings: QSettings | None,
        said: Callable[[str, bool], None],
        failed: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._failed = failed
        self._reader = Background(self)
        self.view = SessionView(settings=settings)
        self.results_view = ResponsivenessView(settings)
        self.results_view.result_view.said.connect(said)
        self.results_view.comparison_view.said.connect(said)
        self.addWidget(self.view)
        # A kept result's card and charts scroll rather than set the window's least height.
        self.results_page = scroll_when_small(self.results_view)
        self.addWidget(self.results_page)
        self.nothing = QLabel(self.view.message)
        self.nothing.setObjectName("sessions_nothing_on_view")
        self.nothing.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.nothing.setWordWrap(True)
        self.view.emptied.connect(lambda _empty: self._fit())
        self.currentChanged.connect(lambda _index: self._fit())
        self.setVisible(False)  # nothing on view yet (hidden, not shown as a window of its own)

    def _fit(self) -> None:
        """Shown when something is on view; else hidden, its sentence said below the list."""
        if self.parentWidget() is None or self.nothing.parentWidget() is None:
            return  # not laid out yet: shown, either would be a window of its own
        empty = self.currentWidget() is self.view and self.view.empty
        self.nothing.setText(self.view.message)
        self.nothing.setVisible(empty)
        self.setVisible(not empty)

    @property
    def reading(self) -> bool:
        """Whether what is to be shown is still being read."""
        return self._reader.busy

    @property
    def showing_result(self) -> bool:
        return self.currentWidget() is self.results_page

    def message(self, sentence: str = NO_SELECTION) -> None:
        """No session on view: the sentence (why it cannot be shown, or what to do) instead."""
        self.view.clear(sentence)
        self.setCurrentWidget(self.view)

    def open_session(
        self, door: FrontDoor, session: SessionRecord, shown: Callable[[], None]
    ) -> None:
        """The session read, then shown; shown() once it is."""

        def show(data: ViewData) -> None:
            self.view.show_session(session, *data)
            self.setCurrentWidget(self.view)
            shown()

        self._reader.run(lambda: view_data(door, session), show, self._failed)

    def open_result(self, door: FrontDoor, result_id: str) -> None:
        """A result read whole (the list has no steps), then shown."""
        results = door.results()
        self._reader.run(lambda: results.get(result_id), self._show_result, self._failed)

    def _show_result(self, kept: KeptResult) -> None:
        self.results_view.show_result(kept)
        self.setCurrentWidget(self.results_page)

    def compare_results(
        self,
        door: FrontDoor,
        ids: Sequence[str],
        shown: Callable[[ResponsivenessComparison], None],
    ) -> None:
        """Two results compared, the older one the baseline; shown(the comparison) once it
        is on view."""
        results = door.results()

        def read() -> ResponsivenessComparison:
            first, second = sorted((results.get(i) for i in ids), key=lambda k: k.created_at)
            return compare_results(first, second)

        def show(comparison: ResponsivenessComparison) -> None:
            self.results_view.show_comparison(comparison)
            self.setCurrentWidget(self.results_page)
            shown(comparison)

        self._reader.run(read, show, self._failed)
