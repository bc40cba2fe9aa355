"""The benchmarks stay runnable: `make bench` knows every one of them, each imports against
today's code and parses its options (a removed or renamed API fails here, not the next time a
benchmark is run; mypy checks the rest of their bodies)."""

from __future__ import annotations

import importlib

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
