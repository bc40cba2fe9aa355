"""A read-only log that follows new lines like a terminal: while the user is at its last line
it keeps showing the newest, through resizes and trimmed lines; scrolled up, it stays where
they read until they scroll back down."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget


class LogView(QPlainTextEdit):
    def __init__(self, max_lines: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(max_lines)
        self.following = True  # the user is at the last line: new lines scroll into view
        self._adjusting = False  # a scroll LinkLab makes, not the user's
        self.verticalScrollBar().valueChanged.connect(self._scrolled)

    def appendPlainText(self, text: str) -> None:
        with self._own_scroll():
            super().appendPlainText(text)
            if self.following:
                self._to_end()

    def clear(self) -> None:
        with self._own_scroll():
            super().clear()
        self.following = True

    def resizeEvent(self, event: QResizeEvent) -> None:
        with self._own_scroll():
            super().resizeEvent(event)
            if self.following:
                self._to_end()

    @contextmanager
    def _own_scroll(self) -> Iterator[None]:
        """While LinkLab itself scrolls the log, the scroll is not read as the user's."""
        before, self._adjusting = self._adjusting, True
        try:
            yield
        finally:
            self._adjusting = before

    def _scrolled(self, _value: int) -> None:
        if not self._adjusting:
            self.following = self._last_line_shown()

    def _last_line_shown(self) -> bool:
        """Whether the last line is on screen. The scroll bar's maximum cannot tell: with
        wrapped lines QPlainTextEdit lays the document out lazily, and the maximum grows as
        the user scrolls towards it."""
        block = self.document().lastBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        return top < self.viewport().height()

    def _to_end(self) -> None:
        bar = self.verticalScrollBar()
        for _ in range(4):  # each step can lay out more lines and so raise the maximum
            if bar.value() == bar.maximum():
                break
            bar.setValue(bar.maximum())
