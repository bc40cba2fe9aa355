"""docs/ARCHITECTURE.md describes the code as it is: every file, folder and module it names
exists (a module's attribute too: `app.analysis.expectation.rate_words`), every folder of
app/ is named in it (a screen, a study part, an engine package), and it names every
import-linter contract of pyproject.toml by its name there."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from tests.conftest import ROOT_DIR

DOC = ROOT_DIR / "docs" / "ARCHITECTURE.md"
TOPS = ("app", "tests", "benchmarks", "scripts", "installers", "resources", "docs")
#: A path the doc names from the checkout's top: `app/engine/process/spool.py`, `tests/data/`
#: (one with a <placeholder> stands for many, and is not looked up).
PATH = re.compile(rf"(?<![\w/.<-])((?:{'|'.join(TOPS)})/[\w./<>-]*)")
#: A module by its dotted name, maybe with one of its names after it.
DOTTED = re.compile(r"(?<![\w./])(app(?:\.\w+)+)")
#: A file named alone (in a drawing: `loopback.py`).
FILE = re.compile(r"(?<![\w/.-])(\w+\.(?:py|sh|md|toml|json))\b")


def doc_text(path: Path = DOC) -> str:
    # A table cell writes a | as \|.
    return path.read_text(encoding="utf-8").replace("\\|", "|")


def file_names(root: Path = ROOT_DIR) -> set[str]:
    """The names of the checkout's files and folders (its own, not the virtual env's)."""
    names = {path.name for path in root.iterdir()}
    for top in TOPS:
        if (root / top).is_dir():
            names |= {path.name for path in (root / top).rglob("*")}
    return names


def _defines(module: Path, name: str) -> bool:
    """Whether the module defines name at its top (a function, class, constant or import)."""
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, ast.ImportFrom | ast.Import):
            if any((alias.asname or alias.name) == name for alias in node.names):
                return True
    return False


def dotted_exists(dotted: str, root: Path = ROOT_DIR) -> bool:
    """A package or module by its dotted name, or a module and a name it defines."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base, rest = root.joinpath(*parts[:cut]), parts[cut:]
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.is_file():
            return not rest or (len(rest) == 1 and _defines(module, rest[0]))
    return False


def missing(text: str, root: Path = ROOT_DIR) -> list[str]:
    """What the text names that the checkout does not have."""
    paths = {found.rstrip(".,;:") for found in PATH.findall(text) if "<" not in found}
    names = file_names(root)
    gone = {path for path in paths if not (root / path).exists()}
    gone |= {dotted for dotted in DOTTED.findall(text) if not dotted_exists(dotted, root)}
    gone |= {name for name in FILE.findall(text) if name not in names}
    return sorted(gone)


def test_everything_the_doc_names_exists() -> None:
    assert missing(doc_text()) == []


def test_every_folder_of_the_app_is_named() -> None:
    """A screen, a part of the study, an engine package: as `name/` in the doc."""
    text = doc_text()
    folders = sorted(
        path.relative_to(ROOT_DIR / "app")
        for path in (ROOT_DIR / "app").rglob("*")
        if path.is_dir() and (path / "__init__.py").exists()
    )
    unnamed = [
        folder.as_posix()
        for folder in folders
        if f"{folder.name}/" not in text and f"app/{folder.as_posix()}/" not in text
    ]
    assert unnamed == []


def test_every_import_contract_is_named() -> None:
    text = doc_text()
    config = tomllib.loads((ROOT_DIR / "pyproject.toml").read_text(encoding="utf-8"))
    names = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    assert names
    assert [name for name in names if name not in text] == []


def test_what_does_not_exist_is_found(tmp_path: Path) -> None:
    engine = tmp_path / "app" / "engine"
    engine.mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "errors.py").write_text("class EngineError(Exception): ...\nLIMIT = 1\n")
    text = (
        "`app/engine/errors.py` and `app/engine/drivers/<engine>/driver.py`, errors.py, "
        "`app.engine.errors.EngineError`, app.engine.errors.LIMIT and app.engine."
    )
    assert missing(text, tmp_path) == []
    gone = (
        "`app/engine/gone.py`; app/engine/drivers/. app.engine.errors.Gone, "
        "app.engine.iperf3 and stall.py"
    )
    assert missing(gone, tmp_path) == [
        "app.engine.errors.Gone",
        "app.engine.iperf3",
        "app/engine/drivers/",
        "app/engine/gone.py",
        "stall.py",
    ]
