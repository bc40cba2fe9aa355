"""Where a report's HTML starts each paragraph, list item, heading and table row, and the
same HTML with a page break written in before one of them (for the PDF's pages)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

PAGE_BREAK = "page-break-before: always"
_HEADINGS = {f"h{n}" for n in range(1, 7)}
#: The elements whose text Qt lays out as a block of its own.
_TEXT_BLOCKS = {"p", "li", *_HEADINGS}


@dataclass(frozen=True)
class TextBlock:
    """A paragraph, list item or heading outside tables: where its start tag is, and its
    words."""

    offset: int
    words: tuple[str, ...]


@dataclass
class Table:
    """A table's start tag, the HTML of its header rows (its thead), where each other row
    starts (and whether inside a tbody), and how many rows lead it made of header cells only
    (its thead's and any th-only rows after them)."""

    offset: int
    tag: str
    header: str = ""
    header_rows: int = 0
    rows: list[tuple[int, bool]] = field(default_factory=list)
    lead_rows: int = 0
    _header_from: int = -1
    _in_head: bool = False
    _in_body: bool = False
    _row_cells: set[str] = field(default_factory=set)


@dataclass
class Marks:
    """The text blocks and the tables of an HTML page, in the order they come."""

    blocks: list[TextBlock] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


class _Scanner(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.marks = Marks()
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._open_tables: list[Table] = []
        self._reading: list[tuple[str, int, list[str]]] = []  # (tag, offset, text so far)

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        offset, text = self._offset(), self.get_starttag_text() or ""
        if tag in _TEXT_BLOCKS and not self._open_tables:
            self._reading.append((tag, offset, []))
        elif tag == "br":
            self.handle_data(" ")
        elif tag == "table":
            table = Table(offset, text)
            self._open_tables.append(table)
            self.marks.tables.append(table)
        elif self._open_tables:
            table = self._open_tables[-1]
            if tag == "thead":
                table._in_head, table._header_from = True, offset + len(text)
            elif tag == "tbody":
                table._in_body = True
            elif tag == "tr":
                table._row_cells = set()
                if table._in_head:
                    table.header_rows += 1
                else:
                    table.rows.append((offset, table._in_body))
            elif tag in ("th", "td"):
                table._row_cells.add(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._reading and self._reading[-1][0] == tag:
            _, offset, text = self._reading.pop()
            self.marks.blocks.append(TextBlock(offset, tuple("".join(text).split())))
        elif self._open_tables:
            table = self._open_tables[-1]
            if tag == "thead":
                table.header = self.rawdata[table._header_from : self._offset()]
                table._in_head = False
            elif tag == "tbody":
                table._in_body = False
            elif tag == "tr":
                leading = table.lead_rows == table.header_rows + len(table.rows) - 1
                if leading and table._row_cells == {"th"}:
                    table.lead_rows += 1
            elif tag == "table":
                self._open_tables.pop()

    def handle_data(self, data: str) -> None:
        for _, _, text in self._reading:
            text.append(data)


def marks(html: str) -> Marks:
    """Where the HTML's text blocks and table rows start. The blocks are listed as each
    ends, so a list item holding a paragraph comes after it."""
    scanner = _Scanner(html)
    scanner.feed(html)
    scanner.close()
    scanner.marks.blocks.sort(key=lambda b: b.offset)
    return scanner.marks


def _with_break(tag: str) -> str:
    """A start tag that begins a new page."""
    if re.search(r"\sstyle\s*=", tag):
        return re.sub(r'(\sstyle\s*=\s*["\'])', rf"\1{PAGE_BREAK}; ", tag, count=1)
    return re.sub(r"\s*/?>$", f' style="{PAGE_BREAK}">', tag, count=1)


def break_before(html: str, offset: int) -> str:
    """The HTML with the start tag at offset beginning a new page."""
    end = html.index(">", offset) + 1
    return html[:offset] + _with_break(html[offset:end]) + html[end:]


def split_table(html: str, table: Table, row: int) -> str:
    """The HTML with the table ended before that row (counted after the header rows) and
    continued on a new page under its header rows again."""
    offset, in_body = table.rows[row]
    closing = "</tbody></table>" if in_body else "</table>"
    header = f"<thead>{table.header}</thead>" if table.header_rows else ""
    opening = _with_break(table.tag) + header + ("<tbody>" if in_body else "")
    return html[:offset] + closing + opening + html[offset:]
