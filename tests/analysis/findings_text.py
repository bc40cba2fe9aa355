"""Reading a pair's findings back, as a reader would: which points each "At …" statement
covers, and which verdict its words give (a test helper, independent of the generator)."""

from __future__ import annotations

import re
from collections.abc import Sequence

NUMBER = r"\d+(?:\.\d+)?(?:e[+-]\d+)?"


def _at(unit: str) -> re.Pattern[str]:
    tail = rf" {re.escape(unit)}" if unit else ""
    return re.compile(
        rf"^At (?P<a>{NUMBER})(?:(?P<sep>–| and )(?P<b>{NUMBER}))?{tail}"
        rf"(?: \((?P<n>\d+) points\))?(?P<rest>[ ,].*)$"
    )


def statements(findings: Sequence[str], unit: str) -> list[tuple[list[str], str, str]]:
    """The statements about points: (the values as written, the separator, the sentence)."""
    found = []
    for sentence in findings:
        match = _at(unit).match(sentence)
        if match is None:
            continue
        written = [match["a"]] + ([match["b"]] if match["b"] else [])
        found.append((written, match["sep"] or "", sentence))
    return found


def statement_points(
    findings: Sequence[str], values: Sequence[float], unit: str
) -> list[tuple[list[float], str]]:
    """Per statement the table's points it covers (a range covers every point between its
    ends, and says how many), with its sentence."""
    found = []
    for written, sep, sentence in statements(findings, unit):
        ends = [float(w) for w in written]
        for end in ends:
            assert end in values, f"{end} is no point of the table: {sentence}"
        if sep == "–":
            first, last = values.index(ends[0]), values.index(ends[1])
            covered = list(values[first : last + 1])
            count = re.search(r"\((\d+) points\)", sentence)
            assert count and int(count.group(1)) == len(covered) >= 3, sentence
        elif sep == " and ":
            first, last = values.index(ends[0]), values.index(ends[1])
            assert last == first + 1, f"'and' joins points that are not neighbours: {sentence}"
            covered = ends
        else:
            covered = ends
        found.append((covered, sentence))
    return found


def covered_points(findings: Sequence[str], values: Sequence[float], unit: str) -> list[float]:
    """Every point the statements cover, each once (asserted), sorted."""
    covered = [v for points, _ in statement_points(findings, values, unit) for v in points]
    assert len(covered) == len(set(covered)), f"a point is in two statements: {findings}"
    return sorted(covered)


def sentence_verdict(sentence: str, base: str, other: str, *, higher_is_better: bool) -> str:
    """'higher', 'lower', 'same', 'untested' or 'unmeasured', read from the words; the
    winner the sentence names must agree with its direction."""
    if "there is no significant difference" in sentence:
        assert "better" not in sentence, sentence
        return "same"
    if "a side has a single run" in sentence:
        assert "better" not in sentence, sentence
        return "untested"
    unmeasured = (
        "has a successful run",
        "has no successful run",
        "has a figure of",
        "has no figure of",
        "not in the plan of",
    )
    if any(words in sentence for words in unmeasured):
        assert "better" not in sentence, sentence
        return "unmeasured"
    more = re.search(rf"{re.escape(other)} (had .* (more|less) |added )", sentence)
    assert more, sentence
    higher = more.group(2) != "less"
    winner, loser = (other, base) if higher == higher_is_better else (base, other)
    # Where the lower side's CPU was busy there, the verdict says so after the winner.
    busy = (
        rf"(, though in \d+ of \d+ runs? of {re.escape(loser if higher_is_better else winner)} "
        r"there the CPU was busy at or above 90 % of one core: the computer, not the link, may "
        r"have set its pace \(see the CPU warning\))?"
    )
    ends = rf"{re.escape(winner)} is better there than {re.escape(loser)}{busy}\.$"
    assert re.search(ends, sentence), sentence
    return "higher" if higher else "lower"


def statement_verdicts(
    findings: Sequence[str],
    base: str,
    other: str,
    unit: str,
    *,
    higher_is_better: bool,
    values: Sequence[float],
) -> dict[float, str]:
    """Per point of the table (values) the verdict its statement gives."""
    found: dict[float, str] = {}
    for points, sentence in statement_points(findings, values, unit):
        said = sentence_verdict(sentence, base, other, higher_is_better=higher_is_better)
        for value in points:
            found[value] = said
    return found
