"""House rules that can be checked mechanically: Qt only under app/ui, no shell anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT_DIR

APP = ROOT_DIR / "app"
QT = {"PySide6", "pyqtgraph", "shiboken6"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_qt_only_under_app_ui() -> None:
    offenders = [
        str(p.relative_to(ROOT_DIR))
        for p in APP.rglob("*.py")
        if "ui" not in p.relative_to(APP).parts[:1] and _imports(p) & QT
    ]
    assert not offenders


def test_no_shell_in_app() -> None:
    offenders = []
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                    offenders.append(f"{path.name}:{node.value.lineno}")
            if isinstance(node, ast.Attribute) and node.attr in {"system", "popen"}:
                if isinstance(node.value, ast.Name) and node.value.id == "os":
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders


def test_only_process_module_starts_long_lived_children() -> None:
    """subprocess.Popen appears in app/engine/process.py only (STYLE rule 5)."""
    users = [
        p.relative_to(ROOT_DIR).as_posix() for p in APP.rglob("*.py") if "Popen(" in p.read_text()
    ]
    assert users == ["app/engine/process.py"]


def test_modules_stay_small() -> None:
    big = {p.name: n for p in APP.rglob("*.py") if (n := len(p.read_text().splitlines())) > 500}
    assert not big
