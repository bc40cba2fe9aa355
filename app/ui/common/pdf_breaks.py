"""Where a document laid out by Qt on pages needs a page break, as a browser's print rules
would choose: a heading or a figure's caption kept with what follows it, a table row, a
short paragraph and a short table never cut in two by a page's end, a longer table cut in two
continued under its header. Its text blocks and tables are matched to the HTML's
(pdf_marks.py), where the break is written in."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtGui import QTextBlock, QTextCursor, QTextDocument, QTextTable

from app.ui.common.pdf_marks import Marks, Table, break_before, marks, split_table

#: A row or a heading with what it heads taller than this share of a page is left to break
#: where it falls: on a page of its own it would break all the same.
_KEEPABLE = 0.8
#: A paragraph or list item at most this share of a page is kept on one page: Qt's PDF writer
#: puts the line before a page's first line on that page too (clipped, yet in the text a
#: reader copies or searches), so a block cut in two reads with a line twice.
_TOGETHER = 1 / 3
#: The character Qt puts in a block's text where an image is.
_OBJECT = "\ufffc"


@dataclass(frozen=True)
class _Layout:
    """A document laid out on pages of that height, with where in its HTML each of its text
    blocks (by block number) and each of its tables starts."""

    document: QTextDocument
    page_height: float
    anchors: dict[int, int]  # block number: offset of its start tag in the HTML
    tables: list[QTextTable]
    marks: Marks

    def page(self, y: float) -> int:
        return math.floor(y / self.page_height)

    def lines(self, block: QTextBlock) -> list[tuple[float, float]]:
        """Each line's top and bottom in the document."""
        text_layout = block.layout()
        rect = self.document.documentLayout().blockBoundingRect(block)
        origin = rect.top() - text_layout.boundingRect().top()
        found = []
        for index in range(text_layout.lineCount()):
            line = text_layout.lineAt(index)
            found.append((origin + line.y(), origin + line.y() + line.height()))
        return found

    def span(self, block: QTextBlock) -> tuple[float, float] | None:
        lines = self.lines(block)
        return (lines[0][0], lines[-1][1]) if lines else None

    def row(self, table: QTextTable, row: int) -> tuple[float, float] | None:
        """The top of the row's first line and the bottom of its last, over its cells."""
        spans = []
        for column in range(table.columns()):
            cell = table.cellAt(row, column)
            if cell.row() != row or cell.column() != column:
                continue  # a cell spanning from another row or column
            block = cell.firstCursorPosition().block()
            while block.isValid() and block.position() <= cell.lastPosition():
                spans += self.lines(block)
                block = block.next()
        if not spans:
            return None
        return min(top for top, _ in spans), max(bottom for _, bottom in spans)

    def first_data_row(self, table: QTextTable) -> int:
        """The table's first row below the rows of header cells that lead it."""
        index = next(i for i, t in enumerate(self.tables) if t == table)
        return min(self.marks.tables[index].lead_rows, table.rows() - 1)

    def is_caption(self, block: QTextBlock) -> bool:
        """A paragraph just before a figure (a block holding an image alone)."""
        after = _content_after(block)
        return (
            _OBJECT not in block.text()
            and after.isValid()
            and _table_of(after) is None
            and after.text().strip() == _OBJECT
        )

    def keeps_with_next(self, block: QTextBlock) -> bool:
        return block.blockNumber() in self.anchors and (
            bool(block.blockFormat().headingLevel()) or self.is_caption(block)
        )


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.replace(_OBJECT, " ").split())


def _table_of(block: QTextBlock) -> QTextTable | None:
    return QTextCursor(block).currentTable()


def _content_after(block: QTextBlock) -> QTextBlock:
    after = block.next()
    while after.isValid() and not after.text().strip():
        after = after.next()
    return after


def _content_before(block: QTextBlock) -> QTextBlock:
    before = block.previous()
    while before.isValid() and not before.text().strip():
        before = before.previous()
    return before


#: How far ahead in the HTML a block's words are looked for (past elements Qt made none of).
_LOOK_AHEAD = 64


def _layout(document: QTextDocument, marks: Marks) -> _Layout | None:
    """The laid-out document with its text blocks matched, in order and by their words, to
    the HTML's; None when its tables cannot be (then no break is written in)."""
    anchors: dict[int, int] = {}
    tables: list[QTextTable] = []
    next_mark = 0
    block = document.begin()
    while block.isValid():
        table = _table_of(block)
        if table is not None:
            if all(table != t for t in tables):
                tables.append(table)
        elif block.text().strip():
            words = _words(block.text())
            ahead = marks.blocks[next_mark : next_mark + _LOOK_AHEAD]
            found = next((i for i, mark in enumerate(ahead) if mark.words == words), None)
            if found is not None:
                anchors[block.blockNumber()] = ahead[found].offset
                next_mark += found + 1
        block = block.next()
    if len(tables) != len(marks.tables):
        return None
    for table, marked in zip(tables, marks.tables, strict=True):
        if table.rows() != marked.header_rows + len(marked.rows):
            return None
    return _Layout(document, document.pageSize().height(), anchors, tables, marks)


def _kept_with(laid: _Layout, block: QTextBlock) -> tuple[float, float] | None:
    """The first line of what a heading or caption heads: a table's first row below its
    header rows, else the next block's first line."""
    after = _content_after(block)
    if not after.isValid():
        return None
    table = _table_of(after)
    if table is not None:
        return laid.row(table, laid.first_data_row(table))
    lines = laid.lines(after)
    return lines[0] if lines else None


def _chain_start(laid: _Layout, block: QTextBlock) -> QTextBlock:
    """The first of the headings and captions that lead to this block with nothing between."""
    start = block
    while True:
        before = _content_before(start)
        if not before.isValid() or _table_of(before) is not None:
            return start
        if not laid.keeps_with_next(before):
            return start
        start = before


def _moved(laid: _Layout, block: QTextBlock, bottom: float) -> int | None:
    """The offset to break before so that this block (with the headings and captions that
    lead to it) and what ends at bottom share a page, or None when that cannot help."""
    start = _chain_start(laid, block)
    span = laid.span(start)
    if span is None or start.blockNumber() not in laid.anchors:
        return None
    top = span[0]
    if bottom - top > _KEEPABLE * laid.page_height:
        return None  # taller than a page would hold
    if _starts_page(laid, start, top):
        return None
    return laid.anchors[start.blockNumber()]


def _starts_page(laid: _Layout, block: QTextBlock, top: float) -> bool:
    """Whether nothing comes before the block (at top) on its page: a break would then leave
    a page empty."""
    before = _content_before(block)
    if not before.isValid():
        return True
    table = _table_of(before)
    if table is not None:
        span = laid.row(table, table.rows() - 1)
    else:
        span = laid.span(before)
    return span is None or laid.page(span[1] - 0.5) < laid.page(top)


def _block_break(laid: _Layout, block: QTextBlock) -> int | None:
    """Where to break for a block that a page's end cuts in two, or that it parts from what
    the block heads (a heading or a caption); None when it needs no break."""
    span = laid.span(block)
    if span is None:
        return None
    top, bottom = span
    if laid.keeps_with_next(block):
        target = _kept_with(laid, block)
        if target is not None:
            bottom = max(bottom, target[1])
    elif bottom - top > _TOGETHER * laid.page_height:
        return None  # a long paragraph breaks where it falls
    if laid.page(top) == laid.page(bottom - 0.5):
        return None
    return _moved(laid, block, bottom)


def _row_break(laid: _Layout, index: int, html: str) -> str | None:
    """The HTML with a break before the first row of the table that a page's end would cut in
    two: the table continued on the next page under its header; or, where that row is its
    first below the header cells or the table is short (a third of a page at most) and would
    reach the next page, the whole table moved there (with the headings and caption that
    lead to it)."""
    table = laid.tables[index]
    marked = laid.marks.tables[index]
    first = laid.first_data_row(table)
    rows = [laid.row(table, row) for row in range(table.rows())]
    spans = [span for span in rows if span is not None]
    frame = laid.document.documentLayout().frameBoundingRect(table)
    # Its rows' heights and its borders' (the frame beyond its first and last row's text).
    height = sum(bottom - top for top, bottom in spans)
    if spans:
        height += (spans[0][0] - frame.top()) + (frame.bottom() - spans[-1][1])
    if spans and height <= _TOGETHER * laid.page_height:
        # Short enough to keep whole, as a short paragraph is: Qt would otherwise carry its
        # last rows over to the next page under its header again, the header repeated for a
        # row or two (or for none, where only its bottom border reaches that page).
        if laid.page(frame.top()) == laid.page(frame.bottom() - 0.5):
            return None
        moved = _table_moved(laid, table, marked, frame.top() + height, html)
        if moved is not None:
            return moved
    for row in range(first, table.rows()):
        span = laid.row(table, row)
        if span is None:
            continue
        top, bottom = span
        if laid.page(top) == laid.page(bottom - 0.5) or bottom - top > _KEEPABLE * laid.page_height:
            continue
        if row > first:
            return split_table(html, marked, row - marked.header_rows)
        return _table_moved(laid, table, marked, bottom, html)
    return None


def _table_moved(
    laid: _Layout, table: QTextTable, marked: Table, bottom: float, html: str
) -> str | None:
    """The HTML with the table starting a new page, or the headings and caption that lead to
    it; None where it starts one already."""
    before = _content_before(table.firstCursorPosition().block())
    if before.isValid() and _table_of(before) is None and laid.keeps_with_next(before):
        offset = _moved(laid, before, bottom)
        return None if offset is None else break_before(html, offset)
    head = laid.row(table, 0)
    if head is None or _starts_page(laid, table.firstCursorPosition().block(), head[0]):
        return None
    return break_before(html, marked.offset)


def _next_break(html: str, laid: _Layout) -> str | None:
    """The HTML with the first page break it needs written in, or None when it needs none."""
    checked: list[QTextTable] = []
    block = laid.document.begin()
    while block.isValid():
        table = _table_of(block)
        if table is not None:
            if all(table != t for t in checked):
                checked.append(table)
                index = next(i for i, t in enumerate(laid.tables) if t == table)
                changed = _row_break(laid, index, html)
                if changed is not None:
                    return changed
        elif block.blockNumber() in laid.anchors:
            offset = _block_break(laid, block)
            if offset is not None:
                return break_before(html, offset)
        block = block.next()
    return None


def next_break(html: str, document: QTextDocument) -> str | None:
    """The HTML with the first page break its laid-out document needs written in, or None
    when it needs none (or its blocks and tables cannot be matched to the HTML's)."""
    laid = _layout(document, marks(html))
    if laid is None:
        return None
    return _next_break(html, laid)
