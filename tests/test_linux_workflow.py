"""The Linux workflow runs what a developer runs: `make lint`, and `make test` as root (so the
namespace tests run) on every push and pull request; `make fuzz` on a schedule, never inside
`make test`, whose suite collects no fuzz target."""

from __future__ import annotations

import re

from tests.conftest import ROOT_DIR

WORKFLOW = ROOT_DIR / ".github" / "workflows" / "linux.yml"


def _job(text: str, name: str) -> str:
    """The lines of one job (up to the next job at the same indent)."""
    match = re.search(rf"^  {name}:\n(.*?)(?=^  \w[\w-]*:\n|\Z)", text, re.MULTILINE | re.DOTALL)
    assert match is not None, f"no job {name}"
    return match.group(1)


def test_lint_and_the_suite_as_root_on_every_push_and_pull_request() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    triggers = text.split("\njobs:")[0]
    assert re.search(r"^  push:$", triggers, re.MULTILINE)
    assert re.search(r"^  pull_request:$", triggers, re.MULTILINE)
    assert re.search(r'^    - cron: "[\d*/ ,-]+"$', triggers, re.MULTILINE)
    lint, test = _job(text, "lint"), _job(text, "test")
    assert "runs-on: ubuntu-" in lint and "run: make lint" in lint
    assert "runs-on: ubuntu-" in test
    (run,) = [line for line in test.splitlines() if "make test" in line and "run:" in line]
    assert "sudo " in run  # root: the namespace tests run instead of skipping
    assert 'PYTEST_ADDOPTS: "-rs"' in text  # every skip's reason is in the log
    for job in (lint, test):
        assert "if: github.event_name != 'schedule'" in job


def test_the_fuzz_run_is_scheduled_and_not_part_of_make_test() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    fuzz = _job(text, "fuzz")
    assert "github.event_name == 'schedule'" in fuzz and "run: make fuzz" in fuzz
    makefile = (ROOT_DIR / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None and "fuzz" not in recipe.group(0)
    fuzz_recipe = re.search(r"^fuzz:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert fuzz_recipe is not None
    assert "LINKLAB_FUZZ_COUNT=$(FUZZ_COUNT)" in fuzz_recipe.group(1)
    assert "python -m tests.fuzz" in fuzz_recipe.group(1)
    assert re.search(r"^FUZZ_COUNT \?= 100000$", makefile, re.MULTILINE)
    # The suite collects test_*.py files: none of the fuzz package's is one.
    assert not list((ROOT_DIR / "tests" / "fuzz").glob("test_*.py"))
