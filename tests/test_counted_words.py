"""Every count of runs, points, sessions (or anything else) a sentence writes agrees with its
number: app.domain.units.counted writes them all ("1 run", "2 runs", "1,920 runs"). This reads
the app's f-strings for the ways a count was once written by hand: a number followed by a
plural noun ("for {n} runs", "1 runs" when n is 1), or an "s" added by a condition."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.domain.units import counted

APP = Path(__file__).resolve().parents[1] / "app"
#: A number followed by one of these reads wrong when the number is 1.
PLURAL = re.compile(r"^ (runs|points|sessions|samples|values|computers|stations|rounds)\b")
#: "runs" as a verb after a name, not a count: "{server} runs one test at a time".
VERB = re.compile(r"^ runs (one|at|for)\b")


def hand_counted(source: str) -> list[str]:
    """The f-string parts of source that write a count without counted()."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for before, value, after in zip(
            [None, *parts[:-1]], parts, [*parts[1:], None], strict=True
        ):
            if not isinstance(value, ast.FormattedValue):
                continue
            if isinstance(value.value, ast.IfExp) and "'s'" in ast.unparse(value.value):
                found.append(ast.unparse(node))
            text = after.value if isinstance(after, ast.Constant) else None
            if not isinstance(text, str) or not PLURAL.match(text) or VERB.match(text):
                continue
            fraction = isinstance(before, ast.Constant) and str(before.value).endswith("/")
            if not fraction:  # "3/8 runs done" counts the runs planned, never one
                found.append(ast.unparse(node))
    return found


def test_counted_agrees_with_its_number() -> None:
    assert counted(1, "run") == "1 run"
    assert counted(0, "run") == "0 runs"
    assert counted(1920, "run") == "1,920 runs"
    assert counted(2, "try", "tries") == "2 tries"


def test_the_reader_finds_a_count_written_by_hand() -> None:
    assert hand_counted('f"about 3 s for {n} runs"')
    assert hand_counted("f\"{n} point{'s' if n != 1 else ''}\"")
    assert not hand_counted("f\"for {counted(n, 'run')}\"")
    assert not hand_counted('f"{server} runs one test at a time"')
    assert not hand_counted('f"{done}/{total} runs done"')


def test_no_sentence_of_the_app_counts_by_hand() -> None:
    found = {
        f"{path.relative_to(APP.parent)}: {part}"
        for path in sorted(APP.rglob("*.py"))
        if path.name != "units.py"
        for part in hand_counted(path.read_text(encoding="utf-8"))
    }
    assert not found, "\n".join(sorted(found))
