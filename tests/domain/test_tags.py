"""One tag syntax for the window, the command line and stored sessions."""

from __future__ import annotations

import pytest

from app.domain.tags import TagError, parse_tag, parse_tags, tags_text


def test_labels_and_key_values() -> None:
    assert parse_tag("open") == ("open", "")
    assert parse_tag(" room = B12 ") == ("room", "B12")
    assert parse_tag("os=Windows 7=SP1") == ("os", "Windows 7=SP1")
    assert parse_tags("open, room=B12\nap=lab-2") == {"open": "", "room": "B12", "ap": "lab-2"}


def test_round_trip_through_text() -> None:
    tags = (("open", ""), ("room", "B12"))
    assert tags_text(tags) == "open, room=B12"
    assert tuple(parse_tags(tags_text(tags)).items()) == tags


@pytest.mark.parametrize("text", ["=B12", "room\x01=1", "x" * 201])
def test_bad_tags_say_which(text: str) -> None:
    with pytest.raises(TagError):
        parse_tag(text)
