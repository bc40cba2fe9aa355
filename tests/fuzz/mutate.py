"""A seeded mutator of real inputs: text changed a character, a number, a line or a stretch at
a time, and JSON documents changed a value, a key or a branch at a time (then written out, or
their text mutated too). Deterministic for a given random.Random."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

__all__ = ["Lines", "mutate_json", "mutate_text", "split_lines"]

Lines = list[str]

#: Numbers an engine or a file should never hold, or holds only at the edges.
NUMBERS = (
    "0", "-0", "-1", "0.000", "1e308", "1e999", "-1e999", "nan", "NaN", "inf", "-inf",
    "Infinity", "1" * 400, "9" * 5000, "2147483648", "-2147483649", "18446744073709551616",
    "0x10", "1_000", "١٢", "1e-320", "4.9e-324", ".", "-", "+", "e", "1e", "",
)  # fmt: skip
#: Characters that end lines, open or close things, or are not what they look like.
CHARS = (
    "\r", "\n", "\r\n", "\t", "\x00", "\x1b", "\ufeff", "\u2028", "\ud800", "é", "—", "�",
    '"', "\\", "{", "}", "[", "]", ":", ",", "/", "-", ".", " ", "%",
)  # fmt: skip
#: JSON values put in place of another.
VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**63, -(2**63), 10**400, 0.0, -0.0, 1e308, -1e308, 5e-324,
    "", "0", "1e999", "nan", "x" * 300, [], {}, [None], {"": None}, [[[[[]]]]],
)  # fmt: skip

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: The largest input made (a mutation that grows past it is cut back).
MAX_CHARS = 2_000_000


def split_lines(rng: random.Random, text: str) -> Lines:
    """Lines as an engine's reader may hand them on: split at \\n only (a \\r left at the
    end) or at every line ending."""
    if rng.random() < 0.5:
        return text.split("\n")
    return re.split(r"\r\n|\r|\n", text)


def mutate_text(rng: random.Random, text: str, rounds: int | None = None) -> str:
    """text with one to a few changes."""
    for _ in range(rounds or rng.choice((1, 1, 1, 2, 3, 5))):
        text = rng.choice(_TEXT_MUTATIONS)(rng, text)
    return text[:MAX_CHARS]


def _spot(rng: random.Random, text: str) -> int:
    return rng.randrange(len(text) + 1)


def _insert(rng: random.Random, text: str) -> str:
    at = _spot(rng, text)
    what = rng.choice(CHARS) if rng.random() < 0.7 else chr(rng.randrange(0x20, 0x3000))
    return text[:at] + what + text[at:]


def _delete(rng: random.Random, text: str) -> str:
    at = _spot(rng, text)
    return text[:at] + text[at + rng.choice((1, 1, 2, 8, 64, 1024)) :]


def _flip(rng: random.Random, text: str) -> str:
    if not text:
        return text
    at = rng.randrange(len(text))
    return text[:at] + chr(ord(text[at]) ^ (1 << rng.randrange(7))) + text[at + 1 :]


def _number(rng: random.Random, text: str) -> str:
    found = list(_NUMBER.finditer(text))
    if not found:
        return _insert(rng, text)
    match = rng.choice(found)
    return text[: match.start()] + rng.choice(NUMBERS) + text[match.end() :]


def _truncate(rng: random.Random, text: str) -> str:
    return text[: _spot(rng, text)]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _drop_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def _repeat_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    # Now and then many times over: a reader that slows down with the count is found.
    times = rng.choice((2, 3, 10, 100)) if rng.random() < 0.97 else 20_000
    times = min(times, MAX_CHARS // (len(lines[at]) + 1) + 1)
    return "\n".join(lines[:at] + [lines[at]] * times + lines[at + 1 :])


def _swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def _splice(rng: random.Random, text: str) -> str:
    """A stretch of the text copied elsewhere in it."""
    a, b = sorted((_spot(rng, text), _spot(rng, text)))
    at = _spot(rng, text)
    return text[:at] + text[a:b] + text[at:]


def _line_endings(rng: random.Random, text: str) -> str:
    return text.replace("\n", rng.choice(("\r", "\r\n", "\n\n", "\r\r\n")))


def _long_line(rng: random.Random, text: str) -> str:
    at = _spot(rng, text)
    roll = rng.random()
    size = 1000 if roll < 0.9 else 100_000 if roll < 0.99 else 1_000_000
    return text[:at] + rng.choice('9 x-.[{"') * size + text[at:]


_TEXT_MUTATIONS = (
    _insert, _insert, _delete, _flip, _number, _number, _number, _truncate, _drop_line,
    _repeat_line, _swap_lines, _splice, _line_endings, _long_line,
)  # fmt: skip


# -- JSON -----------------------------------------------------------------------------------
def mutate_json(rng: random.Random, document: Any, rounds: int | None = None) -> Any:
    """A deep copy of document with one to a few values, keys or branches changed."""
    document = copy.deepcopy(document)
    for _ in range(rounds or rng.choice((1, 1, 2, 3))):
        document = _mutate_node(rng, document)
    return document


def json_text(rng: random.Random, document: Any) -> str:
    """The mutated document written out; now and then its text mutated as well."""
    text = json.dumps(mutate_json(rng, document), ensure_ascii=rng.random() < 0.5)
    return mutate_text(rng, text, 1) if rng.random() < 0.2 else text


def _containers(node: Any, found: list[Any]) -> list[Any]:
    if isinstance(node, dict | list):
        found.append(node)
        for child in node.values() if isinstance(node, dict) else node:
            _containers(child, found)
    return found


def _new_value(rng: random.Random, old: Any) -> Any:
    roll = rng.random()
    if roll < 0.5:
        return copy.deepcopy(rng.choice(VALUES))
    if isinstance(old, int | float) and not isinstance(old, bool) and roll < 0.8:
        changes = (lambda: -old, lambda: old * 1000, lambda: old / 1000, lambda: str(old),
                   lambda: int(old))  # fmt: skip
        try:
            return rng.choice(changes)()
        except (OverflowError, ValueError):  # beyond a float, or an infinity made whole
            return None
    if isinstance(old, str) and roll < 0.8:
        return mutate_text(rng, old, 1)
    return rng.choice((str(old)[:50], [old], {"x": old}))


def _mutate_node(rng: random.Random, document: Any) -> Any:
    nodes = _containers(document, [])
    if not nodes:
        return _new_value(rng, document)
    node = rng.choice(nodes)
    if isinstance(node, dict):
        if not node:
            key = rng.choice(("start", "end", "intervals", "sessions", "x"))
            node[key] = copy.deepcopy(rng.choice(VALUES))
            return document
        key = rng.choice(list(node))
        roll = rng.random()
        if roll < 0.6:
            node[key] = _new_value(rng, node[key])
        elif roll < 0.8:
            del node[key]
        elif roll < 0.9:
            node[key + rng.choice(("", "_", "x"))] = copy.deepcopy(node[key])
        else:
            other = rng.choice(nodes)  # a branch moved under another key
            node[key] = copy.deepcopy(other) if other is not node else None
        return document
    if not node:
        node.append(copy.deepcopy(rng.choice(VALUES)))
        return document
    at = rng.randrange(len(node))
    roll = rng.random()
    if roll < 0.5:
        node[at] = _new_value(rng, node[at])
    elif roll < 0.7:
        del node[at]
    elif roll < 0.9:
        node[at:at] = [copy.deepcopy(node[at])] * rng.choice((1, 2, 50))
    else:
        node.reverse()
    return document
