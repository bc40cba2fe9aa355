"""HTML laid out on A4 pages by Qt's own PDF writer (no browser engine needed), with the page
breaks a browser's print rules would choose (pdf_breaks.py), and each page printed."""

from __future__ import annotations

import math
import re
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
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
    QTextOption,
)

from app.report.html_parts import unbroken_units
from app.ui.common.pdf_breaks import next_break
from app.ui.common.render_charts import ensure_application

#: A4 with 15 mm margins leaves 180 × 267 mm; the document is laid out at 96 dpi, then the
#: writer scales it onto the page.
_PAGE_MARGIN_MM = 15.0
_LAYOUT_DPI = 96
_A4_MM = (210.0, 297.0)
#: At most this much smaller type to fit a wide table on the page (9 pt becomes 7.5 pt).
_MAX_STRETCH = 1.2

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
        changed = next_break(html, document)
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
    html = unbroken_units(html)  # its units whole in the PDF only, not in the HTML file
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
