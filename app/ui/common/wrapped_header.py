"""A table header whose titles of several words take two or three lines where that makes
their column narrower ("Loaded" over "latency" over "ms"), and which may draw a shorter title
given to it ("Retr" for "Retransmits", the full one kept for copying, screen readers and the
tooltip): a results table then fits its columns in a pane of a 1280-px window without
scrolling sideways."""

from __future__ import annotations

from collections.abc import Iterator

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

#: The role under which a header section may hold the shorter title it is drawn with.
SHORT_TITLE_ROLE = int(Qt.ItemDataRole.UserRole) + 7
#: A title takes at most this many lines.
MOST_LINES = 3


def _layouts(words: list[str], lines: int) -> Iterator[list[str]]:
    """Every way to set the words, in order, on up to `lines` lines."""
    yield [" ".join(words)]
    if lines > 1:
        for cut in range(1, len(words)):
            for rest in _layouts(words[cut:], lines - 1):
                yield [" ".join(words[:cut]), *rest]


def wrapped(title: str, metrics: QFontMetrics, room: int = 0, lines: int = MOST_LINES) -> str:
    """The title on as few lines (up to `lines`) as leave it no wider than room (the width its
    column's cells take anyway), else on those that make its widest line narrowest."""

    def width(layout: list[str]) -> int:
        return max(metrics.horizontalAdvance(line) for line in layout)

    def cost(layout: list[str]) -> int:
        # Another line must narrow the title by more than a character's width to be taken
        # ("95 %" over "CI ±", not "95" over "%" over "CI ±").
        return width(layout) + metrics.averageCharWidth() * (len(layout) - 1)

    layouts = list(_layouts(title.split(" "), lines))
    fitting = [layout for layout in layouts if width(layout) <= room]
    if fitting:
        best = min(fitting, key=lambda layout: (len(layout), width(layout)))
    else:
        best = min(layouts, key=cost)
    return "\n".join(best)


class WrappedHeader(QHeaderView):
    """A horizontal header drawing each title (or its shorter one) as wrapped() lays it out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        # A one-letter title over one-digit figures ("n") as narrow as they are.
        self.setMinimumSectionSize(self.fontMetrics().horizontalAdvance("0") + 4 * self._margin())

    def shown_title(self, section: int) -> str:
        """The title as drawn: on one line where its column's cells are as wide anyway."""
        model = self.model()
        if model is None:
            return ""
        orientation = self.orientation()
        short = model.headerData(section, orientation, SHORT_TITLE_ROLE)
        text = str(short or model.headerData(section, orientation, Qt.ItemDataRole.DisplayRole))
        table = self.parentWidget()
        cells = table.sizeHintForColumn(section) if isinstance(table, QAbstractItemView) else 0
        return wrapped(text, self.fontMetrics(), cells - 4 * self._margin())

    def _margin(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)

    def sectionSizeFromContents(self, logicalIndex: int) -> QSize:
        lines = self.shown_title(logicalIndex).split("\n")
        metrics = self.fontMetrics()
        width = max(metrics.horizontalAdvance(line) for line in lines)
        margin = self._margin()
        # The header is as tall as its tallest title.
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
        painter.drawText(inner, int(Qt.AlignmentFlag.AlignCenter), self.shown_title(logicalIndex))
        painter.restore()
