"""The pairs a comparison draws, each a box to untick (its curves hidden), laid side by side
in lines as wide as the tab so that the chart keeps the height."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QListWidget, QWidget


class PairList(QListWidget):
    """The pairs compared, side by side in lines as wide as the tab (four fit on one line at
    1280 px), as tall as those lines: the chart keeps the rest of the height."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFlow(QListWidget.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setSpacing(2)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fit()

    def fit(self) -> None:
        """As tall as the lines its pairs wrap into at its width (one line when empty)."""
        self.doItemsLayout()
        bottom = max(
            (self.visualItemRect(self.item(i)).bottom() for i in range(self.count())),
            default=self.fontMetrics().height() + 4,
        )
        self.setFixedHeight(bottom + self.verticalOffset() + 2 * self.frameWidth() + 4)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()
