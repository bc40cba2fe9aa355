"""Warnings above a chart, in a band that never takes the chart's room: as tall as its text up
to a few lines, then it scrolls; folded away, its view says how many there are instead."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QWidget

from app.domain.units import counted
from app.ui.common.widgets import WARNING_STYLE, accessible

#: The most lines the band shows before it scrolls.
BAND_LINES = 3


class WarningBand(QScrollArea):
    """The warnings' sentences, each on a line of its own behind a ⚠."""

    def __init__(self, name: str, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setObjectName(object_name)
        accessible(self.label, name)
        self.label.setWordWrap(True)
        self.label.setStyleSheet(WARNING_STYLE)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setWidget(self.label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._sentences: list[str] = []
        self._folded = False
        self._line_height: int | None = None
        self.setVisible(False)

    @property
    def sentences(self) -> list[str]:
        return list(self._sentences)

    def show_warnings(self, sentences: Sequence[str]) -> None:
        self._sentences = list(sentences)
        self._update()

    def set_folded(self, folded: bool) -> None:
        """Folded away (the view then counts the warnings on a line of its own)."""
        self._folded = folded
        self._update()

    def summary(self) -> str:
        """'⚠ 2 warnings: Show details to read them', or '' when there is none."""
        n = len(self._sentences)
        return f"⚠ {counted(n, 'warning')}: Show details to read" if n else ""

    def clear(self) -> None:
        self.show_warnings([])

    def _update(self) -> None:
        said = self._sentences
        if len(said) > 1:
            # Said first, so that a band that scrolls still tells how much there is to read.
            lines = "\n".join(f"⚠ {s}" for s in said)
            text = f"{len(said)} warnings about these figures (scroll to read them all):\n{lines}"
        else:
            text = "\n".join(f"⚠ {s}" for s in said)
        self.label.setText(text)
        self.setVisible(bool(said) and not self._folded)
        self._fit()

    def _fit(self) -> None:
        width = max(self.viewport().width(), 200)
        # Whole lines only: a line cut in half reads as damage, not as "scroll for more".
        one_line = self._one_line_height()
        cap = one_line + self.label.fontMetrics().lineSpacing() * (BAND_LINES - 1) + 2
        self.setFixedHeight(min(self.label.heightForWidth(width) + 2, cap))

    def _one_line_height(self) -> int:
        """The label's height holding one line: its padding and border around a line. Measured
        once (by setting one line), not at every resize."""
        if self._line_height is None:
            text = self.label.text()
            self.label.setText("⚠")
            self._line_height = self.label.heightForWidth(400)
            self.label.setText(text)
        return self._line_height

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()
