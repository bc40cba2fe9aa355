"""The error every failure a user meets derives from: it carries the sentence to show."""

from __future__ import annotations


class LinkLabError(Exception):
    """Base of every error that reaches a user; `str(err)` is the sentence that says what to do."""

    #: True when trying the same thing again later may succeed (busy server, one refusal).
    transient = False
    #: Why a run did not start at once, as the note of a retry says it (a transient one's).
    retry_words = "it failed"

    def __init__(self, sentence: str, *, detail: str | None = None) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.detail = detail  # the program's own words, for the log

    @property
    def kind(self) -> str:
        return type(self).__name__


class BadOption(LinkLabError):
    """A value the user gave cannot be used (a flag, a field, a file)."""
