"""The longest-first list names files that exist, and sorting by it keeps every test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.conftest import ROOT_DIR
from tests.heavy_first import HEAVY_FIRST, heavy_first


def test_every_file_listed_exists_once() -> None:
    assert len(set(HEAVY_FIRST)) == len(HEAVY_FIRST)
    missing = [path for path in HEAVY_FIRST if not (ROOT_DIR / path).is_file()]
    assert not missing, f"no longer there (measure again): {missing}"


def test_the_listed_files_come_first_and_nothing_else_moves() -> None:
    ids = ["tests/a.py::t1", HEAVY_FIRST[1] + "::t", "tests/b.py::t2", HEAVY_FIRST[0] + "::t"]
    items: list[Any] = [SimpleNamespace(nodeid=i) for i in ids]
    heavy_first(items)
    assert [i.nodeid for i in items] == [ids[3], ids[1], ids[0], ids[2]]
