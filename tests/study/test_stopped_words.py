"""What Stop kept, in words, against the figures it is given: every count said is a count
given, the finished runs and each run cut short kept with its intervals, and a run that had
measured nothing is said not to be kept."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from app.study.sweep.stopped import duration_words, stop_took_words, stopped_words


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


@given(st.floats(0.0, 30.0), st.floats(-1.0, 30.0))
def test_how_long_stop_took_is_said_within_its_rounding_and_never_as_nothing(
    asked_at: float, took: float
) -> None:
    said = stop_took_words(asked_at, asked_at + took)
    shape = r"The engine ended (?:(\d+) ms|(\d+\.\d\d) s|under 1 ms) after Stop\."
    found = re.fullmatch(shape, said)
    assert found is not None, said
    true = max(0.0, took)
    if found[1] is not None:
        assert 1 <= int(found[1]) <= 999 and abs(int(found[1]) - true * 1000) <= 0.5 + 1e-6
    elif found[2] is not None:
        assert float(found[2]) >= 1.0 and abs(float(found[2]) - true) <= 0.005 + 1e-9
    else:
        assert true < 0.0005 + 1e-9, said
    assert " 0.00 s" not in said and " 0 ms" not in said  # never nothing for a stop


def test_stop_between_runs_says_no_engine_was_running() -> None:
    assert stop_took_words(5.0, None) == "Stopped between runs: no engine was running."
    assert duration_words(0.0004) == "under 1 ms"
    assert duration_words(0.0021) == "2 ms"
    assert duration_words(0.9996) == "1.00 s"
