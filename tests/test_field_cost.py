"""The tables drive the code: a plan setting such as the DSCP mark costs the data model (its
Variable member and Plan attribute), its row of the plan-field table with its vocabulary, and
one declared argument per engine driver; nothing else in app/ names it.

Counted in code: names, strings and numbers, not comments or docstrings (they may give the
mark as an example without the code depending on it)."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

from tests.conftest import ROOT_DIR

APP = ROOT_DIR / "app"
#: The files a setting like the DSCP mark may cost.
ALLOWED = {
    "app/domain/plan.py",
    "app/domain/field_table.py",
    "app/engine/drivers/iperf3/options.py",
    "app/engine/drivers/iperf2/options.py",
    "app/engine/drivers/netperf/options.py",
}


def _docstrings(tree: ast.Module) -> set[tuple[int, int]]:
    """Where each docstring of the module, its classes and functions starts."""
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                starts.add((first.lineno, first.col_offset))
    return starts


def code_mentions(path: Path, word: str) -> bool:
    """Whether the module's code (not its comments or docstrings) has the word in it."""
    text = path.read_text(encoding="utf-8")
    docstrings = _docstrings(ast.parse(text))
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            continue
        if token.type == tokenize.STRING and token.start in docstrings:
            continue
        if word in token.string.lower():
            return True
    return False


def test_the_dscp_mark_costs_the_model_its_row_and_one_argument_per_driver() -> None:
    mentions = {
        path.relative_to(ROOT_DIR).as_posix()
        for path in sorted(APP.rglob("*.py"))
        if code_mentions(path, "dscp")
    }
    assert mentions == ALLOWED


def test_comments_and_docstrings_are_not_counted(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""DSCP."""\n\n\ndef f() -> None:\n    """dscp"""  # DSCP\n')
    assert not code_mentions(module, "dscp")
    module.write_text('"""Marks."""\n\nMARK = "dscp"\n')
    assert code_mentions(module, "dscp")
