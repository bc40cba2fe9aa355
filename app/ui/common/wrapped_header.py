"""A table header whose titles of several words take two lines where that makes their column
narrower ("Out of" over "order"): a results table then fits its columns in a pane of a
1280-px window without scrolling sideways. The titles themselves are not changed."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyleOptionHeader,
    QWidget,
)

Index = QModelIndex | QPersistentModelIndex


def two_lines(title: str, metrics: QFontMetrics) -> str:
    """The title on one line, or broken at the space that makes its wider line narrowest."""
    words = title.split(" ")
    best, width = title, metrics.horizontalAdvance(title)
    for cut in range(1, len(words)):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        wider = max(metrics.horizontalAdvance(first), metrics.horizontalAdvance(second))
        if wider < width:
            best, width = f"{first}\n{second}", wider
    return best


class WrappedHeader(QHeaderView):
    """A horizontal header drawing each title as two_lines() lays it out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)

    def _title(self, section: int) -> str:
        """The title as drawn: on one line where its column's cells are as wide anyway."""
        model = self.model()
        if model is None:
            return ""
        text = str(model.headerData(section, self.orientation(), Qt.ItemDataRole.DisplayRole))
        table = self.parentWidget()
        cells = table.sizeHintForColumn(section) if isinstance(table, QAbstractItemView) else 0
        if self.fontMetrics().horizontalAdvance(text) + 4 * self._margin() <= cells:
            return text
        return two_lines(text, self.fontMetrics())

    def _margin(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)

    def sectionSizeFromContents(self, logicalIndex: int) -> QSize:
        lines = self._title(logicalIndex).split("\n")
        metrics = self.fontMetrics()
        width = max(metrics.horizontalAdvance(line) for line in lines)
        margin = self._margin()
        # The header is as tall as its tallest title: two lines when any wraps, else one.
        return QSize(width + 4 * margin, len(lines) * metrics.lineSpacing() + 2 * margin)

    def paintSection(self, painter: QPainter, rect: QRect, logicalIndex: int) -> None:
        if not rect.isValid():
            return
        option = QStyleOptionHeader()
        self.initStyleOption(option)
        option.rect = rect
        option.section = logicalIndex
        option.text = ""
        option.orientation = self.orientation()
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        painter.save()
        painter.setPen(self.palette().buttonText().color())
        margin = self._margin()
        inner = rect.adjusted(margin, 0, -margin, 0)
        painter.drawText(inner, int(Qt.AlignmentFlag.AlignCenter), self._title(logicalIndex))
        painter.restore()
