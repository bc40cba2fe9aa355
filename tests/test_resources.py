"""resources/ is found the same way from a checkout and from a frozen (PyInstaller) bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.process import tools
from app.resources import resource_dir
from app.study.sweep.presets import preset_dirs

ROOT = Path(__file__).resolve().parent.parent


def test_from_a_checkout_it_is_the_repository_folder() -> None:
    assert resource_dir() == ROOT / "resources"
    assert (resource_dir() / "presets").is_dir()
    assert (resource_dir() / "icons" / "linklab.svg").is_file()


def test_frozen_it_is_inside_the_bundle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "resources" / "presets").mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resource_dir() == tmp_path / "resources"
    assert tools.bundled_dir() == tmp_path / "resources" / "engines" / tools.platform_tag()
    assert preset_dirs()[0] == tmp_path / "resources" / "presets"
