"""HTML laid out on A4 pages by Qt's own PDF writer (no browser engine needed), with the page
breaks a browser's print rules would choose: a heading or a figure's caption kept with what
follows it, a table row and a short paragraph never cut in two by a page's end."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QPageLayout,
    QPageSize,
    QPainter,
    QPalette,
    QPdfWriter,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
    QTextOption,
    QTextTable,
)

from app.ui.common.pdf_marks import Marks, Table, break_before, marks, split_table
from app.ui.common.render_charts import ensure_application

#: A4 with 15 mm margins leaves 180 × 267 mm; the document is laid out at 96 dpi, then the
#: writer scales it onto the page.
_PAGE_MARGIN_MM = 15.0
_LAYOUT_DPI = 96
_A4_MM = (210.0, 297.0)
#: At most this much smaller type to fit a wide table on the page (9 pt becomes 7.5 pt).
_MAX_STRETCH = 1.2
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


# -- where to break ------------------------------------------------------------------------


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
    first below the header cells, the whole table moved there (with the headings and caption
    that lead to it)."""
    table = laid.tables[index]
    marked = laid.marks.tables[index]
    first = laid.first_data_row(table)
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


# -- the PDF -------------------------------------------------------------------------------


_IMAGE_SIZE = re.compile(r'(<img\b[^>]*?)\swidth="(\d+)"\s+height="(\d+)"')


def fit_image_tags(html: str, max_width: float) -> str:
    """The HTML with each sized image wider than the text column given the column's width
    (its height in proportion), before layout."""

    def fit(match: re.Match[str]) -> str:
        width, height = int(match[2]), int(match[3])
        if width <= max_width:
            return match[0]
        return f'{match[1]} width="{max_width:.0f}" height="{height * max_width / width:.0f}"'

    return _IMAGE_SIZE.sub(fit, html)


def _fit_images(document: QTextDocument, max_width: float) -> None:
    """Shrink images wider than the text column, keeping their aspect ratio (those without
    a size in their tag); done before the document is laid out."""
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            fmt = fragment.charFormat()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                width, height = image.width(), image.height()
                if width > max_width and height > 0:
                    fitted = QTextImageFormat(image)
                    fitted.setWidth(max_width)
                    fitted.setHeight(height * max_width / width)
                    cursor = QTextCursor(document)
                    cursor.setPosition(fragment.position())
                    end = fragment.position() + fragment.length()
                    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                    cursor.setCharFormat(fitted)
            fragments += 1
        block = block.next()


def _document(html: str, page: QSizeF) -> QTextDocument:
    """The HTML laid out afresh on pages of that size. Always a new document: Qt lays out
    again only what follows a change in one already laid out, and prints stale lines where
    a change moved what came after it (headings gone, a line on two pages)."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    font = QFont()
    font.setPointSize(9)
    document.setDefaultFont(font)
    # Break lines between words only: Qt's default also breaks inside words, which squeezes
    # table columns until "Difference" splits in two.
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    document.setDefaultTextOption(option)
    document.setHtml(fit_image_tags(html, page.width()))
    _fit_images(document, page.width())
    # Set last, so that the whole document is laid out once on these pages. A page size of
    # our own also stops print() from adding its 2 cm margins on top of ours.
    document.setPageSize(page)
    document.documentLayout().documentSize()
    return document


def paginated(html: str, page: QSizeF) -> tuple[str, QTextDocument]:
    """The HTML with the page breaks it needs on pages of that size, and its document laid
    out: one break at a time, each laid out afresh, since a break moves what follows."""
    document = _document(html, page)
    for _ in range(4 * document.pageCount() + 8):  # a break per page at most, and room
        laid = _layout(document, marks(html))
        if laid is None:
            break
        changed = _next_break(html, laid)
        if changed is None:
            break
        html = changed
        document = _document(html, page)
    return html, document


def text_column(stretch: float = 1.0) -> QSizeF:
    """The text column of an A4 page at the layout's resolution, laid out that much wider
    and taller when a wide table needs it (the writer scales it back onto the paper)."""
    per_mm = _LAYOUT_DPI / 25.4
    # Whole pixels: Qt lays the pages out in 1/64 px but prints them at the size given, so a
    # fraction left over puts a page's first line at the foot of the page before as well.
    return QSizeF(
        math.floor((_A4_MM[0] - 2 * _PAGE_MARGIN_MM) * per_mm * stretch),
        math.floor((_A4_MM[1] - 2 * _PAGE_MARGIN_MM) * per_mm * stretch),
    )


#: How far inside a page's edges what is drawn on it must reach (layout px).
_EDGE = 0.01


def _print(document: QTextDocument, writer: QPdfWriter) -> None:
    """Each page as QTextDocument.print_() draws it, but told to draw only what lies inside
    the page: print_() also draws (clipped away, yet in the text a reader copies or searches)
    a block that ends exactly where the page begins and a line that begins exactly where it
    ends, so that a page's first line was said at the foot of the page before as well."""
    page = document.pageSize()
    painter = QPainter(writer)
    try:
        painter.scale(writer.width() / page.width(), writer.height() / page.height())
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, QColor("black"))
        for number in range(document.pageCount()):
            if number:
                writer.newPage()
            view = QRectF(0.0, number * page.height(), page.width(), page.height())
            painter.save()
            painter.translate(0.0, -view.top())
            painter.setClipRect(view)
            context.clip = view.adjusted(0.0, _EDGE, 0.0, -_EDGE)
            document.documentLayout().draw(painter, context)
            painter.restore()
    finally:
        painter.end()


def pdf_from_html(html: str, path: str | Path | None) -> bytes:
    """Lay the HTML out on A4 pages (15 mm margins); return the PDF and write it to path when
    one is given."""
    ensure_application()
    page = text_column()
    # A table whose words cannot share the page's width (ten columns of differences) would
    # run past the page's edge and be cut: the page is then laid out wider, and the writer
    # scales it (type and all) onto the paper.
    needed = _document(html, page).idealWidth()
    if needed > page.width() + 0.5:
        page = text_column(min(needed / page.width(), _MAX_STRETCH))
    _, document = paginated(html, page)
    buffer = QByteArray()
    device = QBuffer(buffer)
    device.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(device)
    writer.setTitle("LinkLab report")
    writer.setCreator("LinkLab")
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    margins = QMarginsF(_PAGE_MARGIN_MM, _PAGE_MARGIN_MM, _PAGE_MARGIN_MM, _PAGE_MARGIN_MM)
    writer.setPageMargins(margins, QPageLayout.Unit.Millimeter)
    _print(document, writer)
    del writer  # the writer finishes the file when it goes
    device.close()
    data = bytes(buffer.data())
    if path is not None:
        Path(path).write_bytes(data)
    return data
