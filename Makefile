# LinkLab: `make run` starts the app, `make test` runs the whole test suite. Both set up
# everything first on a fresh Debian/Ubuntu machine: the virtual env, the dependencies and the
# measurement engines (iperf3 required, netperf optional).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-windows setup engines desktop test-tools dist-tools dist bench fuzz screenshots lint typecheck clean

run: setup engines desktop
	$(BIN)/linklab

# Processes (pytest-xdist), each taking whole test files, the longest first
# (tests/heavy_first.py; xdist's own order, most tests first, would leave a long file last):
# the network tests shape and drop traffic only in namespaces of their own, so they can run
# side by side, and most of a test's time is an engine measuring for a fixed time, so two
# processes share a core. scripts/test_processes.py counts them from the cores this computer
# lets the suite use (affinity, cgroup CPU quota) and its available memory (docs/PERFORMANCE.md).
# TEST_PROCESSES=N runs N; TEST_PROCESSES=0 runs the suite in one.
TEST_PROCESSES ?= $(shell $(PYTHON) scripts/test_processes.py)

test: setup engines test-tools
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder

# The suite under Windows Python: the official embeddable CPython and the pinned win_amd64 wheels
# under Wine (../shared/wine), with iperf 2.2.1 built for Windows from its pinned source (found in
# build/built-engines/windows-x86_64); no Windows iperf3 or netperf: tests needing one skip.
WINE_HARNESS ?= ../shared/wine
WINDOWS_TIME_LIMIT ?= 2400

test-windows: dist-tools
	bash $(WINE_HARNESS)/setup.sh
	$(BIN)/python installers/build_iperf2.py --target windows
	LINKLAB_TEST_MIN_WAIT_S=30 WINE_TIMEOUT=$(WINDOWS_TIME_LIMIT) WINE_TEST_TIMEOUT=300 \
		bash $(WINE_HARNESS)/run.sh -q -p no:cacheprovider -rs tests

setup: $(STAMP)

$(STAMP): pyproject.toml
	@scripts/ensure-python.sh "$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

engines:
	@scripts/ensure-engines.sh

desktop:
	@scripts/ensure-desktop.sh

test-tools: dist-tools
	@scripts/ensure-engines.sh --with-test-tools
	@scripts/ensure-desktop.sh --with-screenshots

dist-tools: setup
	@scripts/ensure-dist-tools.sh $(BIN)/python

# The Linux installers: a PyInstaller bundle with the engines, as dist/*.tar.gz and dist/*.deb.
dist: setup engines dist-tools
	$(BIN)/python installers/build.py

# The Windows bundle and installer, built on this machine with Windows CPython under Wine (the
# harness in WINE_HARNESS; its folder is LINKLAB_WINE_DIR, by default ~/.cache/linklab-wine-dist),
# then installed and smoke-tested there. Its engine is iperf 2.2.1, built for Windows from its
# pinned source with MinGW-w64 (no Windows iperf3 can be had here; the release workflow bundles
# both): the output is in dist/windows/. About 10 minutes; not part of `make test`.
WINE_HARNESS ?= ../shared/wine
.PHONY: dist-windows
dist-windows: setup dist-tools
	$(BIN)/python installers/windows/wine_dist.py --harness "$(WINE_HARNESS)"

screenshots: setup engines test-tools
	$(BIN)/python scripts/screenshots.py

# Every benchmark (docs/PERFORMANCE.md), or those BENCH names: `make bench BENCH=store_scale`;
# `BENCH="--quick store_scale"` takes a short look; `benchmarks/run_all.py --list` names them.
BENCH ?=
bench: setup engines dist-tools
	@scripts/ensure-engines.sh --with-test-tools
	$(BIN)/python benchmarks/run_all.py $(BENCH)

# Every reader (the five engine parsers, the exchange-file and hand-in readers, the collector's
# requests) through FUZZ_COUNT mutated inputs each, each within 2 s of CPU, failing on any error
# that is not LinkLab's own or any slow input (their inputs kept in build/fuzz-findings). Seeds:
# tests/data and the captured engine outputs in FUZZ_OUTPUTS. CPU-heavy (run niced); not part
# of `make test`, which runs it with 200 inputs each.
FUZZ_COUNT ?= 100000
FUZZ_OUTPUTS ?= ../shared/engine-outputs

fuzz: setup
	LINKLAB_FUZZ_COUNT=$(FUZZ_COUNT) LINKLAB_ENGINE_OUTPUTS=$(FUZZ_OUTPUTS) \
		nice -n 19 $(BIN)/python -m tests.fuzz --findings build/fuzz-findings

lint: setup
	$(BIN)/ruff check app tests benchmarks installers scripts
	$(BIN)/ruff format --check app tests benchmarks installers scripts
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
