"""Reads a PDF report against the HTML report it was made from, as a reader would check it:
every heading of the HTML in the PDF, in order and once each; every caption and paragraph as
often as the HTML has it; every table row whole on one page. The PDF's text is taken in the
order it was painted (pdftotext -raw), page by page."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from tests.artifacts import NO_POPPLER, PDFTOTEXT

_HEADINGS = {f"h{n}" for n in range(1, 7)}
#: A PDF line at least this long (without spaces) is not expected twice by chance.
_LONG_LINE = 24


#: When a report was made: the HTML and the PDF saved a few seconds apart say different times.
_MADE_AT = re.compile(r"(Made|Drafted) by LinkLab (\S+) on \d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d UTC")


def squeezed(text: str) -> str:
    """The text as compared: ligatures undone, no whitespace at all (a PDF breaks lines, and
    words at a slash, where the HTML does not), the time it was made left out, and no word
    joiner (U+2060, which keeps a unit whole and is never painted)."""
    text = _MADE_AT.sub(r"\1 by LinkLab \2", unicodedata.normalize("NFKC", text))
    return re.sub(r"[\s\u2060]+", "", text)


def spaced(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).replace("\u2060", "").split())


@dataclass
class Outline:
    """What a reader finds in the HTML report: its headings, the captions of its figures, its
    paragraphs and list items, and each table's rows as the text of their cells."""

    headings: list[str] = field(default_factory=list)
    captions: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    header_rows: list[str] = field(default_factory=list)
    text: str = ""


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline = Outline()
        self._in_body = False
        self._block: list[str] | None = None
        self._block_tag = ""
        self._row: list[str] | None = None
        self._header_row = False
        self._paragraph_before = ""  # the paragraph just closed, until another element opens
        self._image_paragraph = False
        self._body: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            if self._block_tag == "p" and self._paragraph_before:
                self.outline.captions.append(self._paragraph_before)
            self._paragraph_before = ""
            return
        if tag == "br":
            self.handle_data(" ")
            return
        if tag == "body":
            self._in_body = True
        if tag != "p":
            self._paragraph_before = ""
        if tag == "tr":
            self._row, self._header_row = [], False
        elif tag == "th":
            self._header_row = True
        elif (tag in _HEADINGS or tag in ("p", "li")) and self._row is None:
            if tag == "p" and self._block_tag != "":
                return
            self._block, self._block_tag = [], tag

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._row is not None:
            self.outline.rows.append("".join(self._row))
            if self._header_row:
                self.outline.header_rows.append(self.outline.rows[-1])
            self._row = None
        elif tag == self._block_tag and self._block is not None:
            text = spaced("".join(self._block))
            if tag in _HEADINGS:
                self.outline.headings.append(text)
            elif text:
                self.outline.paragraphs.append(text)
            self._paragraph_before = text if tag == "p" else ""
            self._block, self._block_tag = None, ""

    def handle_data(self, data: str) -> None:
        if not self._in_body:
            return
        self._body.append(data)
        if self._row is not None:
            self._row.append(data)
        if self._block is not None:
            self._block.append(data)


def outline(html: str) -> Outline:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    found = reader.outline
    found.text = squeezed("".join(reader._body))
    return found


def pdf_pages_text(pdf: Path) -> list[str]:
    """Each page's text in the order it was painted."""
    assert PDFTOTEXT is not None, NO_POPPLER
    done = subprocess.run(
        [PDFTOTEXT, "-raw", str(pdf), "-"], check=True, capture_output=True, timeout=60
    )
    pages = done.stdout.decode("utf-8", "replace").split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def _row_places(rows: list[str], pages: list[str]) -> list[str]:
    """Each row found whole on one page, in order; the rows that are not."""
    squeezed_pages = [squeezed(p) for p in pages]
    page, at, missing = 0, 0, []
    for row in rows:
        wanted = squeezed(row)
        if not wanted:
            continue
        found = squeezed_pages[page].find(wanted, at)
        if found >= 0:
            at = found + len(wanted)
            continue
        for later in range(page + 1, len(squeezed_pages)):
            found = squeezed_pages[later].find(wanted)
            if found >= 0:
                page, at = later, found + len(wanted)
                break
        else:
            missing.append(row)
    return missing


#: A heading wraps over at most this many lines of the PDF.
_HEADING_LINES = 3


def _headings_found(headings: set[str], pages: list[str]) -> list[str]:
    """The PDF's lines that are headings, in order (a long one wrapped over a few lines)."""
    lines = [spaced(line) for page in pages for line in page.splitlines()]
    found, at = [], 0
    while at < len(lines):
        for count in range(_HEADING_LINES, 0, -1):
            joined = " ".join(lines[at : at + count])
            if joined in headings:
                found.append(joined)
                at += count
                break
        else:
            at += 1
    return found


def pdf_problems(html: str, pdf: Path) -> list[str]:
    """What the PDF loses or says twice of the HTML report it was made from."""
    read = outline(html)
    pages = pdf_pages_text(pdf)
    problems = []
    found = _headings_found(set(read.headings), pages)
    if found != read.headings:
        problems.append(f"headings in the PDF {found} are not the HTML's {read.headings}")
    whole = squeezed("".join(pages))
    for text in {*read.captions, *read.paragraphs}:
        key = squeezed(text)
        have, want = whole.count(key), read.text.count(key)
        if have != want:
            problems.append(f"{have} times in the PDF, {want} in the HTML: {text!r}")
    # A line of the PDF said more often than the HTML says it: Qt painting a paragraph's line
    # on two pages (short lines, such as a table's "128", recur anyway; so does a table's
    # header on each page the table reaches).
    headers = [squeezed(row) for row in read.header_rows]
    for line in {spaced(line) for page in pages for line in page.splitlines()}:
        key = squeezed(line)
        if len(key) < _LONG_LINE or any(key in header for header in headers):
            continue
        if whole.count(key) > read.text.count(key):
            problems.append(f"{whole.count(key)} times in the PDF: {line!r}")
    for caption in read.captions:
        if squeezed(caption) not in whole:
            problems.append(f"caption missing: {caption!r}")
    problems += [f"row not whole on one page: {row!r}" for row in _row_places(read.rows, pages)]
    return problems
