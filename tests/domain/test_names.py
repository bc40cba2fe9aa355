"""A student's and a group's name, bounded wherever one is taken: a name of any real length is
kept as typed, a page of text is refused with a sentence, never cut short silently."""

from __future__ import annotations

import pytest

from app.domain.errors import BadOption
from app.domain.exercise import MAX_NAME, group_name, student_name


def test_a_real_name_is_kept_as_typed() -> None:
    assert student_name("  Ana  Souza ") == "Ana  Souza"
    assert student_name("Ł" * MAX_NAME) == "Ł" * MAX_NAME
    assert group_name("") == ""


@pytest.mark.parametrize("bound", [student_name, group_name])
def test_a_page_of_text_is_refused_with_its_length(bound: object) -> None:
    assert callable(bound)
    with pytest.raises(BadOption) as refused:
        bound("A" * 100_000)
    sentence = refused.value.sentence
    assert "100,000 characters" in sentence and f"at most {MAX_NAME}" in sentence
    assert "A" * 50 not in sentence  # the name itself is not echoed back


def test_an_empty_name_is_asked_for() -> None:
    with pytest.raises(BadOption, match="Type your name"):
        student_name(" \n ")
