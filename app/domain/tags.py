"""Free tags of a session, one syntax everywhere: KEY=VALUE, or a plain label such as "open".

A label is kept as a tag with an empty value, so "open, room=B12" is (("open", ""), ("room",
"B12")). Commas or new lines separate tags; spaces around keys and values are dropped.
"""

from __future__ import annotations

import re

MAX_TAG_LENGTH = 200
_SEPARATORS = re.compile(r"[,\n]")


class TagError(ValueError):
    """A tag that cannot be kept; str() is the sentence for the user."""


def parse_tag(text: str) -> tuple[str, str]:
    """One tag: 'room=B12' -> ('room', 'B12'), 'open' -> ('open', '')."""
    key, sep, value = text.strip().partition("=")
    key, value = key.strip(), value.strip()
    if not key:
        raise TagError(
            f"The tag {text.strip()!r} has no name before '=': write KEY=VALUE or a plain label."
        )
    if len(key) + len(value) > MAX_TAG_LENGTH:
        raise TagError(f"The tag {key!r} is longer than {MAX_TAG_LENGTH} characters: shorten it.")
    if any(ord(ch) < 32 for ch in key + value):
        raise TagError(f"The tag {key!r} contains control characters: type it again.")
    return key, value if sep else ""


def parse_tags(text: str) -> dict[str, str]:
    """Every tag of a comma- or line-separated text; TagError names the first bad one."""
    tags: dict[str, str] = {}
    for part in _SEPARATORS.split(text):
        if part.strip():
            key, value = parse_tag(part)
            tags[key] = value
    return tags


def tag_text(key: str, value: str) -> str:
    """A tag as the user writes it: 'room=B12', or just 'open' for a label."""
    return f"{key}={value}" if value else key


def tags_text(tags: tuple[tuple[str, str], ...] | dict[str, str], separator: str = ", ") -> str:
    pairs = tags.items() if isinstance(tags, dict) else tags
    return separator.join(tag_text(k, v) for k, v in pairs)
