"""Line ends: an engine's output split into lines on \\n, \\r\\n and \\r alike, as text (for the
parsers) and as bytes arriving from a pipe in pieces (for the process module)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

#: What ends a line: an engine on Windows, or one whose output passed through a terminal,
#: ends its lines in \r\n; an old Mac convention, or a progress-style writer, in \r alone.
_TEXT_END = re.compile(r"\r\n|\r|\n")
_BYTES_END = re.compile(rb"\r\n|\r|\n")


def split_lines(lines: Iterable[str]) -> Iterator[str]:
    """Each item split where a line ends within it (\\n, \\r\\n or \\r), the end dropped; an item
    that is no text passes as it is (for the parser to refuse)."""
    for item in lines:
        if not isinstance(item, str) or ("\r" not in item and "\n" not in item):
            yield item
            continue
        pieces = _TEXT_END.split(item)
        if len(pieces) > 1 and pieces[-1] == "":
            pieces.pop()  # the item ended in a line end: no empty line after it
        yield from pieces


class LineSplitter:
    """Bytes as they arrive from a pipe, in pieces, cut into lines on \\n, \\r\\n and \\r alike.

    A \\r that ends one piece and a \\n that starts the next are one line end. Each line keeps
    at most `max_bytes` (a memory bound); its full length is given beside it, so that a cut
    can be said.
    """

    def __init__(self, max_bytes: int) -> None:
        self._max = max_bytes
        self._line = bytearray()
        self._length = 0  # the line's length so far, cut bytes included
        self._after_cr = False  # the last piece ended in \r: a \n first in the next is its end

    def feed(self, chunk: bytes) -> list[tuple[bytes, int]]:
        """The lines this piece ends, each as (its bytes, at most max_bytes; its full length)."""
        done: list[tuple[bytes, int]] = []
        start = 1 if self._after_cr and chunk[:1] == b"\n" else 0
        self._after_cr = chunk.endswith(b"\r")
        for match in _BYTES_END.finditer(chunk, start):
            self._add(chunk[start : match.start()])
            done.append(self._take())
            start = match.end()
        self._add(chunk[start:])
        return done

    def close(self) -> list[tuple[bytes, int]]:
        """The last line, when the output ended without a line end."""
        return [self._take()] if self._length else []

    def _add(self, piece: bytes) -> None:
        room = self._max - len(self._line)
        if room > 0:
            self._line += piece[:room]
        self._length += len(piece)

    def _take(self) -> tuple[bytes, int]:
        line = (bytes(self._line), self._length)
        self._line.clear()
        self._length = 0
        return line


def cut_text(line: bytes, length: int) -> str:
    """A line as kept (stderr's): the rest of an over-long one counted, not kept."""
    text = line.decode("utf-8", "replace")
    return f"{text} … ({length} bytes, cut)" if length > len(line) else text
