"""The benchmarks stay runnable: `make bench` knows every one of them, each imports against
today's code and parses its options (a removed or renamed API fails here, not the next time a
benchmark is run; mypy checks the rest of their bodies), and docs/PERFORMANCE.md gives each its
target, its figures and the command that measures them."""

from __future__ import annotations

import importlib
import re

import pytest

from benchmarks import run_all
from tests.conftest import ROOT_DIR

BENCHMARKS = ROOT_DIR / "benchmarks"


def test_make_bench_knows_every_benchmark() -> None:
    files = {path.stem for path in BENCHMARKS.glob("*.py")} - {"run_all"}
    assert set(run_all.NAMES) == files
    assert len(run_all.NAMES) == len(set(run_all.NAMES))


@pytest.mark.parametrize("name", run_all.NAMES)
def test_a_benchmark_imports_and_parses_its_options(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    with pytest.raises(SystemExit) as ended:
        module.main(["--help"])
    assert ended.value.code == 0
    assert "--quick" in capsys.readouterr().out  # a short look, for trying it out


def test_benchmarks_are_chosen_by_name_and_an_unknown_name_is_refused_with_the_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_all.chosen([]) == list(run_all.NAMES)
    assert run_all.chosen(["store_scale", "latency_probe.py"]) == ["store_scale", "latency_probe"]
    assert run_all.main(["store_scale", "no_such_bench"]) == 2
    said = capsys.readouterr()
    assert "No benchmark is called no_such_bench." in said.err
    assert all(name in said.err for name in run_all.NAMES)
    assert said.out == ""  # nothing was run
    assert run_all.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == list(run_all.NAMES)


def test_the_performance_page_gives_every_benchmark_its_figure_and_command() -> None:
    """A section each, headed by the benchmark's file, with its target, the date its figures
    were measured and the command that measures them again."""
    page = (ROOT_DIR / "docs" / "PERFORMANCE.md").read_text(encoding="utf-8")
    sections = page.split("\n## ")[1:]
    for name in run_all.NAMES:
        own = [s for s in sections if f"`benchmarks/{name}.py`" in s.split("\n", 1)[0]]
        assert len(own) == 1, f"no one section of docs/PERFORMANCE.md is headed by {name}.py"
        assert f"benchmarks/run_all.py {name}" in own[0], f"{name}'s section names no command"
        assert "**Target" in own[0], f"{name}'s section states no target"
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", own[0]), f"{name}'s figures are not dated"
