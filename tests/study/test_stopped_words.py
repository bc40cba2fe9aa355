"""What Stop kept, in words, against the figures it is given: every count said is a count
given, the finished runs and each run cut short kept with its intervals, and a run that had
measured nothing is said not to be kept."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from app.study.sweep.stopped import stopped_words


def numbers(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


@given(st.integers(0, 5000), st.lists(st.integers(0, 100_000), max_size=4))
def test_every_count_is_one_given(finished: int, cut_short: list[int]) -> None:
    said = stopped_words(finished, cut_short)
    kept = [n for n in cut_short if n]
    empty = len(cut_short) - len(kept)
    expected = ([finished] if finished else []) + ([len(kept)] if len(kept) > 1 else []) + kept
    expected += [empty] if empty > 1 else []
    assert numbers(said) == expected, said
    assert ("no run had finished" in said) == (finished == 0)
    assert ("kept unfinished" in said) == bool(kept)
    assert ("nothing of" in said) == bool(empty)
    assert said.endswith("measures the runs left." if not kept else "again.")


def test_the_words_read_as_the_close_dialog_says_them() -> None:
    assert stopped_words(0, [4]) == (
        "no run had finished, and the run in progress is kept unfinished with the 4 "
        "intervals it measured; Resume in Sessions measures it again."
    )
    assert stopped_words(1, [1]) == (
        "1 finished run is saved, and the run in progress is kept unfinished with the 1 "
        "interval it measured; Resume in Sessions measures it again."
    )
    assert stopped_words(2, [0]) == (
        "2 finished runs are saved; the run in progress had measured no interval yet, so "
        "nothing of it is kept; Resume in Sessions measures the runs left."
    )
