"""JSON files read within a memory bound: a large file's values are counted as they stream
past (never built) before the file is parsed, so no file under the size caps can take more
memory to be refused than to be read."""

from __future__ import annotations

import json
import math
import re
from collections import deque
from pathlib import Path
from typing import IO, Any

import ijson

#: Python objects cost far more than their JSON text: "[]," is 3 bytes of text and 64 bytes
#: of list (about 21 times), "1.5," 4 bytes and 32 of float. Up to this size even that worst
#: case stays near 200 MB, so a file this small is parsed at once (as it always was).
SMALL_FILE = 8 * 1024 * 1024
#: What the values of a larger file may cost once built, counted before they are: with the
#: typed sessions made from them and the interpreter itself, an import stays under 500 MB
#: (measured: about 300 MB for a file at this budget, valid or hostile).
MAX_BUILT_BYTES = 300 * 1024 * 1024
#: Deeper than any file LinkLab writes (it nests a few levels; an environment at most 32).
MAX_NESTING = 512

#: The longest text value a large file may hold, as its cost once read (a run's raw output
#: of MAX_RAW characters fits): the streaming parser holds a text's bytes and the text at once.
MAX_TEXT_BYTES = 96 * 1024 * 1024
#: How much of the file is looked at at once.
CHUNK = 4 * 1024 * 1024

# What a value costs once built (64-bit CPython): a list or dict's own object, a number and
# the slot that holds any value in its list (every separator is counted as one, so a text's
# slot is counted twice: the estimate errs high), a key's dict entry, a text's header.
_CONTAINER = 64
_VALUE = 48
_ENTRY = 48
_TEXT_COST = 80
#: A text's characters are held twice: read, and again (as UTF-8) while it is stored.
_TEXT_COPIES = 2
#: A text from its opening quote to its closing one (group 1), or to the end of the chunk.
_TEXT = re.compile(rb'"(?:[^"\\]++|\\.)*+(")?', re.DOTALL)
_INSIDE = re.compile(rb'(?:[^"\\]++|\\.)*+', re.DOTALL)


#: How a file in UTF-16 or UTF-32 begins (their byte-order marks).
WIDE_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


class Unreadable(ValueError):
    """Why a file cannot be read as JSON within the bounds, in a few words."""


def load_json(path: Path, size: int) -> object:
    """The JSON document in the file at path (size bytes): parsed at once when small, else
    counted first and built by the streaming parser. Raises Unreadable or OSError."""
    with path.open("rb") as handle:
        if size <= SMALL_FILE:
            return _small(handle.read())
        if handle.read(4).startswith(WIDE_MARKS):
            raise Unreadable("it is not UTF-8 text")
        handle.seek(0)
        _skip_bom(handle)
        _count(handle)
        handle.seek(0)
        _skip_bom(handle)
        try:
            # Large reads: the parser re-reads a text that spans its reads from its start.
            return next(ijson.items(handle, "", use_float=True, buf_size=CHUNK))
        except ijson.JSONError as err:  # counted whole already: only a change since then
            raise Unreadable(parser_words(err)) from None


def _small(raw: bytes) -> object:
    try:
        text = raw.decode("utf-8-sig")
        return json.loads(text, parse_float=_finite_float, parse_constant=_finite_float)
    except UnicodeDecodeError:
        raise Unreadable("it is not UTF-8 text") from None
    except RecursionError:
        raise Unreadable("it nests deeper than any LinkLab file") from None
    except json.JSONDecodeError as err:
        raise Unreadable(
            f"it is not valid JSON: {err.msg}, line {err.lineno} column {err.colno}"
        ) from None
    except ValueError:  # NaN, Infinity, 1e999, or an integer of more than 4300 digits
        raise Unreadable("it holds NaN, Infinity or a number too long to read") from None


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _skip_bom(handle: IO[bytes]) -> None:
    if handle.read(3) != b"\xef\xbb\xbf":
        handle.seek(0)


class _Counter:
    """What a file's values would cost once built, counted chunk by chunk at C speed (regular
    expressions for the texts, numpy for the nesting) without building any of them."""

    def __init__(self) -> None:
        self.built = 0
        self.depth = 0
        self.text: int | None = None  # bytes of the text being read, None outside a text
        self.wide = False  # the text holds characters beyond ASCII (or \u escapes)

    def feed(self, chunk: bytes) -> bytes:
        """Count a chunk; returns the bytes to put before the next one (a lone backslash)."""
        pos = 0
        if self.text is not None:
            closed, pos = self._inside(chunk, 0)
            if not closed:
                return chunk[pos:]
        # Every text from its opening quote, the last one perhaps running past the chunk (then
        # it has no closing quote): found left to right, so never matched from inside a text.
        found = deque(_TEXT.finditer(chunk, pos), maxlen=1)  # the last one, kept at C speed
        last = found[0] if found else None
        tail = last.start() if last is not None and last.group(1) is None else len(chunk)
        region = chunk[pos:tail]
        structure, texts = _TEXT.subn(b'""', region)
        wide = not region.isascii() or b"\\u" in region  # for every text here: errs high
        # A text within one chunk is shorter than MAX_TEXT_BYTES; only their sum is checked.
        chars = (len(region) - len(structure)) * (4 if wide else 1)
        self.built += texts * _TEXT_COST + chars * _TEXT_COPIES
        self._structure(structure)
        if tail == len(chunk):
            return b""
        self.text, self.wide = 0, False
        _, end = self._inside(chunk, tail + 1)  # it runs past this chunk
        return chunk[end:]

    def _inside(self, chunk: bytes, pos: int) -> tuple[bool, int]:
        """Read on inside a text from pos: (True, the position after its closing quote), or,
        when the chunk ends first, (False, where its last byte is a lone backslash to carry
        over to the next chunk, or the chunk's end)."""
        match = _INSIDE.match(chunk, pos)
        end = match.end() if match else pos
        part = chunk[pos:end]
        self.text = (self.text or 0) + len(part)
        self.wide = self.wide or not part.isascii() or b"\\u" in part
        self._check_text()
        if end < len(chunk) and chunk[end] == 0x22:  # the closing quote
            self._close()
            return True, end + 1
        return False, end

    def _check_text(self) -> None:
        if (self.text or 0) * (4 if self.wide else 1) > MAX_TEXT_BYTES:
            raise Unreadable(
                f"it holds a text longer than any LinkLab file holds (more than "
                f"{MAX_TEXT_BYTES // 2**20} MB once read)"
            )

    def _close(self) -> None:
        # Python keeps 1 byte per character for ASCII text, up to 4 beyond it.
        self.built += _TEXT_COST + (self.text or 0) * (4 if self.wide else 1) * _TEXT_COPIES
        self.text = None
        self._check_total()

    def _structure(self, part: bytes) -> None:
        if not part:
            return
        import numpy as np  # on first use: `linklab run` never reads an exchange file

        codes = np.frombuffer(part, dtype=np.uint8)
        opens = (codes == 0x5B) | (codes == 0x7B)
        closes = (codes == 0x5D) | (codes == 0x7D)
        containers = int(np.count_nonzero(opens))
        if containers or np.any(closes):
            levels = np.cumsum(opens.astype(np.int64) - closes) + self.depth
            if int(levels.max()) > MAX_NESTING:
                raise Unreadable("it nests deeper than any LinkLab file")
            self.depth = int(levels[-1])
        values = containers + part.count(b",")
        self.built += containers * _CONTAINER + values * _VALUE + part.count(b":") * _ENTRY
        self._check_total()

    def _check_total(self) -> None:
        if self.built > MAX_BUILT_BYTES:
            raise Unreadable(
                f"it holds more values than LinkLab reads from one file (they would take "
                f"more than {MAX_BUILT_BYTES // 2**20} MB of memory)"
            )


def _count(handle: IO[bytes]) -> None:
    """Refuse a file whose values would cost more than MAX_BUILT_BYTES once built, nest
    deeper than MAX_NESTING or hold a text over MAX_TEXT_BYTES, before any is built. Whether
    it is valid JSON is left to the parser."""
    counter = _Counter()
    carry = b""
    while chunk := handle.read(CHUNK):
        carry = counter.feed(carry + chunk)


NOT_A_NUMBER = "it holds NaN, Infinity or a number too long or too large to read"


def parser_words(err: Any) -> str:
    """The streaming parser's complaint as the small path words it."""
    said = err.args[0] if err.args else str(err)
    text = said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
    lines = text.strip().splitlines()
    first = lines[0] if lines else "cut short"
    if "overflow" in first:
        return NOT_A_NUMBER
    if "UTF8" in first:
        return "it is not UTF-8 text"
    near = lines[1] if len(lines) > 1 else ""  # the text around the fault, as yajl quotes it
    if "invalid char" in first and any(word in near for word in ("NaN", "Infinity")):
        return NOT_A_NUMBER
    return f"it is not valid JSON: {first}"
