"""The environment engines start with: frozen-bundle library paths and bundled engine libraries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.process.process import ENGINE_MANIFEST, ManagedProcess, child_environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="LD_LIBRARY_PATH is POSIX-only")


def _bundle(tmp_path: Path) -> Path:
    folder = tmp_path / "engines"
    (folder / "lib").mkdir(parents=True)
    (folder / ENGINE_MANIFEST).write_text("{}", encoding="utf-8")
    return folder


def test_source_run_passes_the_environment_through() -> None:
    env = child_environment("/usr/bin/iperf3", environ={"LD_LIBRARY_PATH": "/x", "A": "1"})
    assert env == {"LD_LIBRARY_PATH": "/x", "A": "1"}


def test_frozen_restores_the_users_library_path_for_system_engines() -> None:
    environ = {"LD_LIBRARY_PATH": "/bundle/_internal:/x", "LD_LIBRARY_PATH_ORIG": "/x"}
    env = child_environment("/usr/bin/iperf3", environ=environ, frozen=True)
    assert env == {"LD_LIBRARY_PATH": "/x"}


def test_frozen_without_an_original_value_drops_the_bundle_path() -> None:
    env = child_environment("/usr/bin/nft", environ={"LD_LIBRARY_PATH": "/b"}, frozen=True)
    assert "LD_LIBRARY_PATH" not in env


def test_bundled_engine_gets_its_lib_folder_first(tmp_path: Path) -> None:
    folder = _bundle(tmp_path)
    environ = {"LD_LIBRARY_PATH": "/b/_internal", "LD_LIBRARY_PATH_ORIG": "/user"}
    env = child_environment(str(folder / "iperf3"), {"K": "v"}, environ=environ, frozen=True)
    assert env["LD_LIBRARY_PATH"] == f"{folder / 'lib'}:/user"
    assert env["K"] == "v"
    env = child_environment(str(folder / "iperf3"), environ={}, frozen=True)
    assert env["LD_LIBRARY_PATH"] == str(folder / "lib")


def test_a_lib_folder_without_the_manifest_is_not_trusted(tmp_path: Path) -> None:
    folder = tmp_path / "somewhere"
    (folder / "lib").mkdir(parents=True)
    env = child_environment(str(folder / "iperf3"), environ={})
    assert "LD_LIBRARY_PATH" not in env


def test_the_child_really_sees_it(tmp_path: Path) -> None:
    folder = _bundle(tmp_path)
    script = folder / "show-env"
    script.write_text('#!/bin/sh\necho "$LD_LIBRARY_PATH"\n', encoding="utf-8")
    script.chmod(0o755)
    proc = ManagedProcess([str(script)])
    proc.start()
    lines = list(proc.lines(idle_timeout=10))
    assert proc.wait(10) == 0
    assert lines[0].split(":")[0] == str(folder / "lib")
