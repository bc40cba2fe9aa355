"""JSON text read as it streams: the structure of objects and arrays walked here, a key or an
item at a time, and each value decoded whole by the json module's own C scanner
(JSONDecoder.raw_decode) once the text read so far holds it. A file of any length is walked
in the memory of its largest value, and no value may be larger than a LinkLab file's: a text
(a run's raw output) up to MAX_TEXT_CHARS, anything else (a plan, an environment, a sample)
up to MAX_VALUE_CHARS."""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Iterator
from typing import IO, Any

from app.study.files.json_files import (
    MAX_NESTING,
    MAX_TEXT_BYTES,
    NOT_A_NUMBER,
    WIDE_MARKS,
    Unreadable,
)

#: How much of the file is decoded at once.
CHUNK = 1024 * 1024
#: The longest text value (characters): a run's raw output, with its escapes.
MAX_TEXT_CHARS = MAX_TEXT_BYTES
#: The longest value of any other kind, as text: far above an environment's or a plan's.
MAX_VALUE_CHARS = 8 * 1024 * 1024
_WHITE = " \t\n\r"


#: How near the end of what was read a value may stop only because the read did: a word of
#: at most 5 letters, or a number's exponent or fraction still to come.
_LONGEST_CUT = 32
#: A number that may be beyond a float's range: a large exponent, or many digits.
_HUGE = re.compile(r"[eE][+]?0*[1-9][0-9]{2,}|[0-9]{300,}")


def _infinite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    items = value.values() if isinstance(value, dict) else value
    return isinstance(items, list | type({}.values())) and any(_infinite(v) for v in items)


def _constant(name: str) -> float:
    raise ValueError(name)  # NaN, Infinity, -Infinity: not JSON


_DECODER = json.JSONDecoder(parse_constant=_constant)


class JsonText:
    """The text of one file, a chunk at a time, with the place reached in it."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        start = handle.read(4)
        if start.startswith(WIDE_MARKS):
            raise Unreadable("it is not UTF-8 text")
        handle.seek(3 if start.startswith(b"\xef\xbb\xbf") else 0)
        self.decode = codecs.getincrementaldecoder("utf-8")().decode
        self.text = ""
        self.pos = 0
        self.ended = False
        self.lines = 0  # line breaks in the text already let go
        self.column = 0  # characters of the current line already let go
        self.depth = 0  # objects and arrays open

    # -- the text --------------------------------------------------------------------------------
    def _more(self) -> bool:
        """Read on; False at the file's end."""
        if self.ended:
            return False
        raw = self.handle.read(CHUNK)
        try:
            chunk = self.decode(raw, final=not raw)
        except UnicodeDecodeError:
            raise Unreadable("it is not UTF-8 text") from None
        self.ended = not raw
        kept = self.text[self.pos :]
        self.lines += self.text.count("\n", 0, self.pos)
        last = self.text.rfind("\n", 0, self.pos)
        self.column = self.pos - last - 1 if last >= 0 else self.column + self.pos
        self.text, self.pos = kept + chunk, 0
        return bool(raw) or bool(chunk)

    def _char(self) -> str:
        """The next character that is not white space ("" at the end), not taken."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _WHITE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self._more():
                return ""

    def _take(self, char: str) -> bool:
        if self._char() == char:
            self.pos += 1
            return True
        return False

    def fault(self, what: str, at: int | None = None) -> Unreadable:
        at = self.pos if at is None else at
        line = self.lines + self.text.count("\n", 0, at) + 1
        last = self.text.rfind("\n", 0, at)
        column = at - last if last >= 0 else self.column + at + 1
        return Unreadable(f"it is not valid JSON: {what}, line {line} column {column}")

    # -- structure -------------------------------------------------------------------------------
    def opens(self, char: str) -> bool:
        """Whether the next value is an object ("{") or an array ("["): then it is entered."""
        if not self._take(char):
            return False
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise Unreadable("it nests deeper than any LinkLab file")
        return True

    def keys(self) -> Iterator[str]:
        """The keys of the object just entered, each before its value (which the caller reads:
        value(), skip(), or opens() and so on); ends past its closing brace."""
        first = True
        while True:
            if self._take("}"):
                self.depth -= 1
                return
            if not first and not self._take(","):
                raise self.fault("Expecting ',' delimiter")
            first = False
            if self._char() != '"':
                raise self.fault("Expecting property name enclosed in double quotes")
            key = self.value()
            if not self._take(":"):
                raise self.fault("Expecting ':' delimiter")
            yield key

    def items(self) -> Iterator[int]:
        """The items of the array just entered, numbered from 1, each before it is read."""
        number = 0
        while True:
            if self._take("]"):
                self.depth -= 1
                return
            if number and not self._take(","):
                raise self.fault("Expecting ',' delimiter")
            number += 1
            yield number

    def end(self) -> None:
        """Nothing but white space may follow the file's value."""
        if self._char():
            raise self.fault("Extra data")

    # -- values ----------------------------------------------------------------------------------
    def value(self) -> Any:
        """The next value, decoded whole (and taken)."""
        if not self._char():
            raise self.fault("Expecting value")
        text_value = self.text[self.pos] == '"'
        cap = MAX_TEXT_CHARS if text_value else MAX_VALUE_CHARS
        while True:
            try:
                found, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as err:
                # Cut off by the end of what was read (a text not yet closed, a number or a
                # word of up to 5 letters at the end), or not JSON at all?
                cut = (
                    err.msg.startswith("Unterminated string")
                    or err.pos >= len(self.text) - _LONGEST_CUT
                )
                if not cut or self.ended:
                    raise self.fault(err.msg, err.pos) from None
                if len(self.text) - self.pos > cap:
                    raise self._too_long(text_value) from None
                self._more()
                continue
            except RecursionError:
                raise Unreadable("it nests deeper than any LinkLab file") from None
            except ValueError:  # NaN, Infinity, or an integer of more than 4300 digits
                raise Unreadable(NOT_A_NUMBER) from None
            # A number (or a word) near the end of what was read may go on in the next chunk:
            # "128." reads as 128 until the 0 after it is read.
            opener = self.text[self.pos]
            near_end = len(self.text) - end < _LONGEST_CUT and opener not in '"[{'
            if near_end and not self.ended:
                self._more()  # the text is kept from the value's start: decoded again
                continue
            if end - self.pos > cap:
                raise self._too_long(text_value)
            # 1e999 reads as infinity: a number that large is not a figure (the scanner reads
            # floats at C speed only without a hook, so the text is looked at instead).
            if not text_value and _HUGE.search(self.text, self.pos, end) and _infinite(found):
                raise Unreadable(NOT_A_NUMBER)
            self.pos = end
            return found

    def _too_long(self, text_value: bool) -> Unreadable:
        if text_value:
            return Unreadable(
                f"it holds a text longer than any LinkLab file holds (more than "
                f"{MAX_TEXT_CHARS // 2**20} M characters)"
            )
        return Unreadable("it holds more in one place than any LinkLab file holds")

    def skip(self) -> None:
        """Pass over the next value (an unknown key's): decoded within the caps, then let go."""
        self.value()
